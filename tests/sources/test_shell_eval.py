"""Static evaluation of shell scripts: variables, expansions, word splitting, here-documents.

Expected words come from real bash (``bash -c '…; printf "<%s>" …'``), hard-coded here. Where bash
would read a value vlint cannot know (the environment, ``$(…)``, a branch), vlint keeps the word
*unresolved* with its source spelling — never a guess.
"""

from __future__ import annotations

import pytest

from vlint.core.span import PositionMap
from vlint.sources.scripts.shell_eval import HeredocFile, ShellEvaluator, Word, _eval_int
from vlint.sources.scripts.shell_lexer import ShellSyntaxError


def evaluate(text: str) -> tuple[ShellEvaluator, list[list[Word]]]:
    ev = ShellEvaluator(text, PositionMap.for_text("t.sh", text))
    return ev, [c.words for c in ev.commands() if c.words]


def argv(text: str) -> list[str]:
    """The words of the last ``cmd …`` command (``cmd`` stands for any program)."""
    _, cmds = evaluate(text)
    last = [c for c in cmds if c[0].text == "cmd"][-1]
    return [w.text for w in last[1:]]


def last_words(text: str) -> list[Word]:
    _, cmds = evaluate(text)
    return [c for c in cmds if c[0].text == "cmd"][-1][1:]


# -- plain expansion and word splitting -----------------------------------------------------------
@pytest.mark.parametrize(
    ("script", "words"),
    [
        ('X="1 2"; cmd $X "$X" ${X}z', ["1", "2", "1 2", "1", "2z"]),
        ('X="a  b"; cmd x${X}y', ["xa", "by"]),
        ('X=" a b "; cmd x${X}y', ["x", "a", "b", "y"]),
        ('X=" "; cmd x${X}y', ["x", "y"]),  # a blank-only value still separates
        ('X=" "; cmd ${X} z', ["z"]),
        ("X=; cmd a${X}b $X c", ["ab", "c"]),  # an empty unquoted expansion joins its neighbours
        ("A=(); cmd x${A[1]}y ${#A[@]}${A[0]}z", ["xy", "0z"]),
        ("X=$'a\\tb\\nc'; cmd $X", ["a", "b", "c"]),  # IFS: space, tab, newline
        ('X="--a 1 --b"; cmd $X', ["--a", "1", "--b"]),
        ('X=\'a"b\'; cmd "$X" $X', ['a"b', 'a"b']),
        ('X="*"; cmd "$X" $X', ["*", "*"]),  # no globbing (no file system)
        ("X='$(ls)'; cmd $X", ["$(ls)"]),  # values are not re-evaluated
        ("X=\\$Y; cmd $X", ["$Y"]),
        ('X=a; cmd "${X}"b"${X}"', ["aba"]),
        ('X=; cmd "$X" $X z', ["", "z"]),
        ("X=1 Y=$X; cmd $Y", ["1"]),
        ("X=1; X=2 cmd $X", ["1"]),  # a prefix assignment is not seen by the command's own words
        ("X=1; X+=2; cmd $X", ["12"]),
        ("readonly X=1; cmd $X", ["1"]),
        ("declare -x X=1; cmd $X", ["1"]),
    ],
)
def test_expansion_like_bash(script: str, words: list[str]) -> None:
    assert argv(script) == words


# -- ${…} operators -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("script", "words"),
    [
        ("X=; cmd ${X:-def} ${X-def}", ["def"]),
        ('cmd ${X:-d e} "${X:-d e}"', ["d", "e", "d e"]),  # the default is used when X is not assigned
        ('cmd ${X:-"q r"}', ["q r"]),  # quotes inside the default keep it one word
        ("cmd ${X:-$'a b'}", ["a b"]),
        ('cmd ${X:-"a"b c}', ["ab", "c"]),
        ('cmd "${X:-"a b"}"', ["a b"]),
        ('cmd "${X:-}" z', ["", "z"]),
        ("cmd ${X:-} z", ["z"]),
        ('Y=q; cmd "${X:-$Y r}" ${X:-$Y r}', ["q r", "q", "r"]),
        ('Y="1  2"; cmd ${X:-$Y} ${X:-"$Y"}', ["1", "2", "1  2"]),
        ("X=v; cmd ${X:-d} ${X:=d} ${X-d}", ["v", "v", "v"]),
        ('X=a; cmd ${X:+"a b"} ${X:+a b}', ["a b", "a", "b"]),
        ("X=; cmd ${X:+alt} ${X+alt} z", ["alt", "z"]),
        ("X=a; cmd ${X:?err}", ["a"]),
        ("X=abc; cmd ${#X}", ["3"]),
        ('X=1; unset X; cmd "${X:-d}" "${X+set}" "${X:+alt}" ${X}', ["d", "", ""]),
        ("cmd ${X:-${Y:-deep}}", ["deep"]),
        ("unset X; cmd ${X:=zz} $X", ["zz", "zz"]),  # := also assigns
        ('X=; cmd ${X:=a b} "$X"', ["a", "b", "a b"]),
        (": ${MODEL:=Qwen/Qwen3-8B}; cmd $MODEL", ["Qwen/Qwen3-8B"]),
        ("cmd ${X:-$((2*3))}", ["6"]),
    ],
)
def test_parameter_operators(script: str, words: list[str]) -> None:
    assert argv(script) == words


@pytest.mark.parametrize(
    ("script", "spelling"),
    [
        ("cmd $X", "$X"),  # from the environment: unknown
        ('cmd "$X"', '"$X"'),
        ("cmd ${X:+alt}", "${X:+alt}"),  # whether X is set is unknown
        ("cmd ${X:?set X}", "${X:?set X}"),
        ("cmd ${X%.*}", "${X%.*}"),  # pattern operators are not evaluated
        ("cmd --model=$M", "--model=$M"),
        ("cmd $1", "$1"),
        ("cmd $(nproc)", "$(nproc)"),
        ("cmd `nproc`", "`nproc`"),
        ('cmd "$(echo hi) x"', '"$(echo hi) x"'),
        ("cmd $((N * 2))", "$((N * 2))"),
        ("cmd ${!X}", "${!X}"),
        ("cmd $PWD/models", "$PWD/models"),
    ],
)
def test_unknown_values_stay_unresolved_with_their_spelling(script: str, spelling: str) -> None:
    (w,) = last_words(script)
    assert w.unresolved
    assert w.text == spelling


def test_opaque_marks_words_that_may_be_any_number_of_words() -> None:
    words = last_words('cmd $X "$X" "$@" $@ "${A[@]}" --a=$Y')
    assert [(w.text, w.unresolved, w.opaque) for w in words] == [
        ("$X", True, True),  # unquoted: split into any number of words
        ('"$X"', True, False),  # quoted: exactly one word
        ('"$@"', True, True),
        ("$@", True, True),
        ('"${A[@]}"', True, True),
        ("--a=$Y", True, True),
    ]


def test_expanded_keeps_unknown_parts_but_removes_quotes() -> None:
    (w,) = last_words('cmd "HF_TOKEN=$T"')
    assert w.text == '"HF_TOKEN=$T"' and w.expanded == "HF_TOKEN=$T"
    (k,) = last_words("X=1; cmd a$X")
    assert k.expanded == k.text == "a1"


# -- arrays -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("script", "words"),
    [
        ('A=(a "b c" d); cmd "${A[@]}"', ["a", "b c", "d"]),
        ('A=(a "b c" d); cmd ${A[@]}', ["a", "b", "c", "d"]),
        ('A=(a "b c" d); cmd "${A[*]}"', ["a b c d"]),
        ("A=(a b); cmd ${A[1]} $A ${A}", ["b", "a", "a"]),
        ('A=(a b); cmd "${A[0]}" "${A[5]}"x', ["a", "x"]),  # a missing element of a known array is empty
        ('A=(a b); A+=(c); cmd "${A[@]}" ${#A[@]} "${#A[@]}"', ["a", "b", "c", "3", "3"]),
        ('A=(); cmd "${A[@]}" x', ["x"]),  # an empty array gives no word, even quoted
        ('A=(); cmd "${A[@]}"""', [""]),
        ('A=(); cmd "x${A[@]}"', ["x"]),
        ('A=(a b); cmd "x${A[@]}y"', ["xa", "by"]),
        ('A=(--tp 2 --x "a b"); cmd serve m "${A[@]}" --y', ["serve", "m", "--tp", "2", "--x", "a b", "--y"]),
        ("A=(\n  --a 1  # comment\n  --b\n); cmd ${A[@]}", ["--a", "1", "--b"]),
        ("X=ab; cmd ${#X[@]}", ["1"]),
    ],
)
def test_arrays(script: str, words: list[str]) -> None:
    assert argv(script) == words


def test_array_with_an_unknown_element_keeps_the_known_ones() -> None:
    """Issue 29: one element vlint cannot read does not make the whole array unreadable."""
    tp, value = last_words('A=(--tp "$TP"); cmd "${A[@]}"')
    assert (tp.text, tp.unresolved) == ("--tp", False)
    assert value.unresolved and not value.opaque  # "$TP": exactly one word, its text unknown
    words = last_words('A=(--model m $EXTRA --max-model-len 4096); cmd "${A[@]}"')
    assert [w.text for w in words if not w.unresolved] == ["--model", "m", "--max-model-len", "4096"]
    (extra,) = [w for w in words if w.unresolved]
    assert extra.opaque  # unquoted: any number of words


def test_array_appended_with_an_unknown_element_keeps_the_known_ones() -> None:
    """Issue 29: ``cmd+=(… $EXTRA)`` keeps what the array held and marks the unknown element."""
    a, x = last_words('A=(a); A+=("$X"); cmd "${A[@]}"')
    assert (a.text, a.unresolved) == ("a", False)
    assert x.unresolved and not x.opaque  # "$X": one word
    words = last_words('A=(vllm serve); A+=(m); A+=(--max-num-seqs 64 $EXTRA); cmd "${A[@]}"')
    assert [(w.text, w.unresolved) for w in words] == [
        ("vllm", False),
        ("serve", False),
        ("m", False),
        ("--max-num-seqs", False),
        ("64", False),
        ("$EXTRA", True),
    ]
    assert words[-1].opaque


def test_array_appended_inside_an_if_marks_what_may_be_added() -> None:
    words = last_words('A=(serve m); if [ -n "$TP" ]; then A+=(--tp 2); fi; cmd "${A[@]}"')
    assert [(w.text, w.unresolved) for w in words] == [("serve", False), ("m", False), ("--tp", True), ("2", True)]
    assert all(w.opaque for w in words[2:])  # may be absent: any number of words, none included


def test_array_indexed_or_unknown_before_stays_unknown() -> None:
    (w,) = last_words('A=(a "$X"); cmd "${A[1]}"')
    assert w.unresolved
    (w,) = last_words('A=$(f); A+=(b); cmd "${A[@]}"')  # nothing known of A before: still unknown
    assert w.unresolved and w.opaque


def test_string_known_in_part_splits_into_its_words_unquoted() -> None:
    """``$CMD`` of ``CMD="vllm serve m $EXTRA"``: the known words, the unknown one marked opaque."""
    words = last_words('CMD="serve m --port 8000 $EXTRA"; cmd $CMD')
    assert [(w.text, w.unresolved) for w in words] == [
        ("serve", False),
        ("m", False),
        ("--port", False),
        ("8000", False),
        ("$EXTRA", True),
    ]
    assert words[-1].opaque
    (w,) = last_words('CMD="serve m $EXTRA"; cmd "$CMD"')  # quoted: one word, unknown as a whole
    assert w.unresolved


def test_string_extended_inside_an_if_keeps_what_both_paths_begin_with() -> None:
    script = 'C="serve m --port 8000"; if [ -n "$TP" ]; then C="$C --tp $TP"; fi; C="$C --max-model-len 8192"; cmd $C'
    words = last_words(script)
    assert [(w.text, w.unresolved) for w in words] == [
        ("serve", False),
        ("m", False),
        ("--port", False),
        ("8000", False),
        ("--tp $TP", True),
        ("--max-model-len", False),
        ("8192", False),
    ]
    assert words[4].opaque


@pytest.mark.parametrize(
    "script",
    [
        'if [ -n "$A" ]; then C="serve m"; fi; cmd $C',  # unset before: nothing known
        'C="serve m"; if [ -n "$A" ]; then C="other x"; fi; cmd $C',  # no common beginning
    ],
)
def test_string_either_with_nothing_in_common_stays_unknown(script: str) -> None:
    (w,) = last_words(script)
    assert w.unresolved and w.opaque


# -- arithmetic ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("script", "words"),
    [
        ("cmd $((1+2)) $((2*3)) $(( (7 - 1) / 4 )) $((7 % 4)) $((-3))", ["3", "6", "1", "3", "-3"]),
        ("X=5; cmd $((X+1)) $(( $X * 2 )) $((${X} - 1))", ["6", "10", "4"]),
        ('X=5; cmd "$((X * 1024))"', ["5120"]),
    ],
)
def test_arithmetic(script: str, words: list[str]) -> None:
    assert argv(script) == words


@pytest.mark.parametrize(
    ("expr", "value"),
    [("1+2*3", 7), ("(1+2)*3", 9), ("-(2)", -2), ("7/2", 3), ("-7/2", -3), ("1/0", None), ("2**3", None), ("a", None)],
)
def test_eval_int(expr: str, value: int | None) -> None:
    assert _eval_int(expr) == value


# -- control flow: assignments that may not run are unknown, never guessed ------------------------------
@pytest.mark.parametrize(
    "script",
    [
        'if [ -n "$A" ]; then X=1; fi; cmd $X',
        "X=0; if true; then X=1; else X=2; fi; cmd $X",
        "true && X=1; cmd $X",
        "false || X=1; cmd $X",
        "for i in 1 2; do X=$i; done; cmd $X",
        "while read l; do X=1; done; cmd $X",
        "case $1 in a) X=1 ;; esac; cmd $X",
        "f() { X=1; }; cmd $X",
        "f() { local X=1; }; cmd $X",
        "read X; cmd $X",
        "X=$(nproc); cmd $X",
        "echo a | X=1; cmd $X",
        "if a; then : ${X:=1}; fi; cmd $X",
    ],
)
def test_conditional_assignments_are_unresolved(script: str) -> None:
    (w,) = last_words(script)
    assert w.unresolved and w.text == "$X"


def test_same_value_on_every_path_is_known() -> None:
    assert argv("X=1; if true; then X=1; fi; cmd $X") == ["1"]


@pytest.mark.parametrize(
    "script",
    [
        "(cd /tmp); X=1; cmd $X",
        "(cd /tmp; echo a); X=1; cmd $X",
        "{ echo a; }; X=1; cmd $X",
        "if true; then (cd x); fi; X=1; cmd $X",
        "case a in a) echo;; b) Y=2;; esac; X=1; cmd $X",
        "f() { echo; }; X=1; cmd $X",
        "function g { echo; }; X=1; cmd $X",
        "while false; do :; done; X=1; cmd $X",
    ],
)
def test_assignments_after_a_compound_command_are_known(script: str) -> None:
    assert argv(script) == ["1"]


def test_commands_inside_compound_commands_are_conditional() -> None:
    ev = ShellEvaluator(
        "(cd x; vllm serve m)\nif a; then\n  vllm serve n\nfi\nvllm serve o\n", PositionMap.at("t", 1, 1)
    )
    got = [([w.text for w in c.words], c.conditional) for c in ev.commands() if c.words]
    assert (["vllm", "serve", "m"], True) in got
    assert (["vllm", "serve", "n"], True) in got
    assert got[-1] == (["vllm", "serve", "o"], False)


# -- environment ---------------------------------------------------------------------------------------
def test_export_set_a_and_prefix_environment() -> None:
    text = "A=1\nexport B=2\nC=3\nexport C\nset -a\nD=4\nset +a\nE=5 F=6 cmd x\n"
    ev = ShellEvaluator(text, PositionMap.for_text("t.sh", text))
    cmds = [c for c in ev.commands() if c.words]
    exported = {k for k, v in ev.vars.items() if v.exported}
    assert exported == {"B", "C", "D"}
    assert {k: w.text for k, w in cmds[-1].prefix_env.items()} == {"E": "5", "F": "6"}
    assert "E" not in ev.vars  # prefix assignments do not set shell variables


@pytest.mark.parametrize(
    ("script", "exported"),
    [
        ("set -a; A=1; set +a; B=2", {"A"}),
        ("set -o allexport; A=1; set +o allexport; B=2", {"A"}),
        ("set -eua; A=1", {"A"}),
        ("set -e; A=1", set()),
        ("A=1; export A; B=2; declare -x C=3; typeset -x D", {"A", "C"}),
    ],
)
def test_which_variables_are_exported(script: str, exported: set[str]) -> None:
    ev = ShellEvaluator(script, PositionMap.at("t", 1, 1))
    list(ev.commands())
    assert {k for k, v in ev.vars.items() if v.exported} == exported


def test_initial_environment_is_used() -> None:
    from vlint.sources.scripts.shell_eval import Var

    ev = ShellEvaluator("cmd $M ${N:-d}", PositionMap.at("t", 1, 1), env={"M": Var("model", exported=True)})
    (cmd,) = [c for c in ev.commands() if c.words]
    assert [w.text for w in cmd.words] == ["cmd", "model", "d"]


def test_assignments_are_recorded_with_spans_over_name_and_value() -> None:
    text = 'HF_TOKEN=hf_abc\nexport KEY="a b"\nX=$Y\n'
    ev = ShellEvaluator(text, PositionMap.for_text("t.sh", text))
    list(ev.commands())
    got = [
        (a.name, a.value.text, a.value.unresolved, a.exported, text[a.name_start : a.value.end]) for a in ev.assignments
    ]
    assert got == [
        ("HF_TOKEN", "hf_abc", False, False, "HF_TOKEN=hf_abc"),
        ("KEY", "a b", False, True, 'KEY="a b"'),
        ("X", "$Y", True, False, "X=$Y"),
    ]


# -- here-documents written to files ----------------------------------------------------------------------
def heredoc_files(text: str) -> dict[str, HeredocFile]:
    ev = ShellEvaluator(text, PositionMap.for_text("run.sh", text))
    list(ev.commands())
    return ev.heredoc_files


def test_heredoc_config_expands_variables_and_maps_positions() -> None:
    text = "LEN=10240\ncat > config.yaml << EOF\nmax-model-len: $LEN\nmodel: ${M:-xyz}\nx: $(nproc)\nEOF\n"
    files = heredoc_files(text)
    hf = files["config.yaml"]
    assert hf.text == "max-model-len: 10240\nmodel: xyz\nx: $(nproc)\n"
    # the unresolved $(nproc) keeps its spelling and is listed as unresolved
    (u,) = hf.unresolved
    assert hf.text[u[0] : u[1]] == "$(nproc)"
    # positions: the value 10240 starts where $LEN is (line 3, column 16) and ends with it
    start = hf.text.index("10240")
    assert hf.posmap.span(start, start + 5) == _span(3, 16, 3, 20)
    m = hf.text.index("xyz")
    assert hf.posmap.span(m, m + 3) == _span(4, 8, 4, 17)
    k = hf.text.index("\nmodel") + 1
    assert hf.posmap.span(k, k + 5) == _span(4, 1, 4, 6)


def _span(line: int, col: int, end_line: int, end_col: int) -> object:
    from vlint.core.span import Span

    return Span("run.sh", line, col, end_line, end_col)


def test_heredoc_quoted_delimiter_is_not_expanded() -> None:
    files = heredoc_files("cat <<'EOF' > c.yaml\nmax-model-len: $LEN\nEOF\n")
    assert files["c.yaml"].text == "max-model-len: $LEN\n"
    assert files["c.yaml"].unresolved == []


def test_heredoc_dash_strips_tabs_and_keeps_columns() -> None:
    text = "if true; then\n\tcat > c.yaml <<-EOF\n\t\tport: 8000\n\tEOF\nfi\n"
    hf = heredoc_files(text)["c.yaml"]
    assert hf.text == "port: 8000\n"
    assert hf.posmap.span(0, 4) == _span(3, 3, 3, 7)


@pytest.mark.parametrize(
    "script",
    [
        "cat <<EOF > c.yaml\na: 1\nEOF\n",
        "cat >c.yaml <<EOF\na: 1\nEOF\n",
        "tee c.yaml <<EOF\na: 1\nEOF\n",
        "tee -a c.yaml >/dev/null <<EOF\na: 1\nEOF\n",
        "cat <<EOF | tee c.yaml\na: 1\nEOF\n",
        "cat <<EOF | sudo tee c.yaml\na: 1\nEOF\n",
        "F=c.yaml; cat > $F <<EOF\na: 1\nEOF\n",
    ],
)
def test_heredoc_targets(script: str) -> None:
    assert heredoc_files(script)["c.yaml"].text == "a: 1\n"


@pytest.mark.parametrize(
    "script",
    [
        "cat <<EOF\na: 1\nEOF\n",  # to stdout
        "python - <<EOF > c.yaml\nprint(1)\nEOF\n",  # a program's output, not the body
        "cat > $UNKNOWN <<EOF\na: 1\nEOF\n",
        "cat <<EOF | grep x > c.yaml\na: 1\nEOF\n",
    ],
)
def test_heredoc_not_written_to_a_known_file(script: str) -> None:
    assert "c.yaml" not in heredoc_files(script)
    assert not [k for k in heredoc_files(script) if not k.startswith("$")]


# -- syntax errors ----------------------------------------------------------------------------------------
def test_commands_before_a_syntax_error_are_yielded_then_the_error_is_raised() -> None:
    text = 'X=1\ncmd $X\necho "oops\n'
    ev = ShellEvaluator(text, PositionMap.for_text("t.sh", text))
    seen: list[list[str]] = []
    with pytest.raises(ShellSyntaxError) as e:
        for c in ev.commands():
            seen.append([w.text for w in c.words])
    assert ["cmd", "1"] in seen
    assert text[e.value.offset] == '"'
