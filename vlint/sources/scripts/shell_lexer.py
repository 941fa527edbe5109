"""A POSIX-shell/bash lexer that keeps track of where every word came from.

It understands what launch scripts use: quoting (``'…'``, ``"…"``, ``$'…'``), backslash escapes and
``\\``-newline continuations, comments, operators (``;`` ``&`` ``&&`` ``||`` ``|``), redirections,
here-documents, and the parameter/command/arithmetic expansions (``$X``, ``${X:-d}``, ``$(…)``,
``$((…))``, backticks). It does not execute anything: expansions are kept as structured *parts*
that :mod:`vlint.sources.scripts.shell` evaluates against the variables the script itself assigns.

Errors (an unterminated quote or here-document) are raised as :class:`ShellSyntaxError` with the
offset where the construct started.
"""

from __future__ import annotations

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record

# ---------------------------------------------------------------------------------------------
# word parts


@record(slots=True)
class Lit:
    """Literal text. ``quoted`` literals are not subject to field splitting or globbing."""

    text: str
    quoted: bool = False
    pos: int = -1  # offset in the lexed text, where known (here-document bodies)


@record(slots=True)
class Param:
    """A parameter expansion: ``$NAME``, ``${NAME}``, ``${NAME:-word}``, ``${ARR[@]}``, ``$1``, ``$@``…"""

    name: str
    op: str = ""  # "", ":-", "-", ":=", "=", ":+", "+", ":?", "?", "#len", or "other"
    arg: list[Part] = field(default_factory=list)
    index: str = ""  # "@", "*", or a number for arrays
    quoted: bool = False
    raw: str = ""
    pos: int = -1


@record(slots=True)
class CmdSubst:
    """``$(…)`` or backticks: its output is unknown."""

    raw: str
    quoted: bool = False
    pos: int = -1


@record(slots=True)
class Arith:
    """``$((…))``."""

    expr: str
    quoted: bool = False
    pos: int = -1


Part = Lit | Param | CmdSubst | Arith


@record(slots=True)
class RawWord:
    parts: list[Part]
    start: int
    end: int

    @property
    def is_quoted(self) -> bool:
        return any(getattr(p, "quoted", False) for p in self.parts)

    def literal(self) -> str | None:
        """The word's text when it has no expansions, else None."""
        if all(isinstance(p, Lit) for p in self.parts):
            return "".join(p.text for p in self.parts)  # type: ignore[union-attr]
        return None


@record(slots=True)
class Op:
    op: str
    start: int
    end: int


@record(slots=True)
class HereDoc:
    delimiter: str
    quoted: bool
    strip_tabs: bool
    start: int = 0
    #: body as parts (expansions only when the delimiter is unquoted)
    parts: list[Part] = field(default_factory=list)
    body: str = ""
    body_start: int = 0
    #: (offset in ``body``, offset in the lexed text) at the start of every body line: ``<<-``
    #: removes leading tabs, so body offsets and source offsets drift apart line by line
    line_offsets: list[tuple[int, int]] = field(default_factory=list)

    def source_offset(self, body_offset: int) -> int:
        """Offset in the lexed text of the body character at ``body_offset``."""
        base_body, base_src = 0, self.body_start
        for b, src in self.line_offsets:
            if b > body_offset:
                break
            base_body, base_src = b, src
        return base_src + (body_offset - base_body)


@record(slots=True)
class Redirect:
    op: str
    target: RawWord | None
    start: int
    heredoc: HereDoc | None = None


@record(slots=True)
class RawCommand:
    """A simple command: words, redirections, and the operator that ended it."""

    words: list[RawWord] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    end_op: str = ""
    start: int = 0
    end: int = 0


class ShellSyntaxError(ValueError):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset
        #: the commands that were complete before the error (bash runs those before failing)
        self.partial: list[RawCommand] = []


#: ``${A:-${B:-${C…}}}`` nested deeper than this is a syntax error for vlint (each level is lexed again:
#: the limit bounds recursion and work; scripts nest two or three levels)
MAX_NESTING = 50
#: words in one text: a 10 MiB file of one-letter words would otherwise take minutes
MAX_WORDS = 200_000
#: quoted pieces, literals and expansions in all words of one text (each is an object: the limit bounds
#: memory for words like ``'a'"b"'c'…`` that a script nesting ``bash -c`` in ``bash -c`` produces)
MAX_PARTS = 500_000

_OPERATORS = ("&&", "||", ";;", "|&", ";", "&", "|", "(", ")")
_REDIRECT_OPS = ("<<<", "<<-", "<<", ">>", "&>>", "&>", ">&", "<&", ">|", "<>", ">", "<")
#: the first characters of every operator above
_OP_START = frozenset(op[0] for op in (*_OPERATORS, *_REDIRECT_OPS))
_SPECIAL_PARAMS = set("@*#?$!-0123456789")
_META = set(" \t\n;&|()<>")
#: a run of characters that are a word's plain text in any context (no escape, quote, expansion,
#: metacharacter or carriage return): consumed at once instead of one character per turn
_PLAIN_RUN = lazy_compile(r"[^\\ \t\n;&|()<>\r'\"$`]+")
#: the same in PowerShell, whose escape is the backtick and whose < and > do not end a word
_PLAIN_RUN_POWERSHELL = lazy_compile(r"[^` \t\n;&|()\r'\"$]+")


def _is_name_start(c: str) -> bool:
    return c == "_" or c.isalpha()


def _is_name_char(c: str) -> bool:
    return c == "_" or c.isalnum()


class Lexer:
    """Turns shell text into :class:`RawCommand` objects."""

    def __init__(self, text: str, *, powershell: bool = False, depth: int = 0) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.powershell = powershell
        #: how many ``${…}`` this text is nested in
        self.depth = depth
        self._words = 0
        self._parts = 0
        self.escape = "`" if powershell else "\\"
        self._pending_heredocs: list[HereDoc] = []

    # -- helpers ------------------------------------------------------------------------------
    def _peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < self.n else ""

    def _skip_continuations(self) -> None:
        while self.s.startswith(self.escape + "\n", self.i) or self.s.startswith(self.escape + "\r\n", self.i):
            self.i += 2 if self.s[self.i + 1] == "\n" else 3

    # -- top level ----------------------------------------------------------------------------
    def commands(self) -> list[RawCommand]:
        out: list[RawCommand] = []
        try:
            return self._commands(out)
        except ShellSyntaxError as e:
            e.partial = out
            raise

    def _commands(self, out: list[RawCommand]) -> list[RawCommand]:
        cmd = RawCommand(start=self.i)
        while True:
            self._skip_blanks()
            if self.i >= self.n:
                break
            c = self.s[self.i]
            if c == "#":
                self._skip_comment()
                continue
            if c == "\n" or (c == "\r" and self._peek(1) == "\n"):
                self.i += 1 if c == "\n" else 2
                self._read_pending_heredocs()
                cmd = self._finish(cmd, "\n", out)
                continue
            redir = self._match(_REDIRECT_OPS, allow_fd=True)
            if redir is not None:
                op, start = redir
                self._skip_blanks()
                heredoc = None
                target = None
                if op in ("<<", "<<-"):
                    target = self._word()
                    if target is None:
                        raise ShellSyntaxError("here-document without a delimiter", start)
                    delim = "".join(p.text if isinstance(p, Lit) else getattr(p, "raw", "") for p in target.parts)
                    heredoc = HereDoc(delim, target.is_quoted, op == "<<-", start=start)
                    self._pending_heredocs.append(heredoc)
                else:
                    target = self._word()
                cmd.redirects.append(Redirect(op, target, start, heredoc))
                continue
            op = self._match(_OPERATORS)
            if op is not None:
                name, start = op
                if name in ("(", ")"):
                    # subshell/grouping parentheses: treat like keywords (word boundaries)
                    cmd.words.append(RawWord([Lit(name)], start, start + 1))
                    if name == ")":
                        cmd = self._finish(cmd, name, out)
                    continue
                cmd = self._finish(cmd, name, out)
                continue
            word = self._word()
            if word is None:  # pragma: no cover - defensive: _word always consumes
                self.i += 1
                continue
            if not cmd.words and not cmd.redirects:
                cmd.start = word.start
            cmd.words.append(word)
            self._words += 1
            if self._words > MAX_WORDS:
                raise ShellSyntaxError(f"more than {MAX_WORDS:,} words: too large a script for vlint", word.start)
            # array assignment NAME=( … ): read the elements as words up to ')'
            lit = word.literal()
            if lit is not None and lit.endswith("=") and self._peek() == "(" and _is_assignment_name(lit[:-1]):
                self.i += 1
                elems = self._array_elements()
                word.parts.append(_ArrayLit(elems))
                word.end = self.i
        self._finish(cmd, "", out)
        if self._pending_heredocs:
            raise ShellSyntaxError(
                f"here-document delimited by {self._pending_heredocs[0].delimiter!r} is never closed",
                self._pending_heredocs[0].start,
            )
        return out

    def _finish(self, cmd: RawCommand, end_op: str, out: list[RawCommand]) -> RawCommand:
        if cmd.words or cmd.redirects:
            cmd.end_op = end_op
            cmd.end = self.i
            out.append(cmd)
        return RawCommand(start=self.i)

    def _skip_blanks(self) -> None:
        while self.i < self.n:
            c = self.s[self.i]
            if c in " \t\f\v" or (c == "\r" and self._peek(1) != "\n"):
                self.i += 1
            elif self.s.startswith(self.escape + "\n", self.i) or self.s.startswith(self.escape + "\r\n", self.i):
                self._skip_continuations()
            else:
                break

    def _skip_comment(self) -> None:
        j = self.s.find("\n", self.i)
        self.i = self.n if j < 0 else j

    def _match(self, ops: tuple[str, ...], allow_fd: bool = False) -> tuple[str, int] | None:
        start = self.i
        if start < self.n and self.s[start] not in _OP_START and not (allow_fd and self.s[start].isdigit()):
            return None  # no operator starts here (the common case: a word)
        j = self.i
        if allow_fd:
            while j < self.n and self.s[j].isdigit():
                j += 1
        for op in ops:
            if self.s.startswith(op, j):
                if j > start and op.startswith("&"):
                    continue
                if self.powershell and op in ("<", "<<", "<<-", "<<<"):
                    continue
                self.i = j + len(op)
                return op, start
        return None

    # -- here-documents -----------------------------------------------------------------------
    def _read_pending_heredocs(self) -> None:
        while self._pending_heredocs:
            hd = self._pending_heredocs.pop(0)
            body_start = self.i
            lines: list[str] = []
            offsets: list[tuple[int, int]] = []
            found = False
            while self.i < self.n:
                j = self.s.find("\n", self.i)
                line_end = self.n if j < 0 else j
                line = self.s[self.i : line_end]
                next_i = line_end + 1 if j >= 0 else self.n
                check = line.rstrip("\r")
                if hd.strip_tabs:
                    check = check.lstrip("\t")
                if check == hd.delimiter:
                    self.i = next_i
                    found = True
                    break
                body_line = self.s[self.i : next_i]
                skip = len(body_line) - len(body_line.lstrip("\t")) if hd.strip_tabs else 0
                offsets.append((sum(len(x) for x in lines), self.i + skip))
                lines.append(body_line[skip:])
                self.i = next_i
            if not found:
                raise ShellSyntaxError(f"here-document delimited by {hd.delimiter!r} is never closed", hd.start)
            hd.body = "".join(lines)
            hd.body_start = body_start
            hd.line_offsets = offsets
            if hd.quoted:
                hd.parts = [Lit(hd.body, quoted=True, pos=0)]
            else:
                sub = Lexer(hd.body)
                hd.parts = sub._heredoc_parts()

    def _heredoc_parts(self) -> list[Part]:
        """An unquoted here-document body: expansions and backslash escapes, no quote removal."""
        parts: list[Part] = []
        buf: list[str] = []
        buf_start = 0
        while self.i < self.n:
            c = self.s[self.i]
            if c == "\\" and self.i + 1 < self.n and self.s[self.i + 1] in "$`\\\n":
                # every literal stays a verbatim slice of the body (positions stay exact)
                if buf:
                    parts.append(Lit("".join(buf), quoted=True, pos=buf_start))
                    buf = []
                if self.s[self.i + 1] != "\n":
                    parts.append(Lit(self.s[self.i + 1], quoted=True, pos=self.i + 1))
                self.i += 2
            elif c == "$" or c == "`":
                at = self.i
                exp = self._dollar(quoted=True) if c == "$" else self._backtick(quoted=True)
                if exp is None:
                    if not buf:
                        buf_start = self.i
                    buf.append(c)
                    self.i += 1
                    continue
                if buf:
                    parts.append(Lit("".join(buf), quoted=True, pos=buf_start))
                    buf = []
                exp.pos = at
                parts.append(exp)
            else:
                if not buf:
                    buf_start = self.i
                buf.append(c)
                self.i += 1
        if buf:
            parts.append(Lit("".join(buf), quoted=True, pos=buf_start))
        return parts

    # -- words --------------------------------------------------------------------------------
    def _word(self) -> RawWord | None:
        start = self.i
        parts: list[Part] = []
        buf: list[str] = []

        def flush() -> None:  # called before every part is added
            if buf:
                parts.append(Lit("".join(buf)))
                buf.clear()
            if self._parts + len(parts) > MAX_PARTS:
                raise ShellSyntaxError(
                    f"more than {MAX_PARTS:,} quoted pieces and expansions: too complex for vlint", start
                )

        plain = (_PLAIN_RUN_POWERSHELL if self.powershell else _PLAIN_RUN).match
        while self.i < self.n:
            run = plain(self.s, self.i)
            if run is not None:
                buf.append(run.group())
                self.i = run.end()
                continue
            c = self.s[self.i]
            if c == self.escape:
                nxt = self._peek(1)
                if nxt == "\n":
                    self.i += 2
                    continue
                if nxt == "\r" and self._peek(2) == "\n":
                    self.i += 3
                    continue
                if nxt == "":
                    buf.append(c)  # a backslash at the very end of the text stays (bash: `c\` → `c\`)
                    self.i += 1
                    continue
                flush()
                parts.append(Lit(nxt, quoted=True))
                self.i += 2
                continue
            if c in _META or (c == "\r" and self._peek(1) == "\n"):
                if c in "<>" and self.powershell:
                    pass
                else:
                    break
            if c == "'" and not self.powershell:
                flush()
                end = self.s.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("unterminated single quote", self.i)
                parts.append(Lit(self.s[self.i + 1 : end], quoted=True))
                self.i = end + 1
                continue
            if c == "'" and self.powershell:
                flush()
                end = self.s.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("unterminated single quote", self.i)
                parts.append(Lit(self.s[self.i + 1 : end], quoted=True))
                self.i = end + 1
                continue
            if c == '"':
                flush()
                parts.extend(self._double_quoted())
                continue
            if c == "$":
                if self._peek(1) == "'" and not self.powershell:
                    flush()
                    parts.append(self._ansi_c())
                    continue
                exp = self._dollar(quoted=False)
                if exp is None:
                    buf.append("$")
                    self.i += 1
                    continue
                flush()
                parts.append(exp)
                continue
            if c == "`" and not self.powershell:
                flush()
                parts.append(self._backtick(quoted=False))
                continue
            buf.append(c)
            self.i += 1
        flush()
        if self.i == start:
            return None
        self._parts += len(parts)
        return RawWord(parts, start, self.i)

    def _array_elements(self) -> list[RawWord]:
        elems: list[RawWord] = []
        while True:
            while self.i < self.n and (self.s[self.i] in " \t\n\r" or self.s.startswith("\\\n", self.i)):
                self.i += 2 if self.s[self.i] == "\\" else 1
            if self.i >= self.n:
                raise ShellSyntaxError("unterminated array assignment", self.i)
            if self.s[self.i] == "#":
                self._skip_comment()
                continue
            if self.s[self.i] == ")":
                self.i += 1
                return elems
            w = self._word()
            if w is None:
                self.i += 1
                continue
            elems.append(w)

    def _double_quoted(self) -> list[Part]:
        open_at = self.i
        self.i += 1
        parts: list[Part] = []
        buf: list[str] = []
        while True:
            if self.i >= self.n:
                raise ShellSyntaxError("unterminated double quote", open_at)
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                break
            if c == self.escape and self.i + 1 < self.n:
                nxt = self.s[self.i + 1]
                if self.powershell:
                    buf.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
                    self.i += 2
                    continue
                if nxt == "\n":
                    self.i += 2
                    continue
                if nxt in '$`"\\':
                    buf.append(nxt)
                    self.i += 2
                    continue
                buf.append(c)
                self.i += 1
                continue
            if c == "$":
                exp = self._dollar(quoted=True)
                if exp is None:
                    buf.append("$")
                    self.i += 1
                    continue
                if buf:
                    parts.append(Lit("".join(buf), quoted=True))
                    buf = []
                parts.append(exp)
                continue
            if c == "`" and not self.powershell:
                if buf:
                    parts.append(Lit("".join(buf), quoted=True))
                    buf = []
                parts.append(self._backtick(quoted=True))
                continue
            buf.append(c)
            self.i += 1
        if buf or not parts:
            # "" alone is an (empty) quoted word; "${A[@]}" adds no empty literal, so that an
            # empty array expands to no word at all, as in bash
            parts.append(Lit("".join(buf), quoted=True))
        return parts

    def _ansi_c(self) -> Lit:
        open_at = self.i
        self.i += 2
        out: list[str] = []
        while True:
            if self.i >= self.n:
                raise ShellSyntaxError("unterminated $'...' quote", open_at)
            c = self.s[self.i]
            if c == "'":
                self.i += 1
                break
            if c == "\\" and self.i + 1 < self.n:
                text, self.i = _ansi_escape(self.s, self.i + 1)
                out.append(text)
                continue
            out.append(c)
            self.i += 1
        return Lit("".join(out), quoted=True)

    def _backtick(self, quoted: bool) -> CmdSubst:
        open_at = self.i
        j = self.i + 1
        while j < self.n and self.s[j] != "`":
            j += 2 if self.s[j] == "\\" else 1
        if j >= self.n:
            raise ShellSyntaxError("unterminated backquote", open_at)
        self.i = j + 1
        return CmdSubst(self.s[open_at : j + 1], quoted)

    def _matching(self, j: int, open_ch: str, close_ch: str) -> int:
        """Index of the ``close_ch`` matching an already-open ``open_ch``, skipping quotes."""
        depth = 1
        while j < self.n:
            c = self.s[j]
            if c == "\\":
                j += 2
                continue
            if c == "'" and open_ch != "{":
                k = self.s.find("'", j + 1)
                if k < 0:
                    return -1
                j = k + 1
                continue
            if c == '"':
                k = j + 1
                while k < self.n and self.s[k] != '"':
                    k += 2 if self.s[k] == "\\" else 1
                if k >= self.n:
                    return -1
                j = k + 1
                continue
            if c == open_ch:
                depth += 1
            elif c == close_ch:
                depth -= 1
                if depth == 0:
                    return j
            j += 1
        return -1

    def _dollar(self, quoted: bool) -> Part | None:
        start = self.i
        nxt = self._peek(1)
        if self.powershell:
            # PowerShell: $name, ${name}, $env:NAME — values unknown to vlint
            j = self.i + 1
            if nxt == "{":
                k = self.s.find("}", j)
                if k < 0:
                    return None
                self.i = k + 1
                return Param(self.s[j + 1 : k], quoted=quoted, raw=self.s[start : self.i])
            while j < self.n and (_is_name_char(self.s[j]) or self.s[j] == ":"):
                j += 1
            if j == self.i + 1:
                return None
            self.i = j
            return Param("ps:" + self.s[start + 1 : j], quoted=quoted, raw=self.s[start:j])
        if nxt == "(":
            if self._peek(2) == "(":
                end = self.s.find("))", self.i + 3)
                if end < 0:
                    raise ShellSyntaxError("unterminated $((...))", start)
                self.i = end + 2
                return Arith(self.s[start + 3 : end], quoted)
            end = self._matching(self.i + 2, "(", ")")
            if end < 0:
                raise ShellSyntaxError("unterminated $(...)", start)
            self.i = end + 1
            return CmdSubst(self.s[start : self.i], quoted)
        if nxt == "{":
            end = self._matching(self.i + 2, "{", "}")
            if end < 0:
                raise ShellSyntaxError("unterminated ${...}", start)
            inner = self.s[self.i + 2 : end]
            self.i = end + 1
            if self.depth >= MAX_NESTING:
                raise ShellSyntaxError(f"${{...}} nested more than {MAX_NESTING} levels deep", start)
            try:
                return _parse_braced(inner, quoted, self.s[start : self.i], self.depth + 1)
            except ShellSyntaxError as e:  # offsets in the inner text: report the outer ${ instead
                raise ShellSyntaxError(str(e), start) from None
        if nxt and _is_name_start(nxt):
            j = self.i + 1
            while j < self.n and _is_name_char(self.s[j]):
                j += 1
            self.i = j
            return Param(self.s[start + 1 : j], quoted=quoted, raw=self.s[start:j])
        if nxt and nxt in _SPECIAL_PARAMS:
            self.i += 2
            return Param(nxt, quoted=quoted, raw=self.s[start : self.i])
        return None


_ANSI_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_HEX = "0123456789abcdefABCDEF"


def _ansi_escape(s: str, i: int) -> tuple[str, int]:
    """The character a ``$'…'`` escape stands for (``s[i]`` follows the backslash), and the
    offset after it: bash's ``\\n``, ``\\xHH``, ``\\nnn`` (octal), ``\\uHHHH``, ``\\UHHHHHHHH``, ``\\cX``."""
    c = s[i]
    if c in _ANSI_ESCAPES:
        return _ANSI_ESCAPES[c], i + 1
    if c in "01234567":
        j = i
        while j < len(s) and j < i + 3 and s[j] in "01234567":
            j += 1
        return chr(int(s[i:j], 8) & 0xFF), j
    width = {"x": 2, "u": 4, "U": 8}.get(c)
    if width is not None:
        j = i + 1
        while j < len(s) and j < i + 1 + width and s[j] in _HEX:
            j += 1
        if j == i + 1:
            return "\\" + c, i + 1
        code = int(s[i + 1 : j], 16)
        return (chr(code) if code < 0x110000 else "\\" + s[i:j]), j
    if c == "c" and i + 1 < len(s):
        return chr(ord(s[i + 1].upper()) & 0x1F), i + 2
    return "\\" + c, i + 1


@record(slots=True)
class _ArrayLit:
    """Elements of ``NAME=( … )`` attached to the assignment word."""

    elems: list[RawWord]
    quoted: bool = True


def _is_assignment_name(name: str) -> bool:
    base = name[:-1] if name.endswith("+") else name
    return bool(base) and _is_name_start(base[0]) and all(_is_name_char(c) for c in base)


_PARAM_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?", "##", "#", "%%", "%", "//", "/", "^^", "^", ",,", ",", ":")


def _parse_braced(inner: str, quoted: bool, raw: str, depth: int = 1) -> Param:
    if inner.startswith("#") and len(inner) > 1 and (_is_name_start(inner[1]) or inner[1] in _SPECIAL_PARAMS):
        name, _, index = inner[1:].partition("[")
        return Param(name, op="#len", index=index.rstrip("]"), quoted=quoted, raw=raw)
    if inner.startswith("!"):
        return Param(inner, op="other", quoted=quoted, raw=raw)
    j = 0
    if inner and inner[0] in _SPECIAL_PARAMS:
        j = 1
        while j < len(inner) and inner[0].isdigit() and inner[j].isdigit():
            j += 1
    else:
        while j < len(inner) and _is_name_char(inner[j]):
            j += 1
    name = inner[:j]
    rest = inner[j:]
    index = ""
    if rest.startswith("["):
        k = rest.find("]")
        if k > 0:
            index = rest[1:k]
            rest = rest[k + 1 :]
    if not rest:
        return Param(name, index=index, quoted=quoted, raw=raw)
    for op in _PARAM_OPS:
        if rest.startswith(op):
            arg_text = rest[len(op) :]
            if op in (":-", ":=", ":+", ":?", "-", "=", "+", "?"):
                sub = Lexer(arg_text, depth=depth)
                parts: list[Part] = []
                while sub.i < sub.n:
                    w = sub._word()
                    if w is None:
                        # whitespace inside the default is kept literally
                        parts.append(Lit(sub.s[sub.i], quoted=quoted))
                        sub.i += 1
                        continue
                    for p in w.parts:
                        if quoted and not isinstance(p, _ArrayLit):
                            p.quoted = True
                        parts.append(p)
                return Param(name, op=op, arg=parts, index=index, quoted=quoted, raw=raw)
            return Param(name, op="other", index=index, quoted=quoted, raw=raw)
    return Param(name, op="other", index=index, quoted=quoted, raw=raw)


def lex(text: str, *, powershell: bool = False) -> list[RawCommand]:
    """Split shell ``text`` into simple commands (raises :class:`ShellSyntaxError`)."""
    return Lexer(text, powershell=powershell).commands()
