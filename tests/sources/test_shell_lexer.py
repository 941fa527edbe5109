"""The shell lexer: words, quoting, operators, redirections, here-documents, errors.

Expected words were taken from real bash (``bash -c 'printf "<%s>" …'``) and are hard-coded here.
"""

from __future__ import annotations

import pytest

from vlint.sources.scripts.shell_lexer import (
    Arith,
    CmdSubst,
    Lit,
    Param,
    RawCommand,
    ShellSyntaxError,
    _ArrayLit,
    lex,
)


def literal_words(text: str) -> list[list[str | None]]:
    """Each command's words as literals (None for a word with expansions)."""
    return [[w.literal() for w in c.words] for c in lex(text)]


def word_sources(text: str) -> list[list[str]]:
    """Each command's words as the source text they were read from."""
    return [[text[w.start : w.end] for w in c.words] for c in lex(text)]


# -- quoting ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a b  c", ["a", "b", "c"]),
        ("'a b' \"c d\" e\\ f", ["a b", "c d", "e f"]),
        ("'a\"b' \"a'b\"", ['a"b', "a'b"]),
        ('"a\\"b" "\\$x" "\\`" "\\\\" "\\n"', ['a"b', "$x", "`", "\\", "\\n"]),  # \n stays two chars in "…"
        ("a\\\\b c\\", ["a\\b", "c\\"]),  # bash keeps a backslash that ends the text
        ("x'y'\"z\"w", ["xyzw"]),
        ("\"\" ''", ["", ""]),
        ("'$x' '`cmd`' '\\'", ["$x", "`cmd`", "\\"]),
        ("a=b --x=y", ["a=b", "--x=y"]),
        ("café ünï", ["café", "ünï"]),
    ],
)
def test_quoting(text: str, words: list[str]) -> None:
    assert literal_words(text) == [words]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("$'a\\tb'", "a\tb"),
        ("$'a\\nb'", "a\nb"),
        ("$'it\\'s'", "it's"),
        ("$'\\x41\\101\\u00e9'", "AAé"),  # hex, octal, unicode (bash: <AAé>)
        ("$'\\U0001F600'", "\U0001f600"),
        ("$'\\cA'", "\x01"),
        ("$'\\e[0m'", "\x1b[0m"),
        ("$'\\q'", "\\q"),  # unknown escapes keep their backslash
        ("$'\\x'", "\\x"),
        ("x$'\\t'y", "x\ty"),
    ],
)
def test_ansi_c_quoting(text: str, word: str) -> None:
    assert literal_words(text) == [[word]]


def test_quoted_parts_are_marked() -> None:
    (cmd,) = lex("a'b'\"c\"")
    parts = cmd.words[0].parts
    assert [(p.text, p.quoted) for p in parts if isinstance(p, Lit)] == [("a", False), ("b", True), ("c", True)]
    assert cmd.words[0].is_quoted


def test_double_quotes_add_an_empty_literal_only_when_empty() -> None:
    """``""`` is an empty word; ``"$X"`` is just the expansion (an empty array then gives no word)."""
    (cmd,) = lex('"" "$X" "${A[@]}"x')
    assert [type(p).__name__ for p in cmd.words[0].parts] == ["Lit"]
    assert [type(p).__name__ for p in cmd.words[1].parts] == ["Param"]
    assert [type(p).__name__ for p in cmd.words[2].parts] == ["Param", "Lit"]


# -- expansions as parts --------------------------------------------------------------------------
def test_parameter_expansions() -> None:
    (cmd,) = lex('$A ${B} ${C:-d e} "${D:+x}" ${#E} ${#F[@]} ${G[2]} ${H%.*} $1 "$@" ${!I}')
    params = [w.parts[0] for w in cmd.words]
    assert all(isinstance(p, Param) for p in params)
    got = [(p.name, p.op, p.index, p.quoted) for p in params]  # type: ignore[union-attr]
    assert got == [
        ("A", "", "", False),
        ("B", "", "", False),
        ("C", ":-", "", False),
        ("D", ":+", "", True),
        ("E", "#len", "", False),
        ("F", "#len", "@", False),
        ("G", "", "2", False),
        ("H", "other", "", False),
        ("1", "", "", False),
        ("@", "", "", True),
        ("!I", "other", "", False),
    ]
    default = params[2].arg  # type: ignore[union-attr]
    assert "".join(p.text for p in default if isinstance(p, Lit)) == "d e"
    assert params[0].raw == "$A" and params[2].raw == "${C:-d e}"  # type: ignore[union-attr]


def test_default_word_inside_double_quotes_is_quoted_throughout() -> None:
    (cmd,) = lex('"${A:-x $B y}"')
    (param, *_rest) = cmd.words[0].parts
    assert isinstance(param, Param)
    assert param.arg and all(p.quoted for p in param.arg)


def test_command_substitution_and_arithmetic() -> None:
    (cmd,) = lex('$(nproc) `hostname` "$(a "b)" c)" $((1 + 2)) $(( (3) ))')
    kinds = [type(w.parts[0]) for w in cmd.words]
    assert kinds == [CmdSubst, CmdSubst, CmdSubst, Arith, Arith]
    assert cmd.words[0].parts[0].raw == "$(nproc)"  # type: ignore[union-attr]
    assert cmd.words[1].parts[0].raw == "`hostname`"  # type: ignore[union-attr]
    assert cmd.words[2].parts[0].raw == '$(a "b)" c)'  # type: ignore[union-attr]
    assert cmd.words[3].parts[0].expr == "1 + 2"  # type: ignore[union-attr]


def test_a_dollar_that_starts_nothing_is_literal() -> None:
    assert literal_words("a$ $ 5$ $%") == [["a$", "$", "5$", "$%"]]


def test_array_assignment_elements() -> None:
    (cmd,) = lex('A=(a "b c" \\\n  d # comment\n  e)')
    (word,) = cmd.words
    arrays = [p for p in word.parts if isinstance(p, _ArrayLit)]
    assert len(arrays) == 1
    assert [e.literal() for e in arrays[0].elems] == ["a", "b c", "d", "e"]


# -- continuations and comments -------------------------------------------------------------------
def test_backslash_newline_joins_lines() -> None:
    assert literal_words("a \\\n  b \\\n\tc") == [["a", "b", "c"]]
    assert literal_words("ab\\\ncd") == [["abcd"]]  # inside a word too


@pytest.mark.parametrize("blank", ["", "   ", "\t", "  \t  "])
def test_trailing_backslash_then_blank_line_ends_the_command(blank: str) -> None:
    """corpus: alexm-redhat run_server_vllm.sh, tlrmchlsmth run-normal-server.sh"""
    text = f"vllm serve m \\\n  --port 1 \\\n{blank}\n  # --max-model-len 8192 \\\n  --x 1\n"
    assert literal_words(text) == [["vllm", "serve", "m", "--port", "1"], ["--x", "1"]]


def test_comment_line_inside_a_continuation_ends_the_command() -> None:
    """corpus: kika run06.sh — a ``#…\\`` line is a comment; its backslash continues nothing."""
    text = "export A=1 \\\nB=2 \\\n#C=3 \\\nuv run vllm serve $M --port 8000\n"
    assert literal_words(text) == [["export", "A=1", "B=2"], ["uv", "run", "vllm", "serve", None, "--port", "8000"]]


def test_comments() -> None:
    assert literal_words("a # b c\nd#e '#f' \"#g\" \\#h") == [["a"], ["d#e", "#f", "#g", "#h"]]


def test_backslash_space_then_hash_is_one_word() -> None:
    """bash: ``printf "<%s>" a \\ # c`` prints ``<a>< #><c>`` (the escaped blank starts a word)."""
    assert literal_words("a \\ # c") == [["a", " #", "c"]]


# -- operators and redirections -------------------------------------------------------------------
def test_operators_split_commands() -> None:
    cmds = lex("a;b&&c||d|e&f\ng")
    assert [[w.literal() for w in c.words] for c in cmds] == [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]]
    assert [c.end_op for c in cmds] == [";", "&&", "||", "|", "&", "\n", ""]


def test_subshell_and_group_parentheses_are_words() -> None:
    assert literal_words("(cd x; vllm serve m)") == [["(", "cd", "x"], ["vllm", "serve", "m", ")"]]


def test_redirections_are_not_words() -> None:
    (cmd,) = lex("vllm serve m >log 2>&1 </dev/null --port 1 &>>all 3>x >|y")
    assert [w.literal() for w in cmd.words] == ["vllm", "serve", "m", "--port", "1"]
    ops = [(r.op, r.target.literal() if r.target else None) for r in cmd.redirects]
    assert ops == [(">", "log"), (">&", "1"), ("<", "/dev/null"), ("&>>", "all"), (">", "x"), (">|", "y")]


def test_unquoted_version_pin_is_a_redirection() -> None:
    """corpus: skypilot vllm-multinode — ``pip install vllm>=0.10.0`` redirects to a file ``=0.10.0``."""
    (cmd,) = lex("pip install vllm>=0.10.0 ray>=2.48.0 blobfile")
    assert [w.literal() for w in cmd.words] == ["pip", "install", "vllm", "ray", "blobfile"]
    assert [r.target.literal() for r in cmd.redirects if r.target] == ["=0.10.0", "=2.48.0"]


def test_here_string() -> None:
    (cmd,) = lex("cat <<< 'a b' x")
    assert [w.literal() for w in cmd.words] == ["cat", "x"]
    assert cmd.redirects[0].op == "<<<"


# -- here-documents -------------------------------------------------------------------------------
def heredoc(text: str, k: int = 0) -> tuple[RawCommand, object]:
    cmds = lex(text)
    cmd = next(c for c in cmds if any(r.heredoc for r in c.redirects))
    return cmd, [r.heredoc for r in cmd.redirects if r.heredoc][k]


def test_heredoc_unquoted_body_has_expansions() -> None:
    text = "cat > c.yaml << EOF\nmax-model-len: $LEN\nx: \\$y ${Z:-1}\nEOF\nvllm serve m\n"
    cmds = lex(text)
    assert [[w.literal() for w in c.words] for c in cmds] == [["cat"], ["vllm", "serve", "m"]]
    hd = cmds[0].redirects[1].heredoc
    assert hd is not None
    assert (hd.delimiter, hd.quoted, hd.strip_tabs) == ("EOF", False, False)
    assert hd.body == "max-model-len: $LEN\nx: \\$y ${Z:-1}\n"
    assert text[hd.body_start : hd.body_start + 3] == "max"
    kinds = [type(p).__name__ for p in hd.parts]
    assert kinds.count("Param") == 2
    # every literal is a verbatim slice of the body at its position (the escape drops its backslash)
    for p in hd.parts:
        if isinstance(p, Lit):
            assert hd.body[p.pos : p.pos + len(p.text)] == p.text
    assert "".join(p.text if isinstance(p, Lit) else "·" for p in hd.parts) == "max-model-len: ·\nx: $y ·\n"


@pytest.mark.parametrize("delim", ["'EOF'", '"EOF"', "\\EOF", "E'O'F"])
def test_heredoc_quoted_delimiter_keeps_the_body_literal(delim: str) -> None:
    _, hd = heredoc(f"cat <<{delim} >c.yaml\na: $X $(y)\nEOF\n")
    assert hd.quoted and hd.delimiter == "EOF"  # type: ignore[attr-defined]
    assert [(p.text, p.quoted) for p in hd.parts] == [("a: $X $(y)\n", True)]  # type: ignore[attr-defined]


def test_heredoc_dash_strips_leading_tabs_of_body_and_delimiter() -> None:
    text = "\tcat > c.yaml <<-EOF\n\t\tport: 1\n\t  x: 2\n\tEOF\nnext\n"
    cmds = lex(text)
    _, hd = heredoc(text)
    assert hd.strip_tabs  # type: ignore[attr-defined]
    assert hd.body == "port: 1\n  x: 2\n"  # type: ignore[attr-defined]
    # body offsets map back to the source past the removed tabs
    assert text[hd.source_offset(0) : hd.source_offset(0) + 4] == "port"  # type: ignore[attr-defined]
    assert text[hd.source_offset(8) : hd.source_offset(8) + 4] == "  x:"  # type: ignore[attr-defined]
    assert [[w.literal() for w in c.words] for c in cmds][-1] == ["next"]


def test_two_heredocs_on_one_line_are_read_in_order() -> None:
    (cmd, nxt) = lex("cat <<A <<'B'\n1\nA\n2\nB\ndone\n")
    bodies = [r.heredoc.body for r in cmd.redirects if r.heredoc]
    assert bodies == ["1\n", "2\n"]
    assert nxt.words[0].literal() == "done"


def test_heredoc_body_is_not_split_into_commands() -> None:
    cmds = lex("cat <<EOF\nvllm serve inside --x 1\nEOF\n")
    assert [[w.literal() for w in c.words] for c in cmds] == [["cat"]]


def test_heredoc_with_crlf_line_endings() -> None:
    _, hd = heredoc("cat <<EOF >c.yaml\r\na: 1\r\nEOF\r\nx\r\n")
    assert hd.body == "a: 1\r\n"  # type: ignore[attr-defined]


# -- CRLF, tabs, PowerShell -----------------------------------------------------------------------
def test_crlf_line_endings_and_continuations() -> None:
    assert literal_words("a \\\r\n  b\r\nc\r\n") == [["a", "b"], ["c"]]


def test_tabs_separate_words() -> None:
    assert literal_words("a\tb\t\\\n\t\tc") == [["a", "b", "c"]]


def test_powershell_backtick_continuation_and_variables() -> None:
    text = 'docker run `\n  -v ${PWD}:/m `\n  -e "A=$env:HF" img --x "a`"b"\n'
    (cmd,) = lex(text, powershell=True)
    words = cmd.words
    assert [w.literal() for w in words[:2]] == ["docker", "run"]
    assert words[-1].literal() == 'a"b'  # `" escapes a quote inside "…"
    params = [p for w in words for p in w.parts if isinstance(p, Param)]
    assert [p.name for p in params] == ["PWD", "ps:env:HF"]


def test_powershell_backslash_is_literal() -> None:
    (cmd,) = lex("C:\\models\\x --y", powershell=True)
    assert [w.literal() for w in cmd.words] == ["C:\\models\\x", "--y"]


# -- offsets --------------------------------------------------------------------------------------
def test_word_offsets() -> None:
    text = "A=1 vllm  serve 'm x' \\\n  --p=\"q r\"  # c\n"
    assert word_sources(text) == [["A=1", "vllm", "serve", "'m x'", '--p="q r"']]
    (cmd,) = lex(text)
    assert (cmd.words[0].start, cmd.words[-1].end) == (0, text.index("  # c"))


# -- errors ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message", "offset"),
    [
        ("a 'b", "unterminated single quote", 2),
        ('a "b', "unterminated double quote", 2),
        ("a $'b", "unterminated $'...' quote", 2),
        ("a `b", "unterminated backquote", 2),
        ("a $(b", "unterminated $(...)", 2),
        ("a $((1+2)", "unterminated $((...))", 2),
        ("a ${b", "unterminated ${...}", 2),
        ("cat <<EOF\nbody\n", "here-document delimited by 'EOF' is never closed", 4),
        ("A=(a b", "unterminated array assignment", 6),
    ],
)
def test_syntax_errors_carry_the_offset_where_the_construct_started(text: str, message: str, offset: int) -> None:
    with pytest.raises(ShellSyntaxError) as e:
        lex(text)
    assert str(e.value) == message
    assert e.value.offset == offset


def test_syntax_error_keeps_the_commands_before_it() -> None:
    text = 'vllm serve m --a 1\necho ok\necho "unterminated\nmore\n'
    with pytest.raises(ShellSyntaxError) as e:
        lex(text)
    assert [[w.literal() for w in c.words] for c in e.value.partial] == [
        ["vllm", "serve", "m", "--a", "1"],
        ["echo", "ok"],
    ]
    assert text[e.value.offset :].startswith('"unterminated')
