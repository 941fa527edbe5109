"""A repository's own rules (``rules-dir`` in its config, also loaded by the editor) are written by
whoever opens the pull request, and so are the values their ``when:`` schemas meet. Three ways such a
rule could take the run down, each bounded:

- a ``pattern`` (or ``patternProperties``) that backtracks: ``^(a+)+$`` against ``"a" * 28 + "!"``
  took 7 s with ``re``, doubling per character; patterns are now searched by a linear-time NFA
  (:mod:`vlint.engine.linear_regex`), and constructs it cannot run are refused when the rule is loaded;
- a ``when:`` built from YAML aliases (a 500-byte "billion laughs" the validators walked for minutes):
  a rule file is measured with its aliases expanded, and refused past 10,000 nodes or 100 aliases;
- ``{model}`` written a hundred times in a message (a 100 MB finding): templates are capped at load,
  rendered messages at 2,000 characters.

The end-to-end cases that meet long text run vlint in a child process with a CPU-time limit, so that a
regression fails instead of hanging; a rule refused at load (whose launch is a few characters) runs in
this process. Nothing here asserts on elapsed time.
"""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vlint.engine.linear_regex import MAX_PROGRAM, compile_linear
from vlint.engine.runner import render_message

ROOT = Path(__file__).resolve().parents[2]
#: CPU seconds a child may use: each case takes well under one with the bounds, hours without
CPU_SECONDS = 30

RULE = """code: EVIL001
name: evil
severity: warning
summary: A hostile custom rule for the bounds tests.
message: "{message}"
when: {when}
"""


def write_rule(folder: Path, when: str, message: str = "model {model}", name: str = "EVIL001-evil.yaml") -> Path:
    rules = folder / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / name).write_text(RULE.format(when=when, message=message), encoding="utf-8")
    return rules


def run_bounded(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``vlint check --isolated --format json ARGS`` in a child with a CPU-time limit (and 2 GiB)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    r = subprocess.run(
        [sys.executable, "-m", "vlint.cli", "check", "--isolated", "--format", "json", "-j", "1", *args],
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        preexec_fn=cap,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert r.returncode >= 0, f"killed by signal {-r.returncode} (over the CPU limit of {CPU_SECONDS} s?)"
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    return r


def evil_findings(r: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    assert r.returncode in (0, 1), r.stderr[-3000:]
    return [f for f in json.loads(r.stdout)["findings"] if f["code"] == "EVIL001"]


# -- (a) patterns: a linear-time matcher ---------------------------------------------------------------
def test_a_backtracking_pattern_on_a_long_value_finishes(tmp_path: Path) -> None:
    rules = write_rule(tmp_path, '{properties: {model: {type: string, pattern: "^(a+)+$"}}}')
    (tmp_path / "no.sh").write_text("vllm serve " + "a" * 50_000 + "! --enforce-eager\n", encoding="utf-8")
    (tmp_path / "yes.sh").write_text("vllm serve " + "a" * 50_000 + " --enforce-eager\n", encoding="utf-8")
    found = evil_findings(run_bounded(tmp_path, "--rules-dir", str(rules), "no.sh", "yes.sh"))
    assert [f["path"] for f in found] == ["yes.sh"]


@pytest.mark.parametrize(
    "when",
    [
        "{properties: {env: {patternProperties: {'^(A+)+$': true}, additionalProperties: false}}}",
        "{properties: {env: {propertyNames: {pattern: '^(A+)+$'}}}}",
    ],
    ids=["patternProperties", "jsonschema-pattern"],
)
def test_jsonschema_keywords_match_in_linear_time(tmp_path: Path, when: str) -> None:
    """jsonschema's own ``pattern`` (reached here through ``propertyNames``), ``patternProperties``
    and ``additionalProperties`` (which consults those patterns) ran ``re.search`` on the names of
    the launch's environment variables."""
    rules = write_rule(tmp_path, when)
    (tmp_path / "no.sh").write_text("A" * 40_000 + "_=1 vllm serve m/x\n", encoding="utf-8")
    (tmp_path / "yes.sh").write_text("A" * 40_000 + "=1 vllm serve m/x\n", encoding="utf-8")
    found = evil_findings(run_bounded(tmp_path, "--rules-dir", str(rules), "no.sh", "yes.sh"))
    assert [f["path"] for f in found] == ["yes.sh"]


def test_the_search_takes_linear_steps() -> None:
    rx = compile_linear(r"^(a+)+$")
    steps = {}
    for n in (5_000, 10_000, 20_000):
        matched, steps[n] = rx.run("a" * n + "b")
        assert not matched
        assert steps[n] <= 4 * (n + 1) * len(rx.code)
    assert steps[20_000] <= 2.1 * steps[10_000] <= 4.5 * steps[5_000]
    assert rx.search("a" * 100_000) and not rx.search("a" * 100_000 + "b")
    # many NFA states alive at once, and a memo of state sets that keeps missing: still linear
    wide = compile_linear("[ab]*a[ab]{40}c")
    text = "ab" * 5_000
    assert wide.run(text)[1] <= 4 * (len(text) + 1) * len(wide.code)


_ATOMS = ["a", "b", "A", "k", ".", "[ab]", "[^a]", "[a-c]", "[^\\d\\s]", r"\d", r"\w", r"\s", r"\W", r"\.", " ", "é"]
_ANCHORS = ["^", "$", r"\A", r"\Z", r"\b", r"\B"]
_QUANTIFIERS = ["*", "+", "?", "*?", "+?", "??", "{2}", "{0,2}", "{1,3}", "{2,}", "{1,2}?"]
#: not ``(?a:``: CPython tests a pattern's first character class with the *outer* flags before matching
#: (``re.search(r"(?a:\\W)", "é")`` is None although ``é`` is not an ASCII word character); the
#: matcher follows the documented meaning there
_SCOPED = ["(?i:", "(?s:", "(?m:", "(?-i:", "("]


def _patterns() -> st.SearchStrategy[str]:
    leaf = st.sampled_from(_ATOMS + _ANCHORS)
    body = st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map("|".join),
            st.tuples(st.sampled_from(_SCOPED), inner).map(lambda t: f"{t[0]}{t[1]})"),
            st.tuples(inner, st.sampled_from(_QUANTIFIERS)).map(lambda t: f"(?:{t[0]}){t[1]}"),
        ),
        max_leaves=8,
    )
    return st.tuples(st.sampled_from(["", "(?i)", "(?s)", "(?m)", "(?a)", "(?ims)"]), body).map("".join)


@settings(max_examples=200, deadline=None)
@given(_patterns(), st.text(alphabet="aAbBkK\u212a\u017fs1 _\n.-é", max_size=12))
def test_the_linear_matcher_agrees_with_re(pattern: str, text: str) -> None:
    try:
        expected = re.search(pattern, text) is not None
    except re.error:
        return  # not a regular expression (a scoped flag Python refuses): the loader refuses it too
    assert compile_linear(pattern).search(text) == expected, (pattern, text)


REFUSED = [
    ("(a)\\1", "backreference"),
    ("(?P<x>a)(?P=x)", "backreference"),
    ("a(?=b)", "lookahead"),
    ("a(?!b)", "negative lookahead"),
    ("(?<=a)b", "lookbehind"),
    ("(?<!a)b", "negative lookbehind"),
    ("(a)?(?(1)b|c)", "conditional group"),
    ("a{5000}", f"over {MAX_PROGRAM:,} instructions"),
    ("((a{30}){30}){30}", f"over {MAX_PROGRAM:,} instructions"),
    ("(" * 3000 + ")" * 3000, "pattern"),
    ("(", "not a valid regular expression"),
]
if sys.version_info >= (3, 11):
    REFUSED += [("(?>a+)b", "atomic group"), ("a++b", "possessive repeat")]


def _yaml_single_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@pytest.mark.parametrize("keyword", ["pattern", "patternProperties"])
@pytest.mark.parametrize(("pattern", "why"), REFUSED, ids=[w for _, w in REFUSED])
def test_patterns_that_cannot_run_in_linear_time_are_refused_at_load(
    tmp_path: Path, keyword: str, pattern: str, why: str
) -> None:
    quoted = _yaml_single_quoted(pattern)
    if keyword == "pattern":
        when = f"{{properties: {{model: {{pattern: {quoted}}}}}}}"
    else:  # an explicit key: YAML allows implicit ones of at most 1024 characters
        when = f"\n  properties:\n    env:\n      patternProperties:\n        ? {quoted}\n        : false"
    rules = write_rule(tmp_path, when)
    (tmp_path / "serve.sh").write_text("vllm serve m/x\n", encoding="utf-8")
    # a refused rule never runs, and the launch it would meet is 14 characters: in this process (the
    # bounded child is for the cases above, where a regression would backtrack on long text)
    for args in (
        ["check", "--isolated", "--format", "json", "-j", "1", "--rules-dir", str(rules), "serve.sh"],
        ["rules", "test", str(rules)],
    ):
        r = run_here(tmp_path, *args)
        assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
        assert "EVIL001-evil.yaml: when: pattern" in r.stderr and why in r.stderr, r.stderr[-2000:]
        assert repr(pattern)[:40] in r.stderr


def run_here(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``vlint ARGS`` from ``cwd`` in this process (:func:`tests.userrepo.invoke`: click's ``CliRunner``,
    the command's own ``main``), as a CompletedProcess for the same assertions."""
    from tests.userrepo import invoke

    r = invoke(cwd, list(args))
    return subprocess.CompletedProcess(list(args), r.code, r.out, r.err)


def test_unevaluated_properties_beside_pattern_properties_is_refused(tmp_path: Path) -> None:
    """jsonschema's ``unevaluatedProperties`` matches the ``patternProperties`` with ``re`` itself."""
    when = "{properties: {env: {patternProperties: {'^A': true}, unevaluatedProperties: false}}}"
    rules = write_rule(tmp_path, when)
    (tmp_path / "serve.sh").write_text("vllm serve m/x\n", encoding="utf-8")
    r = run_bounded(tmp_path, "--rules-dir", str(rules), "serve.sh")
    assert r.returncode == 2 and "EVIL001-evil.yaml: when: unevaluatedProperties" in r.stderr, r.stderr


def test_a_property_named_pattern_is_not_a_pattern(tmp_path: Path) -> None:
    """``properties: {pattern: …}`` names a setting and ``const`` holds data: neither is compiled."""
    when = "{properties: {env: {properties: {pattern: {const: '(?=x)'}}}}, not: {const: {pattern: '(a)\\1'}}}"
    rules = write_rule(tmp_path, when)
    (tmp_path / "serve.sh").write_text("pattern='(?=x)' vllm serve m/x\n", encoding="utf-8")
    assert len(evil_findings(run_bounded(tmp_path, "--rules-dir", str(rules), "serve.sh"))) == 1


# -- (b) YAML aliases: the rule measured as expanded -------------------------------------------------
def _laughs(levels: int = 9, fan: int = 9) -> str:
    """``{allOf: [x, x, …]}`` nested ``levels`` deep through aliases: ``fan ** levels`` schemas to walk."""
    text = "&l0 {type: object}"
    for k in range(1, levels + 1):
        text = f"&l{k} {{allOf: [{text}" + f", *l{k - 1}" * (fan - 1) + "]}"
    return text


def test_a_when_built_from_aliases_is_refused(tmp_path: Path) -> None:
    rules = write_rule(tmp_path, "{properties: {settings: " + _laughs() + "}}")
    assert (rules / "EVIL001-evil.yaml").stat().st_size < 1000  # 9**9 schemas once expanded
    (tmp_path / "serve.sh").write_text("vllm serve m/x\n", encoding="utf-8")
    r = run_bounded(tmp_path, "--rules-dir", str(rules), "serve.sh")
    assert r.returncode == 2
    assert "EVIL001-evil.yaml: more than 10,000 YAML nodes once its aliases are expanded" in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("when", "why"),
    [
        ("{allOf: [&s {type: object}" + ", *s" * 101 + "]}", "more than 100 YAML aliases"),
        ("&w {not: *w}", "a YAML alias inside the node it names"),
        ("{not: " * 60 + "{}" + "}" * 60, "nested more than 50 levels deep"),
        ("{allOf: [&d " + "{not: " * 30 + "{}" + "}" * 30 + ", " + "{not: " * 20 + "*d" + "}" * 20 + "]}", "nested"),
    ],
    ids=["alias-count", "recursive-alias", "deep", "deep-through-an-alias"],
)
def test_alias_and_nesting_limits(tmp_path: Path, when: str, why: str) -> None:
    rules = write_rule(tmp_path, when)
    (tmp_path / "serve.sh").write_text("vllm serve m/x\n", encoding="utf-8")
    r = run_bounded(tmp_path, "--rules-dir", str(rules), "serve.sh")
    assert r.returncode == 2 and f"EVIL001-evil.yaml: {why}" in r.stderr, r.stderr[-2000:]


def test_a_rule_with_a_few_aliases_still_loads(tmp_path: Path) -> None:
    eager = "&eager {properties: {enforce_eager: {const: true}}, required: [enforce_eager]}"
    again = "{properties: {user: *eager}}"
    when = f"{{properties: {{user: {eager}}}, allOf: [{again}, {again}]}}"
    rules = write_rule(tmp_path, when)
    (tmp_path / "serve.sh").write_text("vllm serve m/x --enforce-eager\n", encoding="utf-8")
    assert len(evil_findings(run_bounded(tmp_path, "--rules-dir", str(rules), "serve.sh"))) == 1


# -- (c) messages: the template and the rendered text capped -------------------------------------------
ALWAYS = "{properties: {model: {type: string}}}"


def test_a_long_message_template_is_refused_at_load(tmp_path: Path) -> None:
    rules = write_rule(tmp_path, ALWAYS, message="{model}" * 100)
    (tmp_path / "serve.sh").write_text("vllm serve m/x\n", encoding="utf-8")
    r = run_bounded(tmp_path, "--rules-dir", str(rules), "serve.sh")
    assert r.returncode == 2 and "EVIL001-evil.yaml: message: 700 characters" in r.stderr, r.stderr


def test_a_rendered_message_is_cut_at_2000_characters(tmp_path: Path) -> None:
    rules = write_rule(tmp_path, ALWAYS, message="{model}" * 70)
    (tmp_path / "serve.sh").write_text("vllm serve org/" + "m" * 5_000 + "\n", encoding="utf-8")
    (message,) = [f["message"] for f in evil_findings(run_bounded(tmp_path, "--rules-dir", str(rules), "serve.sh"))]
    assert len(message) == 2000 and message.endswith("… (message cut at 2,000 characters)")


def test_rendering_stops_formatting_at_the_limit() -> None:
    """Fields are formatted one at a time: a template of a thousand fields formats about twenty."""
    calls = []

    class Value:
        def __format__(self, spec: str) -> str:
            calls.append(spec)
            return "x" * 100

    text = render_message("{v}" * 1000, {"v": Value()}, "fallback")
    assert len(text) == 2000 and text.endswith("(message cut at 2,000 characters)")
    assert len(calls) <= 21
    assert render_message("short {n:>4}", {"n": 7}, "fallback") == "short    7"
    assert render_message("{n.__class__}", {"n": 7}, "fallback") == "fallback"
    assert len(render_message("{n", {}, "s" * 10_000)) == 2000  # the fallback (a custom summary) too
