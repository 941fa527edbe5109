"""Property tests for the shell source (hypothesis).

* words quoted any of bash's ways (``'…'``, ``"…"``, backslashes, ``$'…'``) and laid out with
  continuations, comments and env prefixes come back exactly;
* every token span lies inside the file and covers the word's source text;
* arbitrary damage to a script never raises anything but a syntax error, which the source turns into
  a located ``SourceError``.
"""

from __future__ import annotations

from pathlib import Path

from budgets import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vlint.core.span import PositionMap
from vlint.sources.base import SourceError, SourceText
from vlint.sources.scripts import shell
from vlint.sources.scripts.shell_eval import ShellEvaluator
from vlint.sources.scripts.shell_lexer import ShellSyntaxError, lex

SETTINGS = settings(max_examples=examples(ci=50, long=1000), suppress_health_check=[HealthCheck.too_slow])

#: characters that need no quoting anywhere in a word
_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+-,")

# word contents: flag-like text, values with blanks and quotes, shell metacharacters, non-ASCII
word_text = st.text(
    alphabet=st.sampled_from(list("abcXYZ019_-./=:,@% \t'\"\\$`!#&;|<>(){}[]*?~é漢\n")),
    min_size=0,
    max_size=12,
)
flag = st.from_regex(r"--[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,5}){0,2}", fullmatch=True)
#: nothing but characters that need quoting
special = st.text(alphabet=st.sampled_from(list(" \t\n'\"\\$`#;&|<>!*")), min_size=1, max_size=5)
value = st.one_of(word_text, special, st.from_regex(r"[0-9]{1,5}(\.[0-9]{1,2})?[kKmM]?", fullmatch=True))
name = st.from_regex(r"[A-Z_][A-Z0-9_]{0,8}", fullmatch=True)


def single_quoted(w: str) -> str:
    return "'" + w.replace("'", "'\\''") + "'"


def double_quoted(w: str) -> str:
    return '"' + "".join("\\" + c if c in '"\\$`' else c for c in w) + '"'


def backslashed(w: str) -> str:
    if w == "":
        return "''"
    out = []
    for c in w:
        if c == "\n":
            out.append("'\n'")  # a backslash-newline would be a continuation
        elif c in _SAFE:
            out.append(c)
        else:
            out.append("\\" + c)
    return "".join(out)


def ansi_c(w: str) -> str:
    table = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t"}
    return "$'" + "".join(table.get(c, c) for c in w) + "'"


def plain_or_quoted(w: str) -> str:
    if w and all(c in _SAFE for c in w) and not w.startswith("#"):
        return w
    return single_quoted(w)


QUOTERS = [single_quoted, double_quoted, backslashed, ansi_c, plain_or_quoted]


@st.composite
def command_line(draw: st.DrawFn) -> tuple[str, list[str], dict[str, str]]:
    """(source text, argv after the command name, env prefix assignments)."""
    env = draw(st.dictionaries(name, word_text, max_size=2))
    words: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        words.append(draw(flag))
        if draw(st.booleans()):
            words.append(draw(value))
    pieces = [f"{k}={draw(st.sampled_from(QUOTERS))(v)}" for k, v in env.items()]
    pieces.append("cmd")
    pieces += [draw(st.sampled_from(QUOTERS))(w) for w in words]
    text = pieces[0]
    for p in pieces[1:]:
        sep = draw(st.sampled_from([" ", "  ", "\t", " \\\n  ", " \\\n\t", "\\\n "]))
        text += sep + p
    if draw(st.booleans()):
        text += draw(st.sampled_from(["  # a comment", " # --flag 1 \\", " ;", " &", " | tee log", " > out 2>&1"]))
    return text, words, env


@SETTINGS
@given(st.lists(command_line(), min_size=1, max_size=3), st.sampled_from(["\n", "\n\n", "\n# comment\n", ";\n"]))
def test_words_round_trip(lines: list[tuple[str, list[str], dict[str, str]]], joiner: str) -> None:
    text = joiner.join(t for t, _, _ in lines) + "\n"
    ev = ShellEvaluator(text, PositionMap.for_text("t.sh", text))
    commands = [c for c in ev.commands() if c.words and c.words[0].text == "cmd"]
    assert len(commands) == len(lines)
    for cmd, (_, words, env) in zip(commands, lines, strict=True):
        assert [w.text for w in cmd.words[1:]] == words
        assert not any(w.unresolved for w in cmd.words)
        assert {k: w.text for k, w in cmd.prefix_env.items()} == env


@SETTINGS
@given(st.lists(st.tuples(flag, value, st.sampled_from(QUOTERS)), max_size=5), st.sampled_from(["", "\r"]))
def test_launch_spans_lie_in_the_file_and_cover_the_source(pairs: list[tuple[str, str, object]], cr: str) -> None:
    lines = ["#!/bin/bash", "vllm serve m \\"]
    sources: list[str] = ["m"]
    for f, v, quote in pairs:
        q = quote(v)  # type: ignore[operator]
        lines.append(f"  {f} {q} \\")
        sources += [f, q]
    lines.append("")
    text = (cr + "\n").join(lines)
    result = shell.extract_from_text(
        text,
        PositionMap.for_text("t.sh", text),
        base_dir=Path("/nonexistent"),
        read_file=_no_file,
    )
    assert result.error is None
    (inv,) = result.invocations
    file_lines = text.split("\n")
    assert [t.text for t in inv.args] == ["m", *[x for f, v, _ in pairs for x in (f, v)]]
    for tok, src in zip(inv.args, sources, strict=True):
        s = tok.span
        assert 1 <= s.line <= s.end_line <= len(file_lines)
        assert 1 <= s.column <= len(file_lines[s.line - 1]) + 1
        assert 1 <= s.end_column <= len(file_lines[s.end_line - 1]) + 1
        assert _slice(file_lines, s) == src


@SETTINGS
@given(st.lists(st.tuples(flag, st.from_regex(r"[a-z0-9.]{1,6}", fullmatch=True)), max_size=4), st.booleans())
def test_bash_c_spans_cover_the_words_inside_the_string(pairs: list[tuple[str, str]], multiline: bool) -> None:
    inner = "vllm serve m" + "".join((" \\\n  " if multiline else " ") + f"{f} {v}" for f, v in pairs)
    text = f"bash -c {double_quoted(inner)}\n"
    result = shell.extract_from_text(
        text, PositionMap.for_text("t.sh", text), base_dir=Path("/nonexistent"), read_file=_no_file
    )
    (inv,) = result.invocations
    file_lines = text.split("\n")
    assert _slice(file_lines, inv.span) == "vllm"
    for tok in inv.args:
        assert _slice(file_lines, tok.span) == tok.text


def _no_file(p: Path) -> SourceText:
    raise SourceError("no such file")


def _slice(lines: list[str], s: object) -> str:
    """The file text a span covers."""
    if s.line == s.end_line:  # type: ignore[attr-defined]
        return lines[s.line - 1][s.column - 1 : s.end_column - 1]  # type: ignore[attr-defined]
    parts = [lines[s.line - 1][s.column - 1 :]]  # type: ignore[attr-defined]
    parts += lines[s.line : s.end_line - 1]  # type: ignore[attr-defined]
    parts.append(lines[s.end_line - 1][: s.end_column - 1])  # type: ignore[attr-defined]
    return "\n".join(parts)


_SEED_SCRIPTS = [
    '#!/bin/bash\nMODEL=${MODEL:-Qwen/Qwen3-8B}\nA=(--tp 2)\nexport HF_TOKEN="$T"\n'
    'CUDA_VISIBLE_DEVICES=0 nohup vllm serve "$MODEL" \\\n  "${A[@]}" --max-model-len $((8 * 1024)) \\\n'
    "  --config c.yaml > log 2>&1 &\n",
    "cat > c.yaml <<-EOF\n\tmax-model-len: $LEN\n\tEOF\nif [ -n \"$X\" ]; then\n  vllm serve m --x $'a\\tb'\nfi\n",
    'docker run --gpus \'"device=0"\' -e K="$V" vllm/vllm-openai:v0.9.0 --model m `hostname` $(nproc)\n'
    'bash -c "vllm serve m --a \\"b c\\""\n',
    "docker run `\n  -v ${PWD}:/m `\n  vllm/vllm-openai:latest --model m\n",
]
_MUTATION_CHARS = [*"'\"`$(){}[]\\\n\t #;&|<>=-!*?~", "<<", "<<-", "EOF", "$((", "${", "\\\n", "\r\n"]


@st.composite
def mutated_script(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(_SEED_SCRIPTS))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.sampled_from(_MUTATION_CHARS))
        if op == "insert":
            text = text[:at] + piece + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 4)) :]
        else:
            text = text[:at] + piece + text[at + 1 :]
    return text


@settings(max_examples=examples(ci=100, long=2000), suppress_health_check=[HealthCheck.too_slow])
@given(mutated_script(), st.booleans())
def test_damaged_scripts_never_crash(text: str, powershell: bool) -> None:
    try:
        lex(text, powershell=powershell)
    except ShellSyntaxError as e:
        assert 0 <= e.offset <= len(text)
    ev = ShellEvaluator(text, PositionMap.for_text("t.sh", text), powershell=powershell)
    try:
        for _ in ev.commands():
            pass
    except ShellSyntaxError:
        pass
    result = shell.extract_from_text(
        text,
        PositionMap.for_text("t.sh", text),
        base_dir=Path("/nonexistent"),
        read_file=_no_file,
        powershell=powershell,
    )
    n_lines = text.count("\n") + 1
    if result.error is not None:
        assert isinstance(result.error, SourceError)
        assert result.error.line is not None and 1 <= result.error.line <= n_lines
    for inv in result.invocations:
        for tok in [*inv.args, *inv.env.values()]:
            assert 1 <= tok.span.line <= tok.span.end_line <= n_lines
