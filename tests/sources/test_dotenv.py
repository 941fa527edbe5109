"""``.env`` files, compose/Dockerfile ``${VAR}`` interpolation and shell-like word splitting.

Spans are ``line:col`` (1-based), counted by hand from the texts below.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from vlint.core.span import PositionMap
from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, Reader, lint_paths
from vlint.sources.containers import dotenv
from vlint.sources.containers.dotenv import Mapped, interpolate, mapping_lookup, parse_dotenv, split_words
from vlint.sources.registry import sources_for


def values(text: str) -> dict[str, tuple[str, bool]]:
    return {
        name: (e.value.text, e.unresolved)
        for name, e in dotenv.dotenv_values(parse_dotenv(textwrap.dedent(text), ".env")).items()
    }


def test_plain_quoted_exported_and_commented_values() -> None:
    got = values(
        """\
        # a comment
        A=1
        export B=two words   # a trailing comment
        C='single $A # kept'
        D="double ${A} \\"q\\" \\n"
        E: yaml-style
        F=x#not-a-comment
          G = spaced
        not an assignment
        """
    )
    assert got == {
        "A": ("1", False),
        "B": ("two words", False),
        "C": ("single $A # kept", False),
        "D": ('double 1 "q" \n', False),
        "E": ("yaml-style", False),
        "F": ("x#not-a-comment", False),
        "G": ("spaced", False),
    }


def test_duplicate_keys_last_wins_and_earlier_keys_expand() -> None:
    got = values(
        """\
        MAX_MODEL_LEN=131072
        LEN=${MAX_MODEL_LEN}
        MAX_MODEL_LEN=8192
        """
    )
    assert got["MAX_MODEL_LEN"] == ("8192", False)
    assert got["LEN"] == ("131072", False)  # expanded with the value it had at that line


def test_unknown_variables_stay_unresolved_and_defaults_apply() -> None:
    got = values("A=${HOME}/x\nB=${NOPE:-fallback}\nC=$NOPE\n")
    assert got["A"] == ("${HOME}/x", True)
    assert got["B"] == ("fallback", False)
    assert got["C"] == ("$NOPE", True)


def test_multiline_double_quotes_and_unterminated_quote() -> None:
    got = values('KEY="line one\nline two"\nBAD="no end\nNEXT=1\n')
    assert got["KEY"] == ("line one\nline two", False)
    assert got["BAD"] == ('"no end', False)  # taken literally, like compose
    assert got["NEXT"] == ("1", False)


def test_entry_spans_cover_name_and_value() -> None:
    text = "# x\nexport HF_TOKEN=hf_abc\nEMPTY=\n"
    entries = parse_dotenv(text, "a/.env")
    tok = entries[0].token()
    assert (tok.span.path, tok.span.line, tok.span.column, tok.span.end_column) == ("a/.env", 2, 1, 23)
    assert (entries[0].name_span.line, entries[0].name_span.column) == (2, 8)
    assert entries[1].value.text == "" and not entries[1].unresolved


def test_extract_gives_assignments_and_no_launches(tmp_path: Path) -> None:
    (tmp_path / ".env.example").write_text("HF_TOKEN=\nMODEL=Qwen/Qwen3-8B\n")
    reader = Reader(LintOptions(root=tmp_path))
    src = reader.read(tmp_path / ".env.example")
    assert [s.name for s in sources_for(src)] == ["dotenv"]
    result = dotenv.extract(src, reader.read)
    assert result.invocations == []
    assert [(n, t.text, t.span.line) for n, t in result.assignments] == [
        ("HF_TOKEN", "", 1),
        ("MODEL", "Qwen/Qwen3-8B", 2),
    ]


def test_sniff_by_name(tmp_path: Path) -> None:
    for name, ok in (
        (".env", True),
        (".env.prod", True),
        ("vllm.env", True),
        ("env.txt", False),
        ("environment.yml", False),
    ):
        assert dotenv.is_dotenv_name(name) is ok, name


def test_a_token_in_a_dotenv_file_is_a_plain_text_secret(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("MODEL=Qwen/Qwen3-8B\nHF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH\n")
    report = lint_paths([path], Engine(load_catalog()), LintOptions(root=tmp_path))
    assert [(f.code, f.span.line, f.span.column) for f in report.findings] == [("VL502", 2, 1)]
    assert "hf_abcdefgh" not in report.findings[0].message


# -- interpolation -------------------------------------------------------------------------------
def interp(text: str, known: dict[str, str], **kw: object) -> tuple[str, list[str]]:
    m = interpolate(text, mapping_lookup(dict(known), **kw))  # type: ignore[arg-type]
    return m.text, [m.text[a:b] for a, b in m.unresolved]


def test_interpolation_operators() -> None:
    env = {"SET": "v", "EMPTY": ""}
    assert interp("${SET} $SET ${SET:-d} ${SET-d} ${SET:+alt} ${SET+alt}", env) == ("v v v v alt alt", [])
    assert interp("[${EMPTY:-d}] [${EMPTY-d}] [${EMPTY:+alt}] [${EMPTY+alt}]", env) == ("[d] [] [] [alt]", [])
    # unknown (may come from the environment): a default is what runs, anything else stays unresolved
    assert interp("${X:-d} ${X-d}", env) == ("d d", [])
    assert interp("${X} $X ${X:?set X} ${X:+alt}", env) == (
        "${X} $X ${X:?set X} ${X:+alt}",
        ["${X}", "$X", "${X:?set X}", "${X:+alt}"],
    )
    # known to be unset (Dockerfile variables nobody declared): empty
    assert interp("[${X}] [${X:-d}] [${X:+alt}]", {}, missing="unset") == ("[] [d] []", [])


def test_interpolation_escapes_and_nesting() -> None:
    assert interp("$$HOME $${X}", {}) == ("$HOME ${X}", [])
    assert interp("${A:-${B:-inner}}", {}) == ("inner", [])
    assert interp("${A:-${B}}", {"B": "b"}) == ("b", [])
    m = interpolate("\\$HOME $V", mapping_lookup({"V": "1"}), escape="\\")
    assert m.text == "$HOME 1"
    assert interp("$ 5$ ${", {}) == ("$ 5$ ${", [])


def test_interpolation_keeps_origins() -> None:
    text = "--max-model-len ${LEN:-8192} --model ${MODEL}"
    m = interpolate(text, mapping_lookup({"MODEL": "Qwen/Qwen3-8B"}))
    assert m.text == "--max-model-len 8192 --model Qwen/Qwen3-8B"
    pm = PositionMap.for_text("x", text)
    # the default's characters point at the default in the source, a substituted value at the expression
    k = m.text.index("8192")
    assert (m.span(pm, k, k + 4).column, m.span(pm, k, k + 4).end_column) == (
        text.index("8192") + 1,
        text.index("8192") + 5,
    )
    k = m.text.index("Qwen")
    span = m.span(pm, k, len(m.text))
    assert (span.column, span.end_column) == (text.index("${MODEL}") + 1, len(text) + 1)


def test_split_words_like_compose() -> None:
    m = interpolate('vllm serve "${M:-a b}" \'x y\' a\\ b ${OPT} "${Q}" --k=v && echo no', mapping_lookup({}))
    words = split_words(m, stop_at_operators=True)
    assert [w.text.text for w in words] == ["vllm", "serve", "a b", "x y", "a b", "${OPT}", "${Q}", "--k=v"]
    assert [w.opaque for w in words] == [False] * 5 + [True, False, False]
    assert words[6].text.is_unresolved() and not words[2].text.is_unresolved()


def test_split_words_keep_empty_quoted_words_and_newlines() -> None:
    words = split_words(Mapped.verbatim('a ""\n  b\tc'))
    assert [w.text.text for w in words] == ["a", "", "b", "c"]


def test_doubling_values_are_capped() -> None:
    """``A=${A}${A}`` on every line would double the value each time (2^50 characters)."""
    got = values("A=x\n" + "A=${A}${A}\n" * 50)
    text, unresolved = got["A"]
    assert unresolved and len(text) <= dotenv.MAX_VALUE * 2
