"""Every case of every rule (rules/*.yaml) runs as a test: the findings of that rule must be exactly the
expected ones (code and line:col)."""

from __future__ import annotations

import pytest

from vlint.checks import all_checks
from vlint.commands.rule_pages import run_case
from vlint.core.paths import rules_dir
from vlint.core.rule import Rule, RuleCase
from vlint.engine.catalog import load_catalog, load_rules_from

CATALOG = load_catalog()
CASES = [(r, c) for r in CATALOG.rules for c in r.cases]


@pytest.mark.parametrize(("rule", "case"), CASES, ids=[f"{r.code}-{c.doc}-{c.title}" for r, c in CASES])
def test_rule_case(rule: Rule, case: RuleCase) -> None:
    findings = [f for f in run_case(case, rule) if f.code == rule.code]
    with_position = all(" " in e for e in case.expect)
    got = sorted(f"{f.code} {f.span.line}:{f.span.column}" if with_position else f.code for f in findings)
    assert got == sorted(case.expect), "\n".join(f"{f.span}: {f.code} {f.message}" for f in findings) or "none"


def test_every_rule_has_a_bad_and_a_good_case() -> None:
    for r in CATALOG.rules:
        kinds = {c.doc for c in r.cases}
        assert {"bad", "good"} <= kinds, f"{r.code} needs at least one bad and one good case"
        for c in r.cases:
            if c.doc == "bad":
                assert c.expect, f"{r.code} bad case {c.title!r} expects nothing"
            else:
                assert not c.expect, f"{r.code} good case {c.title!r} expects findings"


def test_rule_files_validate_against_the_rule_schema() -> None:
    rules = load_rules_from(rules_dir(), validate=True)
    assert len(rules) == len(CATALOG.rules)


def test_rule_file_names_match_code_and_name() -> None:
    for r in CATALOG.rules:
        assert r.path.endswith(f"{r.code}-{r.name}.yaml"), r.path


def test_every_check_is_used_by_a_rule_and_exists() -> None:
    checks = all_checks()
    used = {r.check for r in CATALOG.rules if r.check and not r.builtin}
    assert used <= set(checks), used - set(checks)
    assert set(checks) <= used, f"checks without a rule: {set(checks) - used}"


def test_builtin_codes_emitted_by_code_have_rule_files() -> None:
    import re
    from pathlib import Path

    import vlint

    emitted: set[str] = set()
    for p in Path(vlint.__file__).parent.rglob("*.py"):
        emitted |= set(re.findall(r'(?:ArgIssue|Problem)\(\s*"(VL\d{3})"', p.read_text()))
    builtin = {r.code for r in CATALOG.rules if r.builtin}
    assert emitted <= set(CATALOG.by_code), emitted - set(CATALOG.by_code)
    assert builtin <= emitted, f"builtin rules no code emits: {builtin - emitted}"
