"""Static evaluation of a shell script: variables, expansions, and the commands it would run.

Nothing is executed. The evaluator walks the script's simple commands in order, records the
variables the script assigns itself (``MODEL=…``, ``export X=…``, arrays), and expands each
command's words with them. A value that depends on something the file does not say — a variable
assigned inside an ``if`` branch, a ``$(command)``, a script argument ``$1`` — is *unresolved*:
the word keeps its source spelling and is flagged, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from vlint.sources.shell_lexer import (
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
from vlint.span import PositionMap


@dataclass(slots=True)
class Word:
    """An expanded argv word, with the offsets (in the lexed text) of the source it came from."""

    text: str
    start: int
    end: int
    unresolved: bool = False
    #: unquoted and unresolved: may stand for any number of words
    opaque: bool = False
    quoted: bool = False


@dataclass(slots=True)
class Var:
    value: str | list[str] | None  # None: assigned, but to something vlint cannot know
    exported: bool = False
    start: int = -1
    end: int = -1


@dataclass(slots=True)
class Assignment:
    """``NAME=value`` as written in the script (for secret scanning and env reporting)."""

    name: str
    value: Word
    name_start: int
    exported: bool


@dataclass(slots=True)
class Command:
    """A simple command after expansion."""

    words: list[Word]
    #: ``NAME=value`` words in front of the command (its private environment)
    prefix_env: dict[str, Word]
    raw: RawCommand
    conditional: bool
    heredocs: list[HereDoc] = field(default_factory=list)


@dataclass(slots=True)
class HeredocFile:
    """A file the script writes from a here-document (``cat > cfg.yaml << EOF``)."""

    text: str
    posmap: PositionMap
    #: (start, end) offsets in ``text`` whose content vlint could not resolve
    unresolved: list[tuple[int, int]]


_OPENERS = {"if", "while", "until", "case", "for", "select", "{", "("}
_CLOSERS = {"fi", "done", "esac", "}", ")"}
_LEADING_KEYWORDS = {"then", "else", "elif", "do", "!", "time"}
_DECLARERS = {"export", "declare", "typeset", "local", "readonly"}


class ShellEvaluator:
    """Evaluates one script's text (or an embedded ``bash -c`` string)."""

    def __init__(
        self,
        text: str,
        posmap: PositionMap,
        *,
        env: dict[str, Var] | None = None,
        powershell: bool = False,
    ) -> None:
        self.text = text
        self.posmap = posmap
        self.powershell = powershell
        self.vars: dict[str, Var] = dict(env or {})
        self.unset: set[str] = set()
        self.assignments: list[Assignment] = []
        self.heredoc_files: dict[str, HeredocFile] = {}
        self._depth = 0
        self._auto_export = False

    # -- expansion ----------------------------------------------------------------------------
    def _lookup(self, p: Param) -> tuple[str, str | list[str] | None]:
        """("value", text|list) when known, ("unknown", None) otherwise."""
        name = p.name
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
                    except (ValueError, IndexError):
                        return "unknown", None
            elif isinstance(value, list) and not p.index:
                value = value[0] if value else ""
        else:
            value = None
        if p.op == "#len":
            if var is None or value is None:
                return "unknown", None
            return "value", str(len(value))
        if p.op in (":-", "-", ":=", "="):
            if var is None:
                return "value", self._expand_parts_text(p.arg)
            if value is None:
                return "unknown", None
            empty = value == "" or value == []
            if empty and p.op.startswith(":"):
                return "value", self._expand_parts_text(p.arg)
            return "value", value
        if p.op in (":+", "+"):
            if known_unset:
                return "value", ""
            if var is None or value is None:
                return "unknown", None
            empty = value == "" or value == []
            if empty and p.op == ":+":
                return "value", ""
            return "value", self._expand_parts_text(p.arg)
        if p.op in (":?", "?"):
            if var is None or value is None:
                return "unknown", None
            return "value", value
        if var is None:
            return ("value", "") if known_unset else ("unknown", None)
        if value is None:
            return "unknown", None
        return "value", value

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
        return "".join(out)

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
        fields: list[Word] = []
        cur: Word | None = None
        raw = self.text[w.start : w.end]

        def current() -> Word:
            nonlocal cur
            if cur is None:
                cur = Word("", w.start, w.end)
            return cur

        def close() -> None:
            nonlocal cur
            if cur is not None:
                fields.append(cur)
                cur = None

        def mark_unknown(quoted: bool, many: bool = False) -> None:
            c = current()
            c.unresolved = True
            if not quoted or many:
                c.opaque = True

        for part in w.parts:
            if isinstance(part, Lit):
                c = current()
                c.text += part.text
                c.quoted = c.quoted or part.quoted
            elif isinstance(part, _ArrayLit):
                continue
            elif isinstance(part, Param):
                kind, val = self._lookup(part)
                if kind != "value" or val is None:
                    mark_unknown(part.quoted, many=part.name in ("@", "*") or part.index in ("@", "*"))
                    current().text += part.raw
                    continue
                if isinstance(val, list):
                    if part.quoted and part.index == "@":
                        for k, item in enumerate(val):
                            if k:
                                close()
                            c = current()
                            c.text += item
                            c.quoted = True
                        if not val:
                            current().quoted = current().quoted or False
                        continue
                    val = " ".join(val)
                if part.quoted:
                    c = current()
                    c.text += val
                    c.quoted = True
                else:
                    pieces = val.split()
                    if not pieces:
                        continue
                    if val[:1].isspace():
                        close()
                    for k, piece in enumerate(pieces):
                        if k:
                            close()
                        current().text += piece
                    if val[-1:].isspace():
                        close()
            elif isinstance(part, Arith):
                v = self._arith(part.expr)
                if v is None:
                    mark_unknown(part.quoted)
                    current().text += "$((" + part.expr + "))"
                else:
                    current().text += str(v)
            elif isinstance(part, CmdSubst):
                mark_unknown(part.quoted)
                current().text += part.raw
        close()
        for f in fields:
            if f.unresolved:
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
        if array is not None:
            items: list[str] = []
            unknown = False
            for e in array.elems:
                for f in self.expand(e):
                    if f.unresolved:
                        unknown = True
                    items.append(f.text)
            value = None if unknown else items
            expanded = Word(" ".join(items), value_word.start, value_word.end, unresolved=unknown)
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
            if append:
                old = self.vars.get(name)
                if old is not None:
                    value = None if old.value is None or value is None else str(old.value) + value
        if conditional:
            old = self.vars.get(name)
            if old is None or old.value != value:
                value = None
        prev = self.vars.get(name)
        exported = exported or self._auto_export or (prev.exported if prev else False)
        self.vars[name] = Var(value, exported, name_start, value_word.end)
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
        for rc in raw_cmds:
            conditional = self._depth > 0 or prev_op in ("&&", "||")
            words = list(rc.words)
            # control keywords
            while words:
                lit = words[0].literal()
                if lit in _OPENERS:
                    self._depth += 1
                    conditional = True
                    words.pop(0)
                elif lit in _CLOSERS:
                    self._depth = max(0, self._depth - 1)
                    words.pop(0)
                elif lit in _LEADING_KEYWORDS:
                    words.pop(0)
                elif lit == "function" and len(words) > 1:
                    words = words[2:]
                else:
                    break
            if len(words) >= 3 and words[1].literal() == "(" and words[2].literal() == ")":
                words = words[3:]  # function definition header: name ( )
            if words and words[0].literal() in ("in",):
                words = []
            prev_op = rc.end_op
            # case patterns: "pattern)"
            if words and (words[0].literal() or "").endswith(")") and self._depth > 0:
                words.pop(0)
            if rc.end_op == "|" and words:
                conditional = True  # a pipeline stage runs in a subshell
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
            if first == "set" and any(
                (w.literal() or "").startswith("-") and "a" in (w.literal() or "") for w in words[1:]
            ):
                self._auto_export = True
            expanded = self.expand_all(words)
            heredocs = [r.heredoc for r in rc.redirects if r.heredoc]
            if heredocs:
                self._record_heredoc_files(expanded, rc, heredocs)
            yield Command(expanded, prefix, rc, conditional, heredocs)

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
        hd = heredocs[0]
        text_parts: list[str] = []
        segments: list[tuple[int, int, int]] = []
        unresolved: list[tuple[int, int]] = []
        offset = 0
        for part in hd.parts:
            src = hd.body_start + max(getattr(part, "pos", 0), 0)
            if isinstance(part, Lit):
                # a literal spans several lines: map each line start
                pm_line, pm_col = self.posmap.position(src)
                segments.append((offset, pm_line, pm_col))
                for k, ch in enumerate(part.text):
                    if ch == "\n":
                        ln, col = self.posmap.position(src + k + 1)
                        segments.append((offset + k + 1, ln, col))
                text_parts.append(part.text)
                offset += len(part.text)
                continue
            ln, col = self.posmap.position(src)
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
            offset += len(value)
            # the rest of the line continues after the expansion's source text
            segments.append((offset, ln, col + len(raw)))
        text = "".join(text_parts)
        segments.sort(key=lambda s: s[0])
        posmap = PositionMap(self.posmap.path, segments)
        for t in targets:
            self.heredoc_files[t] = HeredocFile(text, posmap, unresolved)


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
