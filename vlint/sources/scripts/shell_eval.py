"""Static evaluation of a shell script: variables, expansions, and the commands it would run.

Nothing is executed. The evaluator walks the script's simple commands in order, records the
variables the script assigns itself (``MODEL=…``, ``export X=…``, arrays), and expands each
command's words with them. A value that depends on something the file does not say — a variable
assigned inside an ``if`` branch, a ``$(command)``, a script argument ``$1`` — is *unresolved*:
the word keeps its source spelling and is flagged, never guessed. So is a value past the file's
expansion budget (:mod:`vlint.sources.expansion_budget`), which every substitution draws on.

A file named by ``source``/``.`` is read once, and evaluated once per set of variables it starts
from: sourcing it again from the same variables replays what it did.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.span import PositionMap, Span
from vlint.core.typing_names import Any
from vlint.sources.expansion_budget import ExpansionBudget, current
from vlint.sources.scripts.shell_lexer import (
    Arith,
    CmdSubst,
    HereDoc,
    Lit,
    Param,
    Part,
    RawCommand,
    RawWord,
    ShellSyntaxError,
    _ArrayLit,
    _is_assignment_name,
    lex,
)
from vlint.sources.scripts.workdir import Created, created_by, script_folder_path


@record(slots=True)
class Word:
    """An expanded argv word, with the offsets (in the lexed text) of the source it came from."""

    text: str
    start: int
    end: int
    unresolved: bool = False
    #: unquoted and unresolved: may stand for any number of words
    opaque: bool = False
    quoted: bool = False
    #: for an unresolved word (whose ``text`` is its source spelling): the expansion with quotes
    #: removed and the unknown parts kept as written (``"HF_TOKEN=$T"`` → ``HF_TOKEN=$T``)
    partial: str = ""
    #: for an unresolved word: the words it splits into at blanks (as ``$CMD`` unquoted, or ``eval``,
    #: would split it), each (text, known): an unknown part is never split and its word is unknown
    words: tuple[tuple[str, bool], ...] | None = None
    #: a word that is one variable's value (``$GMU``, ``"${GMU}"``): the offsets of that value where
    #: the script assigns it (for findings about the value: the line to edit)
    origin: tuple[int, int] | None = None
    #: a word among several one variable expands to (``"${ARGS[@]}"``, an unquoted ``$CMD``): the offsets
    #: of that variable's assignments (a launch written through it is written there too)
    written_in: tuple[int, int] | None = None
    #: ``origin`` / ``written_in`` for a variable the text was given (written in another text: a
    #: Dockerfile's ``ENV``)
    defined_span: Span | None = None
    written_span: Span | None = None

    @property
    def expanded(self) -> str:
        """The word with quotes removed; unknown parts as written (see ``partial``)."""
        return self.partial if self.unresolved and self.partial else self.text


@record(slots=True)
class Var:
    value: str | list[str] | None  # None: assigned, but to something vlint cannot know
    exported: bool = False
    start: int = -1
    end: int = -1
    #: an array with some elements vlint cannot know (``(--model m "$EXTRA")``; value is None): every
    #: element as (text, known, opaque), so that ``"${A[@]}"`` keeps the known ones and marks the others
    partial: tuple[tuple[str, bool, bool], ...] | None = None
    #: a string with some parts vlint cannot know (``"vllm serve $MODEL $EXTRA"``, or one an ``if``
    #: may have extended; value is None): its words at blanks as (text, known) — an unknown word may
    #: stand for any number of words
    words: tuple[tuple[str, bool], ...] | None = None
    #: where the assigned value starts (``end`` is where it ends); -1 when not assigned in the text
    value_start: int = -1
    #: the evaluator whose text those offsets are in (a ``bash -c`` string sees the outer variables)
    owner: int = 0
    #: where the value is written when it comes from outside the text (a Dockerfile's ``ENV`` line)
    span: Span | None = None


@record(slots=True)
class Assignment:
    """``NAME=value`` as written in the script (for secret scanning and env reporting)."""

    name: str
    value: Word
    name_start: int
    exported: bool


@record(slots=True)
class Command:
    """A simple command after expansion."""

    words: list[Word]
    #: ``NAME=value`` words in front of the command (its private environment)
    prefix_env: dict[str, Word]
    raw: RawCommand
    conditional: bool
    heredocs: list[HereDoc] = field(default_factory=list)
    #: positional parameters whose ``${1:-default}`` word the script used so far (at its top level:
    #: what runs when it is started without arguments), as ``$1``
    positional_defaults: tuple[str, ...] = ()


@record(slots=True)
class HeredocFile:
    """A file the script writes from a here-document (``cat > cfg.yaml << EOF``); ``heredoc_files``
    keys are normalized paths from the script's folder (``./cfg.yaml`` → ``cfg.yaml``)."""

    text: str
    posmap: PositionMap
    #: (start, end) offsets in ``text`` whose content vlint could not resolve
    unresolved: list[tuple[int, int]]


#: bash's default IFS: fields are split at spaces, tabs and newlines (nothing else)
_IFS_CHARS = " \t\n"
_IFS = lazy_compile(r"[ \t\n]+")

#: a variable or expanded word longer than this is not tracked (its value becomes unknown): doubling
#: ``A="$A$A"`` forty times would otherwise ask for a terabyte; launch settings are short
MAX_VALUE_CHARS = 100_000
#: arrays with more elements are not tracked either
MAX_ARRAY_ITEMS = 10_000
#: words one script may expand to in all: ``"${A[@]}"`` used again and again multiplies them
MAX_EXPANDED_WORDS = 500_000


def _too_large(value: str | list[str] | None) -> bool:
    if isinstance(value, list):
        return len(value) > MAX_ARRAY_ITEMS or sum(len(v) for v in value) > MAX_VALUE_CHARS
    return value is not None and len(value) > MAX_VALUE_CHARS


_OPENERS = {"if", "while", "until", "case", "for", "select", "{", "("}
_CLOSERS = {"fi", "done", "esac", "}", ")"}
_LEADING_KEYWORDS = {"then", "else", "elif", "do", "!", "time"}
_DECLARERS = {"export", "declare", "typeset", "local", "readonly"}
#: ``source a.sh`` inside ``a.sh``…: files sourced deeper than this are not read
MAX_SOURCE_DEPTH = 3

#: a variable's value as a dictionary key
_Value = str | tuple[str, ...] | None
#: what sourcing a file starts from: (its path, the sourcing depth, the variables: name, value, export)
_SourceKey = tuple[str, int, frozenset[tuple[str, _Value, bool]]]


@record(slots=True)
class _Sourced:
    """What sourcing a file did to the variables of the script that sourced it."""

    #: variables it set: name → (value, exported)
    changed: dict[str, tuple[str | list[str] | None, bool]]
    #: variables set before that it exported (``export NAME`` changes them in place)
    exported: tuple[str, ...]
    unset: tuple[str, ...]


@record(slots=True)
class SourcedFiles:
    """The files one script sources (and that they source): each read once, and evaluated once per
    starting point — 20 files that source each other were evaluated 20³ times for each of them."""

    texts: dict[str, str | None] = field(default_factory=dict)
    done: dict[_SourceKey, _Sourced] = field(default_factory=dict)


def _scope_key(variables: dict[str, Var]) -> frozenset[tuple[str, _Value, bool]]:
    """The variables as a key: all a sourced file's evaluation depends on besides its text (it starts
    with no open compound command, in the script's folder, without ``set -a``)."""
    return frozenset(
        (name, tuple(v.value) if isinstance(v.value, list) else v.value, v.exported) for name, v in variables.items()
    )


def _size(value: str | list[str]) -> int:
    return len(value) if isinstance(value, str) else sum(len(v) for v in value)


class ShellEvaluator:
    """Evaluates one script's text (or an embedded ``bash -c`` string)."""

    def __init__(
        self,
        text: str,
        posmap: PositionMap,
        *,
        env: dict[str, Var] | None = None,
        powershell: bool = False,
        read_sourced: Callable[[str], str | None] | None = None,
        depth: int = 0,
        budget: ExpansionBudget | None = None,
        sourced: SourcedFiles | None = None,
        script_file: bool = False,
    ) -> None:
        self.text = text
        #: ``text`` is a script file of its own: ``$1`` at its top level is its command-line argument
        self._script_file = script_file
        self.posmap = posmap
        self.powershell = powershell
        #: the text of a file ``source FILE`` / ``. FILE`` names (a path relative to the script's folder),
        #: None when it cannot be read (outside the lint root, missing): its assignments then stay unknown
        self._read_sourced = read_sourced
        #: the text of a program file a command runs (``./wrap.sh``, ``/entrypoint.sh`` in a container), read
        #: through the runner's reader; None when it cannot be read (set by the source that evaluates)
        self.read_program: Callable[[str], str | None] | None = None
        self._depth = depth
        #: the file's expansion budget, shared with the files it sources and the scripts it runs
        self.budget = budget or current()
        self._sourced = sourced or SourcedFiles()
        self.vars: dict[str, Var] = dict(env or {})
        self.unset: set[str] = set()
        self.assignments: list[Assignment] = []
        self.heredoc_files: dict[str, HeredocFile] = {}
        #: Kubernetes manifests the script applies from here-documents (:meth:`_record_applied`)
        self.applied: list[HeredocFile] = []
        #: ids of the variables handed in by an outer script (their offsets are in the outer text)
        self.inherited: frozenset[int] = frozenset()
        #: open compound commands (``if``, ``{``, ``(``…): commands inside them are conditional
        self._open: list[str] = []
        self._auto_export = False
        #: the command being expanded may not run (``${X:=d}`` then assigns an unknown value)
        self._conditional = False
        #: the working folder relative to the script's own ("" = the script's folder; an absolute
        #: path after ``cd /abs``): where relative ``--config`` paths and here-document files are
        self.cwd = ""
        #: ``cwd`` when the script itself establishes it (a ``cd`` from its own path, ``cd "$(dirname "$0")"``,
        #: or to an absolute folder, and the relative ``cd``s after that); None while the folder is the one
        #: the script is started from, which the file does not say (:mod:`vlint.sources.scripts.workdir`)
        self.workdir: str | None = None
        #: the ``cd`` that established ``workdir``
        self.workdir_span: Span | None = None
        #: what the script wrote so far (files and folders), in order
        self.created: list[Created] = []
        self._words_left = MAX_EXPANDED_WORDS
        #: a function header was read: the next opener starts its body
        self._function_next = False
        #: the depths of ``_open`` at which function bodies start (``$1`` there is the function's)
        self._function_levels: list[int] = []
        #: ``$1``… whose default word was used at the top level (:attr:`Command.positional_defaults`)
        self._positional_defaults: list[str] = []
        #: ``shift``, ``getopts`` or ``set -- …`` ran: ``$1`` is something else from then on
        self._positional_moved = False

    # -- expansion ----------------------------------------------------------------------------
    def _lookup(self, p: Param) -> tuple[str, str | list[str] | None]:
        """("value", text|list) when known, ("unknown", None) otherwise."""
        kind, val = self._choose(p)
        if kind == "word":
            return "value", self._expand_parts_text(val)  # type: ignore[arg-type]
        return kind, val

    def _choose(self, p: Param) -> tuple[str, Any]:
        """Like :meth:`_lookup`, but ("word", parts) when a ``${X:-word}`` / ``${X:+word}`` word is
        used: its parts keep their own quoting (``${X:-"a b"}`` is one field, ``${X:-a b}`` two).
        A value is substituted while the file's expansion budget lasts; past it, it is unknown."""
        kind, val = self._select(p)
        if kind == "value" and val is not None and not self.budget.spend(_size(val)):
            return "unknown", None
        return kind, val

    def _select(self, p: Param) -> tuple[str, Any]:
        name = p.name
        if name.isdigit() and name != "0" and p.op in (":-", "-") and self._top_level:
            # ${1:-word} outside any function of the script itself: the script run without arguments
            # gets the word (the launch's label says it was taken); inside a function $1 is its caller's
            if f"${name}" not in self._positional_defaults:
                self._positional_defaults.append(f"${name}")
            return "word", p.arg
        if name.startswith("ps:") or name in ("@", "*", "#", "?", "$", "!", "-") or name.isdigit():
            return "unknown", None
        if p.op == "other":
            return "unknown", None
        var = self.vars.get(name)
        known_unset = var is None and name in self.unset
        value: str | list[str] | None
        if var is not None:
            value = var.value
            if value is not None and p.index and isinstance(value, list):
                if p.index not in ("@", "*"):
                    try:
                        value = value[int(p.index)]
                    except ValueError:
                        return "unknown", None
                    except IndexError:  # the whole array is known: no such element
                        value = ""
            elif isinstance(value, list) and not p.index:
                value = value[0] if value else ""
        else:
            value = None
        if p.op == "#len":
            if var is None or value is None:
                return "unknown", None
            if p.index in ("@", "*") and isinstance(value, str):
                return "value", "1"  # ${#X[@]} of a plain variable: one element
            return "value", str(len(value))
        if p.op in (":-", "-", ":=", "="):
            if var is None:
                return "word", p.arg
            if value is None:
                return "unknown", None
            empty = value == "" or value == []
            if empty and p.op.startswith(":"):
                return "word", p.arg
            return "value", value
        if p.op in (":+", "+"):
            if known_unset:
                return "value", ""
            if var is None or value is None:
                return "unknown", None
            empty = value == "" or value == []
            if empty and p.op == ":+":
                return "value", ""
            return "word", p.arg
        if p.op in (":?", "?"):
            if var is None or value is None:
                return "unknown", None
            return "value", value
        if var is None:
            return ("value", "") if known_unset else ("unknown", None)
        if value is None:
            return "unknown", None
        return "value", value

    @property
    def _top_level(self) -> bool:
        """Outside every function body, in the script itself (not a sourced file or a ``bash -c`` string,
        whose ``$1`` is another's)."""
        return (
            self._script_file
            and self._depth == 0
            and not self._function_levels
            and not self._function_next
            and not self._positional_moved
        )

    def _expand_parts_text(self, parts: list[Part]) -> str | list[str] | None:
        """Expand a default/alternative word (``${X:-this}``) to text; None when unknown."""
        out: list[str] = []
        for part in parts:
            if isinstance(part, Lit):
                out.append(part.text)
            elif isinstance(part, Param):
                kind, val = self._lookup(part)
                if kind != "value" or val is None:
                    return None
                out.append(" ".join(val) if isinstance(val, list) else val)
            elif isinstance(part, Arith):
                v = self._arith(part.expr)
                if v is None:
                    return None
                out.append(str(v))
            else:
                return None
        text = "".join(out)
        return None if _too_large(text) else text

    def _arith(self, expr: str) -> int | None:
        def sub(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(2)
            var = self.vars.get(name)
            if var is None or not isinstance(var.value, str) or not re.fullmatch(r"-?\d+", var.value.strip()):
                raise ValueError(name)
            return var.value.strip()

        try:
            text = re.sub(r"\$\{?([A-Za-z_]\w*)\}?|\b([A-Za-z_]\w*)\b", sub, expr)
        except ValueError:
            return None
        return _eval_int(text)

    def expand(self, w: RawWord) -> list[Word]:
        """Expand one word into fields (field splitting applies to unquoted expansions)."""
        if len(w.parts) == 1 and type(w.parts[0]) is Lit:
            # the common case, a word of plain text: the one field the walk below would build
            only_lit = w.parts[0]
            self._words_left -= 1
            if self._words_left < 0:
                raise ShellSyntaxError(
                    f"expands to more than {MAX_EXPANDED_WORDS:,} words: too large for vlint", w.start
                )
            if not only_lit.text and not only_lit.quoted:
                return []
            return [Word(only_lit.text, w.start, w.end, quoted=only_lit.quoted)]
        fields: list[Word] = []
        cur: Word | None = None
        raw = self.text[w.start : w.end]
        # the current field's text in pieces, joined when it closes (``+=`` on a word of many
        # parts copied the text once per part: quadratic)
        buf: list[str] = []
        size = 0
        #: the current field's pieces: (text, known) — for the words of an unresolved field
        pieces: list[tuple[str, bool]] = []

        def current() -> Word:
            nonlocal cur
            if cur is None:
                cur = Word("", w.start, w.end)
            return cur

        def add(text: str, known: bool = True) -> Word:
            nonlocal size
            c = current()
            buf.append(text)
            pieces.append((text, known))
            size += len(text)
            return c

        def close() -> None:
            nonlocal cur, size
            if cur is not None:
                cur.text = "".join(buf)
                if cur.unresolved:
                    cur.words = _split_pieces(pieces)
                buf.clear()
                pieces.clear()
                size = 0
                fields.append(cur)
                cur = None

        def mark_unknown(quoted: bool, many: bool = False) -> None:
            c = current()
            c.unresolved = True
            if not quoted or many:
                c.opaque = True

        def add_split(val: str) -> None:
            """Unquoted expansion text: split into fields at blanks (bash's default IFS)."""
            if not val:
                return  # an empty unquoted expansion adds nothing and splits nothing
            pieces = [x for x in _IFS.split(val) if x]
            if val[0] in _IFS_CHARS:
                close()
            for k, piece in enumerate(pieces):
                if k:
                    close()
                add(piece)
            if val[-1] in _IFS_CHARS:
                close()

        def walk(parts: list[Part], depth: int) -> None:
            for part in parts:
                if isinstance(part, Lit) and depth and not part.quoted:
                    add_split(part.text)  # unquoted text of a ${X:-word} word is split too
                elif isinstance(part, Lit):
                    c = add(part.text)
                    c.quoted = c.quoted or part.quoted
                elif isinstance(part, _ArrayLit):
                    continue
                elif isinstance(part, Param):
                    kind, val = self._choose(part)
                    if kind == "word" and part.op in (":=", "=") and _is_assignment_name(part.name):
                        # ${X:=word} also assigns X (`: ${MODEL:=Qwen/…}` sets a default for later)
                        text = self._expand_parts_text(val)
                        prev = self.vars.get(part.name)
                        known = None if self._conditional or not isinstance(text, str) else text
                        self.vars[part.name] = Var(known, prev.exported if prev else self._auto_export)
                        self.unset.discard(part.name)
                    if kind == "word" and depth < 8:
                        if part.quoted:
                            current().quoted = True  # "${X:-}" is one (empty) word
                        walk(val, depth + 1)
                        continue
                    if kind == "word":
                        kind, val = "value", self._expand_parts_text(val)
                    if val is not None and (
                        _too_large(val) if isinstance(val, list) else size + len(val) > MAX_VALUE_CHARS
                    ):
                        val = None  # a word vlint does not build (see MAX_VALUE_CHARS)
                    if kind != "value" or val is None:
                        in_part = self.vars.get(part.name) if not part.op and not part.index else None
                        if in_part is not None and in_part.words is not None:
                            # a string known in part: unquoted (the whole word), one field per word, the
                            # unknown ones marked; quoted, one field holding them all
                            whole = not part.quoted and len(w.parts) == 1
                            for k, (item, known) in enumerate(in_part.words):
                                if k:
                                    if whole:
                                        close()
                                    else:
                                        add(" ")
                                c = add(item, known)
                                if not known:
                                    mark_unknown(part.quoted and not whole)
                            if not whole:
                                mark_unknown(True)
                            continue
                        var = self.vars.get(part.name) if part.index in ("@", "*") and not part.op else None
                        if var is not None and var.partial is not None and part.quoted and part.index == "@":
                            # "${A[@]}" of an array with unknown elements: one field per element, the
                            # unknown ones marked (an unquoted one may be any number of words)
                            for k, (item, known, opaque) in enumerate(var.partial):
                                if k:
                                    close()
                                c = add(item)
                                c.quoted = True
                                if not known:
                                    c.unresolved = True
                                    c.opaque = c.opaque or opaque
                            continue
                        mark_unknown(part.quoted, many=part.name in ("@", "*") or part.index in ("@", "*"))
                        add(part.raw, known=False)
                        continue
                    if isinstance(val, list):
                        if part.quoted and part.index == "@":
                            # "${A[@]}": one field per element (none for an empty array)
                            for k, item in enumerate(val):
                                if k:
                                    close()
                                c = add(item)
                                c.quoted = True
                            continue
                        val = " ".join(val)
                    if part.quoted:
                        c = add(val)
                        c.quoted = True
                    else:
                        add_split(val)
                elif isinstance(part, Arith):
                    v = self._arith(part.expr)
                    if v is None:
                        mark_unknown(part.quoted)
                        add("$((" + part.expr + "))", known=False)
                    elif part.quoted:
                        add(str(v))
                    else:
                        add_split(str(v))
                elif isinstance(part, CmdSubst):
                    mark_unknown(part.quoted)
                    add(part.raw, known=False)

        walk(w.parts, 0)
        close()
        only = w.parts[0] if len(w.parts) == 1 else None
        if isinstance(only, Param) and not only.op and fields:
            var = self.vars.get(only.name)
            if var is not None and var.value_start >= 0 and var.owner == id(self):
                if len(fields) > 1:
                    for f in fields:
                        f.written_in = (var.value_start, var.end)
                elif not only.index and isinstance(var.value, str) and not fields[0].unresolved:
                    fields[0].origin = (var.value_start, var.end)
            elif var is not None and var.span is not None:
                if len(fields) > 1:
                    for f in fields:
                        f.written_span = var.span
                elif not only.index and isinstance(var.value, str) and not fields[0].unresolved:
                    fields[0].defined_span = var.span
        self._words_left -= len(fields)
        if self._words_left < 0:
            raise ShellSyntaxError(f"expands to more than {MAX_EXPANDED_WORDS:,} words: too large for vlint", w.start)
        for f in fields:
            if f.unresolved:
                f.partial = f.text
                f.text = raw if len(fields) == 1 else f.text
        return [f for f in fields if f.text or f.quoted or f.unresolved]

    def expand_all(self, words: list[RawWord]) -> list[Word]:
        out: list[Word] = []
        for w in words:
            out.extend(self.expand(w))
        return out

    # -- assignments --------------------------------------------------------------------------
    def _assignment(self, w: RawWord) -> tuple[str, bool, RawWord] | None:
        """(name, append, word) when ``w`` is ``NAME=…`` / ``NAME+=…``."""
        first = w.parts[0] if w.parts else None
        if not isinstance(first, Lit) or first.quoted or "=" not in first.text:
            return None
        name, _, rest = first.text.partition("=")
        if not _is_assignment_name(name):
            return None
        append = name.endswith("+")
        if append:
            name = name[:-1]
        value_parts: list[Part] = ([Lit(rest)] if rest else []) + list(w.parts[1:])
        return name, append, RawWord(value_parts, w.start + len(name) + (2 if append else 1), w.end)

    def _assign(
        self,
        name: str,
        append: bool,
        value_word: RawWord,
        *,
        exported: bool,
        conditional: bool,
        name_start: int,
        record: bool = True,
    ) -> Word:
        array = next((p for p in value_word.parts if isinstance(p, _ArrayLit)), None)
        value: str | list[str] | None
        expanded: Word
        partial: tuple[tuple[str, bool, bool], ...] | None = None
        words: tuple[tuple[str, bool], ...] | None = None
        if array is not None:
            items: list[str] = []
            unknown = False
            elems: list[tuple[str, bool, bool]] = []
            for e in array.elems:
                for f in self.expand(e):
                    if f.unresolved:
                        unknown = True
                    items.append(f.text)
                    elems.append((f.text, not f.unresolved, f.opaque))
            value = None if unknown else items
            if unknown and not append and not conditional:
                partial = tuple(elems)
            expanded = Word(" ".join(items), value_word.start, value_word.end, unresolved=unknown)
            before = _elements(self.vars.get(name)) if append else None
            if before is not None and (unknown or conditional or self.vars[name].value is None):
                # A+=(…) to an array known in full or in part: its elements so far, then these (the
                # unknown ones marked); inside an if, these may not be added: all of them unknown
                partial = (*before, *(((t, False, True) for t, _, _ in elems) if conditional else elems))
            if append and value is not None:
                old = self.vars.get(name)
                value = (old.value if old and isinstance(old.value, list) else []) + value if old else value
                if old is not None and old.value is None:
                    value = None
        else:
            fields = self.expand(value_word) if value_word.parts else []
            text = "".join(f.text for f in fields)
            unknown = any(f.unresolved for f in fields)
            expanded = Word(text, value_word.start, value_word.end, unresolved=unknown, quoted=True)
            value = None if unknown else text
            new_words: tuple[tuple[str, bool], ...] | None = _joined_words(fields)
            if append:
                old = self.vars.get(name)
                start = _string_words(old) if old is not None else ()
                new_words = None if start is None else _glue(start, new_words)
                if old is not None:
                    value = None if old.value is None or value is None else str(old.value) + value
            if conditional:
                # assigned inside an if: the old words or the new ones; what both begin with is known
                new_words = _either(_string_words(self.vars[name]) if name in self.vars else None, new_words)
            words = new_words
        if conditional:
            old = self.vars.get(name)
            if old is None or old.value != value:
                value = None
        if _too_large(value):
            value = None
        prev = self.vars.get(name)
        exported = exported or self._auto_export or (prev.exported if prev else False)
        self.vars[name] = Var(
            value,
            exported,
            name_start,
            value_word.end,
            partial if value is None else None,
            words if value is None and words and not _too_large(" ".join(t for t, _ in words)) else None,
            # A+=(…), S+=…, S="$S …": from the first assignment on (the variable is written over those lines)
            prev.value_start
            if (append or _refers_to(value_word, name))
            and prev is not None
            and prev.owner == id(self)
            and prev.value_start >= 0
            else value_word.start,
            id(self),
        )
        self.unset.discard(name)
        if record:
            self.assignments.append(Assignment(name, expanded, name_start, exported))
        return expanded

    # -- the walk -----------------------------------------------------------------------------
    def commands(self) -> Iterator[Command]:
        """Yield every simple command, expanded, in order (assignments applied as they go).

        On a syntax error the commands before it are still yielded (bash would have run them),
        then the :class:`ShellSyntaxError` is raised."""
        error: ShellSyntaxError | None = None
        try:
            raw_cmds = lex(self.text, powershell=self.powershell)
        except ShellSyntaxError as e:
            raw_cmds, error = e.partial, e
        yield from self._walk(raw_cmds)
        if error is not None:
            raise error

    def _walk(self, raw_cmds: list[RawCommand]) -> Iterator[Command]:
        prev_op = ""
        piped: list[HereDoc] = []
        for rc in raw_cmds:
            incoming, piped = piped, []
            # after && / || a command may not run; every stage of a pipeline runs in a subshell
            conditional = bool(self._open) or prev_op in ("&&", "||", "|")
            words = list(rc.words)
            # control keywords
            while words:
                lit = words[0].literal()
                if lit in _OPENERS:
                    self._open.append(lit)
                    if self._function_next:  # the body of the function just named
                        self._function_levels.append(len(self._open))
                        self._function_next = False
                    conditional = True
                    words.pop(0)
                elif lit in _CLOSERS:
                    self._close(lit)
                    words.pop(0)
                elif lit in _LEADING_KEYWORDS:
                    words.pop(0)
                elif lit == "function" and len(words) > 1:
                    words = words[2:]
                    self._function_next = True
                    if words and words[0].literal() == "(" and len(words) > 1 and words[1].literal() == ")":
                        words = words[2:]  # function name ( )
                else:
                    break
            if len(words) >= 3 and words[1].literal() == "(" and words[2].literal() == ")":
                words = words[3:]  # function definition header: name ( )
                self._function_next = True
            while self._function_next and words and words[0].literal() in _OPENERS:
                self._open.append(words.pop(0).literal() or "{")  # name() { … on one line
                self._function_levels.append(len(self._open))
                self._function_next = False
            if words and words[0].literal() in ("in",):
                words = []
            if rc.end_op == ")" and words and words[-1].literal() == ")" and not words[-1].is_quoted:
                words.pop()  # `( … vllm serve m )`: the subshell ends here (a case pattern's `)` too)
                self._close(")")
            prev_op = rc.end_op
            # case patterns: "pattern)"
            if words and (words[0].literal() or "").endswith(")") and self._open:
                words.pop(0)
            if rc.end_op == "|" and words:
                conditional = True  # a pipeline stage runs in a subshell
            self._conditional = conditional
            prefix: dict[str, Word] = {}
            while words:
                a = self._assignment(words[0])
                if a is None:
                    break
                name, _append, value = a
                word = words.pop(0)
                # prefix assignments before a command do not change the shell's own variables
                prefix[name] = self._expand_assignment_value(value, word.start)
            if not words:
                # a pure assignment command: NAME=value …
                self._apply_pure_assignments(rc, conditional)
                yield Command([], {}, rc, conditional, [r.heredoc for r in rc.redirects if r.heredoc])
                continue
            first = words[0].literal()
            if first in _DECLARERS:
                self._declare(first, words[1:], conditional)
                continue
            if first in ("source", ".") and len(words) >= 2:
                self._source(words[1])
                continue
            if first in ("cd", "pushd", "popd"):
                if conditional or first == "popd":
                    self.workdir = None  # it may not run, or goes back to a folder not tracked
                else:
                    self._change_dir(words[0], words[1:])
            if first == "unset":
                for w in words[1:]:
                    lit = w.literal()
                    if lit and not lit.startswith("-"):
                        self.vars.pop(lit, None)
                        self.unset.add(lit)
                continue
            if first in ("read", "mapfile", "readarray"):
                for w in words[1:]:
                    lit = w.literal()
                    if lit and _is_assignment_name(lit):
                        self.vars[lit] = Var(None)
                continue
            if first in ("for", "select") and len(words) > 1:
                lit = words[1].literal()
                if lit:
                    self.vars[lit] = Var(None)
            if first == "set":
                self._set_options([w.literal() or "" for w in words[1:]])
            if first in ("shift", "getopts") or (first == "set" and any(w.literal() == "--" for w in words[1:])):
                self._positional_moved = True  # $1 is no longer the script's first argument (or its default)
            expanded = self.expand_all(words)
            self._record_created(expanded, rc)
            heredocs = [r.heredoc for r in rc.redirects if r.heredoc]
            if heredocs:
                self._record_heredoc_files(expanded, rc, heredocs)
            elif incoming and _skip_sudo(expanded) and _skip_sudo(expanded)[0].text == "tee":
                # cat <<EOF | tee cfg.yaml: the here-document reaches tee through the pipe
                self._record_heredoc_files(expanded, rc, incoming)
            self._record_applied(expanded, heredocs or incoming)
            piped = heredocs if rc.end_op == "|" and expanded and expanded[0].text == "cat" else []
            yield Command(expanded, prefix, rc, conditional, heredocs, tuple(self._positional_defaults))

    def _source(self, word: RawWord) -> None:
        """``source config.sh``: the variables the file sets, as bash would have them afterwards (its
        commands are not this script's launches). Read through the runner's confined reader; a file it
        cannot read leaves them unknown, never guessed."""
        if self._read_sourced is None or self._depth >= MAX_SOURCE_DEPTH:
            return
        fields = self.expand(word)
        if len(fields) != 1 or fields[0].unresolved or not fields[0].text:
            return
        path = fields[0].text
        if not posixpath.isabs(path):  # not normalised: ``link/..`` is the reader's to resolve, as the kernel does
            path = posixpath.join(self.cwd, path)
        if path not in self._sourced.texts:
            self._sourced.texts[path] = self._read_sourced(path)
        text = self._sourced.texts[path]
        if text is None:
            return
        key = (path, self._depth, _scope_key(self.vars))
        done = self._sourced.done.get(key)
        if done is None:
            if not self.budget.pull():
                return
            done = self._sourced.done[key] = self._evaluate_sourced(path, text)
        self._apply_sourced(done)

    def _evaluate_sourced(self, path: str, text: str) -> _Sourced:
        """Evaluate a sourced file from this script's variables: what it changed."""
        unexported = [name for name, var in self.vars.items() if not var.exported]
        sub = ShellEvaluator(
            text,
            PositionMap.for_text(path, text),
            env=self.vars,
            read_sourced=self._read_sourced,
            depth=self._depth + 1,
            budget=self.budget,
            sourced=self._sourced,
        )
        try:
            for _ in sub.commands():
                pass
        except ShellSyntaxError:
            pass  # what came before the error was assigned, as bash would have
        # set by the sourced file (a Var of its own): its offsets are that file's, not kept
        changed = {name: (var.value, var.exported) for name, var in sub.vars.items() if self.vars.get(name) is not var}
        exported = tuple(name for name in unexported if self.vars[name].exported)
        return _Sourced(changed, exported, tuple(sub.unset))

    def _apply_sourced(self, done: _Sourced) -> None:
        for name in done.exported:
            self.vars[name].exported = True
        for name, (value, exported) in done.changed.items():
            self.vars[name] = Var(value, exported or self._auto_export)
        for name in done.unset:
            self.vars.pop(name, None)
            self.unset.add(name)

    def _change_dir(self, cd: RawWord, args: list[RawWord]) -> None:
        """``cd DIR`` with a known DIR moves ``cwd``; so does one built from the script's own path
        (``cd "$(dirname "$0")"/..``), which also makes it certain (``workdir``). Another unknown one
        leaves ``cwd`` where it was, and the working folder unknown."""
        targets = [w for w in args if (w.literal() or "") not in ("-L", "-P", "-e", "-@")]
        if len(targets) != 1:
            self.workdir = None  # `cd` alone goes to $HOME
            return
        raw = self.text[targets[0].start : targets[0].end]
        own = script_folder_path(raw, self._unknown_var_texts()) if self._script_file and "$" in raw else None
        if own is not None:
            self.cwd = self.workdir = own
            self.workdir_span = self.posmap.span(cd.start, targets[0].end)
            return
        fields = self.expand(targets[0])
        if len(fields) != 1 or fields[0].unresolved or fields[0].text in ("", "-") or fields[0].text.startswith("~"):
            self.workdir = None
            return
        self.cwd = posixpath.normpath(posixpath.join(self.cwd, fields[0].text))
        if self.cwd == ".":
            self.cwd = ""
        if posixpath.isabs(self.cwd) or self.workdir is not None:
            self.workdir = self.cwd
            self.workdir_span = self.posmap.span(cd.start, targets[0].end)

    def _unknown_var_texts(self) -> dict[str, str]:
        """The source text of each variable assigned one value vlint cannot compute (``SCRIPT_DIR`` set
        from ``$(cd "$(dirname "$0")" && pwd)``)."""
        return {
            name: var.words[0][0]
            for name, var in self.vars.items()
            if var.value is None and var.words is not None and len(var.words) == 1
        }

    def _record_created(self, words: list[Word], rc: RawCommand) -> None:
        """The files and folders the command writes (:func:`created_by`), kept in ``created``."""
        redirects: list[str] = []
        for r in rc.redirects:
            if r.op in (">", ">>", ">|", "&>", "&>>") and r.target is not None:
                t = self.expand(r.target)
                if len(t) == 1 and not t[0].unresolved:
                    redirects.append(t[0].text)
        if not words and not redirects:
            return
        line = self.posmap.position(words[0].start if words else rc.words[0].start if rc.words else 0)[0]
        self.created += created_by([(w.text, not w.unresolved) for w in words], redirects, self.cwd, line)

    def _set_options(self, args: list[str]) -> None:
        """``set -a`` / ``set -o allexport`` export every later assignment; ``set +a`` stops it."""
        for k, a in enumerate(args):
            if a in ("-o", "+o") and k + 1 < len(args) and args[k + 1] == "allexport":
                self._auto_export = a == "-o"
            elif a[:1] in ("-", "+") and a[1:].isalpha() and "a" in a[1:]:
                self._auto_export = a[0] == "-"

    def _close(self, closer: str) -> None:
        """A closing keyword: ``)`` only closes a subshell (in a ``case`` it ends a pattern)."""
        if closer == ")":
            if self._open and self._open[-1] == "(":
                self._open.pop()
        elif self._open:
            self._open.pop()
        while self._function_levels and self._function_levels[-1] > len(self._open):
            self._function_levels.pop()  # the function's body ended

    def _expand_assignment_value(self, value: RawWord, start: int) -> Word:
        """The value of ``NAME=value``, spanning the whole assignment (from ``start``)."""
        fields = self.expand(value) if value.parts else []
        text = "".join(f.text for f in fields)
        return Word(text, start, value.end, unresolved=any(f.unresolved for f in fields), quoted=True)

    def _apply_pure_assignments(self, rc: RawCommand, conditional: bool) -> None:
        for w in rc.words:
            lit = w.literal()
            if lit in _OPENERS or lit in _CLOSERS or lit in _LEADING_KEYWORDS:
                continue
            a = self._assignment(w)
            if a is None:
                continue
            name, append, value = a
            self._assign(name, append, value, exported=False, conditional=conditional, name_start=w.start)

    def _declare(self, kind: str, words: list[RawWord], conditional: bool) -> None:
        exported = kind == "export" or any(
            (w.literal() or "").startswith("-") and "x" in (w.literal() or "") for w in words
        )
        for w in words:
            lit = w.literal()
            if lit is not None and lit.startswith("-"):
                continue
            a = self._assignment(w)
            if a is not None:
                name, append, value = a
                self._assign(
                    name,
                    append,
                    value,
                    exported=exported,
                    conditional=conditional or kind == "local",
                    name_start=w.start,
                )
            elif lit and _is_assignment_name(lit):
                var = self.vars.get(lit)
                if var is not None:
                    var.exported = var.exported or exported

    def _record_heredoc_files(self, words: list[Word], rc: RawCommand, heredocs: list[HereDoc]) -> None:
        words = _skip_sudo(words)
        targets: list[str] = []
        for r in rc.redirects:
            if r.op in (">", ">>", ">|") and r.target is not None:
                t = self.expand(r.target)
                if len(t) == 1 and not t[0].unresolved:
                    targets.append(t[0].text)
        if words and words[0].text == "tee":
            targets.extend(w.text for w in words[1:] if not w.text.startswith("-") and not w.unresolved)
        if not targets or (words and words[0].text not in ("cat", "tee")):
            return
        written = self._heredoc_file(heredocs[0])
        for t in targets:
            self.heredoc_files[posixpath.normpath(posixpath.join(self.cwd, t))] = written

    def _record_applied(self, words: list[Word], incoming: list[HereDoc]) -> None:
        """``kubectl apply -f FILE`` of a file this script wrote from a here-document, or ``cat << EOF |
        kubectl apply -f -``: the manifest is kept in :attr:`applied` (``oc``, ``create``/``replace`` too)."""
        words = _skip_sudo(words)
        if len(words) < 3 or words[0].text.rsplit("/", 1)[-1] not in ("kubectl", "oc"):
            return
        if not any(w.text in ("apply", "create", "replace") for w in words[1:3]):
            return
        for k, w in enumerate(words[:-1]):
            if w.text not in ("-f", "--filename") or words[k + 1].unresolved:
                continue
            target = words[k + 1].text
            if target == "-" and incoming:
                self.applied.append(self._heredoc_file(incoming[0]))
            else:
                found = self.heredoc_files.get(posixpath.normpath(posixpath.join(self.cwd, target)))
                if found is not None and found not in self.applied:
                    self.applied.append(found)

    def heredoc_file(self, hd: HereDoc) -> HeredocFile:
        """The here-document's text as the command reads it (a shell that runs it as its script)."""
        return self._heredoc_file(hd)

    def _heredoc_file(self, hd: HereDoc) -> HeredocFile:
        """The here-document's text as the command reads it (expansions done), mapped to the file."""
        text_parts: list[str] = []
        segments: list[tuple[int, int, int]] = []
        unresolved: list[tuple[int, int]] = []
        offset = 0
        for part in hd.parts:
            pos = max(getattr(part, "pos", 0), 0)  # offset in the body
            if isinstance(part, Lit):
                # a literal spans several lines: map each line start (``<<-`` strips tabs)
                segments.append((offset, *self.posmap.position(hd.source_offset(pos))))
                for k, ch in enumerate(part.text):
                    if ch == "\n":
                        segments.append((offset + k + 1, *self.posmap.position(hd.source_offset(pos + k + 1))))
                text_parts.append(part.text)
                offset += len(part.text)
                continue
            ln, col = self.posmap.position(hd.source_offset(pos))
            segments.append((offset, ln, col))
            value: str | None = None
            if isinstance(part, Param):
                kind, val = self._lookup(part)
                if kind == "value" and val is not None:
                    value = " ".join(val) if isinstance(val, list) else val
                raw = part.raw
            elif isinstance(part, Arith):
                v = self._arith(part.expr)
                value = None if v is None else str(v)
                raw = "$((" + part.expr + "))"
            else:
                raw = part.raw
            if value is None:
                unresolved.append((offset, offset + len(raw)))
                value = raw
            text_parts.append(value)
            if len(value) > 1:
                # the value's last character ends where the expansion's source text ends
                segments.append((offset + len(value) - 1, ln, col + len(raw) - 1))
            offset += len(value)
            # the rest of the line continues after the expansion's source text
            segments.append((offset, ln, col + len(raw)))
        text = "".join(text_parts)
        segments.sort(key=lambda s: s[0])
        return HeredocFile(text, PositionMap(self.posmap.path, segments), unresolved)


def _refers_to(word: RawWord, name: str) -> bool:
    """Whether ``word`` expands ``$name`` itself (``CMD="$CMD --x"``: the old value extended)."""
    return any(isinstance(p, Param) and p.name == name for p in word.parts)


def _split_pieces(pieces: list[tuple[str, bool]]) -> tuple[tuple[str, bool], ...]:
    """A field's pieces split at blanks as an unquoted expansion would split them: known text at its
    blanks; an unknown piece is kept whole and makes its word unknown."""
    out: list[tuple[str, bool]] = []
    text: list[str] = []
    known = True

    def flush() -> None:
        nonlocal known
        if text:
            out.append(("".join(text), known))
        text.clear()
        known = True

    for piece, ok in pieces:
        if not ok:
            text.append(piece)
            known = False
            continue
        for k, chunk in enumerate(_IFS.split(piece)):
            if k:
                flush()
            if chunk:
                text.append(chunk)
    flush()
    return tuple(out)


def _joined_words(fields: list[Word]) -> tuple[tuple[str, bool], ...]:
    """The words of an assigned value (its fields joined, as an assignment joins them)."""
    out: list[tuple[str, bool]] = []
    for f in fields:
        if f.unresolved and f.words is not None:
            out.extend(f.words)
        elif f.unresolved:
            out.append((f.text, False))
        else:
            out.extend((t, True) for t in _IFS.split(f.text) if t)
    return tuple(out)


def _string_words(var: Var | None) -> tuple[tuple[str, bool], ...] | None:
    """A string variable's words so far: all known, some known, or None (nothing known)."""
    if var is None:
        return None
    if isinstance(var.value, str):
        return tuple((t, True) for t in _IFS.split(var.value) if t)
    return var.words


def _glue(a: tuple[tuple[str, bool], ...], b: tuple[tuple[str, bool], ...]) -> tuple[tuple[str, bool], ...]:
    """The words of string ``a`` with ``b`` appended (``+=``: no blank between them)."""
    if a and b:
        (last, k1), (first, k2) = a[-1], b[0]
        return (*a[:-1], (last + first, k1 and k2), *b[1:])
    return a + b


def _either(
    old: tuple[tuple[str, bool], ...] | None, new: tuple[tuple[str, bool], ...] | None
) -> tuple[tuple[str, bool], ...] | None:
    """The words of a variable that holds ``old`` or ``new`` (an assignment an ``if`` may skip): the
    known words both begin with, then one unknown word for the rest (None when they share none)."""
    if old is None or new is None:
        return None
    n = 0
    while n < min(len(old), len(new)) and old[n] == new[n] and old[n][1]:
        n += 1
    if n == len(old) == len(new):
        return new
    if n == 0:
        return None
    rest = " ".join(t for t, _ in new[n:]) or " ".join(t for t, _ in old[n:])
    return (*new[:n], (rest, False))


def _elements(var: Var | None) -> tuple[tuple[str, bool, bool], ...] | None:
    """An array's elements so far (a string is one element): all known, some known, or None."""
    if var is None:
        return None
    if isinstance(var.value, list):
        return tuple((t, True, False) for t in var.value)
    if isinstance(var.value, str):
        return ((var.value, True, False),)
    return var.partial


def _skip_sudo(words: list[Word]) -> list[Word]:
    """``sudo [-E] [-u USER] tee f`` → ``tee f``."""
    if not words or words[0].text != "sudo":
        return words
    i = 1
    while i < len(words) and words[i].text.startswith("-"):
        i += 2 if words[i].text in ("-u", "-g", "-h", "-p", "-C") else 1
    return words[i:]


def _eval_int(text: str) -> int | None:
    """Evaluate integer arithmetic with + - * / % and parentheses; None for anything else."""
    tokens = re.findall(r"\d+|[-+*/%()]|\S", text)
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def atom() -> int:
        t = peek()
        if t == "(":
            take()
            v = expr()
            if take() != ")":
                raise ValueError
            return v
        if t == "-":
            take()
            return -atom()
        if t == "+":
            take()
            return atom()
        if t is not None and t.isdigit():
            return int(take())
        raise ValueError

    def term() -> int:
        v = atom()
        while peek() in ("*", "/", "%"):
            op = take()
            rhs = atom()
            if op == "*":
                v *= rhs
            elif rhs == 0:
                raise ValueError
            elif op == "/":
                v = int(v / rhs)
            else:
                v %= rhs
            if abs(v) > 10**18:
                raise ValueError
        return v

    def expr() -> int:
        v = term()
        while peek() in ("+", "-"):
            op = take()
            v = v + term() if op == "+" else v - term()
        return v

    try:
        v = expr()
    except (ValueError, IndexError):
        return None
    return v if pos == len(tokens) else None
