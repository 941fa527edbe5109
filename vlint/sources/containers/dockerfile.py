"""Dockerfiles, and what a container runs: ENTRYPOINT + CMD (or the image's own entry point) + args.

A Dockerfile is read the way BuildKit reads it: parser directives (``# escape=```), ``\\``
continuations (comment and blank lines inside them are dropped), ``FROM`` stages (the last one, or
the compose ``build.target``, is the image), ``ARG`` (build time: usable in ``FROM``, ``ENV``, ``RUN``
— not at run time unless copied into ``ENV``), ``ENV`` (both ``K=V`` and ``K V`` forms), and
``ENTRYPOINT``/``CMD``/``SHELL`` in exec form (a JSON array, possibly split over lines) or shell form
(``/bin/sh -c "…"``, read as a shell script whose variables come from the container environment).

The container part (:func:`container_launches`) is shared with docker compose: it joins an entry
point and a command the way Docker does, recognises the image's default vLLM entry point
(``vllm/vllm-openai`` images run ``vllm serve``), and finds vLLM launches in the resulting argv with
the shell source's launch detection (wrappers, ``python -m vllm.entrypoints…``, ``sh -c`` bodies).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from pathlib import Path

from vlint.core.invocation import CALLER_ARGS, Fact, Problem, Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record, replace
from vlint.core.span import PositionMap, Span
from vlint.security.secrets import SECRET_ENV
from vlint.sources.base import OutsideRoot, ReadFile, SourceError, SourceResult, SourceText
from vlint.sources.containers.dotenv import Lookup, Mapped, interpolate, split_words
from vlint.sources.containers.images import (
    ImageRef,
    default_entrypoint,
    image_vllm_version,
    parse_image,
    unpinned_why,
)
from vlint.sources.scripts import shell
from vlint.sources.scripts.shell_eval import Var
from vlint.sources.sniffing import dockerfile as sniff  # noqa: F401 - re-exported: callers use dockerfile.sniff

NAME = "dockerfile"

#: path of the scratch text vlint assembles an exec-form argv into (never shown: spans are mapped back)
_VIRTUAL = "\x00argv"
_PLACEHOLDER = lazy_compile(r"\"?\$\{__VLINT_U(\d+)\}\"?")
_SHELLS = {"sh", "bash", "zsh", "dash", "ash", "ksh"}
_PIP_VLLM = lazy_compile(r"\bvllm(?:\[[^\]]*\])?==v?(\d+\.\d+\.\d+(?:\.post\d+)?)")


# -- argv pieces ---------------------------------------------------------------------------------
@record(slots=True)
class Piece:
    """One argv word as written: its text (with per-character origins) and the file it is in."""

    text: Mapped
    posmap: PositionMap
    #: an unresolved value outside quotes: may be any number of words
    opaque: bool = False

    @property
    def span(self) -> Span:
        return self.text.span(self.posmap)

    @property
    def unresolved(self) -> bool:
        return self.text.is_unresolved()

    def token(self) -> Token:
        return Token(self.text.text, self.span, self.unresolved)


def literal_piece(text: str, span: Span) -> Piece:
    """A word vlint supplies itself (the ``/bin/sh -c`` of a shell-form CMD), shown at ``span``."""
    m = Mapped()
    m.add(text, 0, 0)
    return Piece(m, PositionMap(span.path, [(0, span.line, span.column)]))


@record(slots=True)
class Container:
    """What a container launch needs besides its argv."""

    source: str
    label: str
    #: the runtime environment: name → ``NAME=value`` token
    env: dict[str, Token]
    facts: dict[str, Fact]
    #: where a relative ``--config`` path is looked up
    base_dir: Path
    read_file: ReadFile
    #: the vLLM program the image runs when given only arguments (``vllm serve``, ``api_server``,
    #: ``image``), None when the image is not known to run vLLM
    default_program: str | None = None
    #: the image's name says vLLM (``my-vllm:1``): arguments starting with ``--`` go to vLLM
    image_is_vllm: bool = False
    #: where a launch through the image's own entry point is shown
    entry_span: Span | None = None


def container_launches(entrypoint: list[Piece] | None, cmd: list[Piece] | None, c: Container) -> SourceResult:
    """Launches of a container whose ENTRYPOINT is ``entrypoint`` (None: the image's own) and whose
    CMD/arguments are ``cmd``."""
    result = SourceResult()
    if entrypoint is None and c.default_program:
        _image_args_launch(list(cmd or []), c.default_program, c, result)
    elif entrypoint is None and c.image_is_vllm and cmd and cmd[0].text.text.startswith("--"):
        _image_args_launch(list(cmd), "image", c, result)
    else:
        _argv_launches([*(entrypoint or []), *(cmd or [])], c, result)
    return result


#: the argv that the image's own entry point stands for, by program
_PROGRAM_ARGV = {
    "vllm serve": ("vllm", "serve"),
    "image": ("vllm", "serve"),
    "api_server": ("python3", "-m", "vllm.entrypoints.openai.api_server"),
}


def _image_args_launch(args: list[Piece], program: str, c: Container, result: SourceResult) -> None:
    """The image's entry point runs vLLM; ``args`` are its arguments — unless they repeat it."""
    if args and not args[0].unresolved:
        probe = SourceResult()
        prefix = [literal_piece("vllm", args[0].span)] if args[0].text.text == "serve" else []
        if prefix and program not in ("vllm serve", "image"):
            prefix = []
        _argv_launches([*prefix, *args], c, probe)
        if probe.invocations and _starts_at(probe.invocations[0].span, args[0].span):
            inv = probe.invocations[0]
            # the words before the launch's own arguments repeat the entry point
            repeated = args[: len(args) - len(inv.args)]
            words = " ".join(p.text.text for p in repeated) or args[0].text.text
            runs = " ".join(_PROGRAM_ARGV[program]) if program in _PROGRAM_ARGV else program
            inv.facts["duplicate_serve"] = Fact(words, args[0].span, f"the image already runs {runs}")
            if program == "image":
                inv.program = "image"
            merge_result(probe, result)
            return
        script_at = _shell_body(args)
        if probe.invocations and script_at is not None and program in _PROGRAM_ARGV:
            # CMD ["sh", "-c", "python -m vllm… / vllm serve …"] on an image whose ENTRYPOINT already runs
            # vLLM: the CMD is appended to it, so vLLM gets `sh -c …` as its model and arguments and
            # exits; the launch the script meant is still read (its flags are checked), marked so
            words = " ".join(p.text.text for p in args[:script_at])
            runs = " ".join(_PROGRAM_ARGV[program])
            for inv in probe.invocations:
                inv.facts["duplicate_serve"] = Fact(words, args[0].span, f"the image already runs {runs}")
            merge_result(probe, result)
            return
    sub = SourceResult()
    _argv_launches([*_entry_pieces(program, c, args[0].span if args else None), *args], c, sub)
    for inv in sub.invocations:
        inv.program = program if program == "image" else inv.program
        inv.facts["image_entrypoint"] = Fact(program, None, "the image's own entry point runs the arguments")
    merge_result(sub, result)


def _starts_at(a: Span, b: Span) -> bool:
    return (a.path, a.line, a.column) == (b.path, b.line, b.column)


def _entry_pieces(program: str, c: Container, fallback: Span | None) -> list[Piece]:
    span = c.entry_span or fallback or Span(c.base_dir.as_posix(), 1, 1)
    return [literal_piece(w, span) for w in _PROGRAM_ARGV[program]]


def merge_result(sub: SourceResult, result: SourceResult) -> None:
    """Add what ``sub`` found to ``result`` (the first error wins)."""
    result.invocations.extend(sub.invocations)
    result.assignments.extend(sub.assignments)
    result.linked.extend(sub.linked)
    result.completes.extend(sub.completes)
    if sub.error is not None and result.error is None:
        result.error = sub.error


def _shell_body(argv: list[Piece]) -> int | None:
    """Index of the script in ``sh -c SCRIPT`` / ``bash -lc -- SCRIPT``, else None."""
    if not argv or argv[0].unresolved:
        return None
    if argv[0].text.text.rsplit("/", 1)[-1] not in _SHELLS:
        return None
    j = 1
    seen_c = False
    while j < len(argv):
        t = argv[j].text.text
        if t == "--":
            j += 1
            break
        if not t.startswith("-") or argv[j].unresolved:
            break
        if not t.startswith("--") and "c" in t[1:]:
            seen_c = True
        j += 1
    return j if seen_c and j < len(argv) else None


def _argv_launches(argv: list[Piece], c: Container, result: SourceResult) -> None:
    if not argv:
        return
    body = _shell_body(argv)
    if body is not None:
        _script_launches(argv[body], c, result)
        return
    # an exec-form argv: let the shell source's launch detection read it as one quoted command line
    words: list[str] = []
    ranges: list[tuple[int, int]] = []
    originals: dict[int, str] = {}
    pos = 0
    for k, p in enumerate(argv):
        if p.unresolved:
            originals[k] = p.text.text
            word = f"${{__VLINT_U{k}}}" if p.opaque else f'"${{__VLINT_U{k}}}"'
        else:
            word = "'" + p.text.text.replace("'", "'\\''") + "'"
        ranges.append((pos, pos + len(word)))
        words.append(word)
        pos += len(word) + 1
    sub = shell.extract_from_text(
        " ".join(words),
        PositionMap.at(_VIRTUAL, 1, 1),
        base_dir=c.base_dir,
        read_file=c.read_file,
        env=_shell_env(c.env),
        source=c.source,
    )

    starts = [a for a, _ in ranges]

    def remap(span: Span) -> Span:
        if span.path != _VIRTUAL:
            return span
        off = span.column - 1
        k = bisect_right(starts, off) - 1  # the word starting at or before off (a scan per span was quadratic)
        if k >= 0 and off < ranges[k][1] + 1:
            return argv[k].span
        return argv[0].span

    _collect(sub, c, originals, remap, result)
    if not sub.invocations:
        _wrapper_launches(argv, c, result)


def _wrapper_launches(argv: list[Piece], c: Container, result: SourceResult) -> None:
    """``ENTRYPOINT ["/entrypoint.sh"]`` + ``CMD ["--model", "Qwen/…"]``: the image runs a script of the
    repository (brought in by ``COPY``) whose vLLM launch takes the script's own arguments
    (``exec vllm serve --port 8000 "$@"``). The launch is the script's, with the words the container
    passes in the place of ``"$@"`` (each shown where this file writes it); the script's copy with the
    arguments left open is then dropped (:attr:`SourceResult.completes`). Nothing is built when the
    container passes no arguments (they come from ``docker run``/a pod's ``args``: checked there), when the
    script is not in the repository, or when its launch does not take ``"$@"`` exactly once."""
    k = 1 if len(argv) > 1 and _program_name(argv[0]) in _SHELLS and not argv[1].text.text.startswith("-") else 0
    if k + 1 >= len(argv) or argv[k].unresolved or not argv[k].text.text.startswith("/"):
        return
    try:
        src = c.read_file(Path(argv[k].text.text))
    except SourceError:
        return
    text = shell.drop_final_backslash(src.text.lstrip("\ufeff"))
    sub = shell.extract_from_text(
        text,
        PositionMap.for_text(src.path, text),
        base_dir=src.abspath.parent,
        read_file=c.read_file,
        env=_shell_env(c.env),
        source=c.source,
    )
    given = [p.token() for p in argv[k + 1 :]]
    spliced = []
    for inv in sub.invocations:
        at = [j for j, t in enumerate(inv.args) if t.unresolved and t.text in CALLER_ARGS]
        if len(at) != 1:
            continue
        j = at[0]
        others = inv.args[:j] + inv.args[j + 1 :]
        inv.args = inv.args[:j] + given + inv.args[j + 1 :]
        inv.opaque_args = any(p.opaque for p in argv[k + 1 :]) or any(_many_words(t) for t in others)
        inv.head = c.entry_span
        inv.label = f"{c.label} {argv[k].text.text}"
        for key, f in c.facts.items():
            inv.facts.setdefault(key, f)
        spliced.append(inv)
    if spliced:
        result.invocations.extend(spliced)
        result.completes.append(src.abspath)


def _program_name(p: Piece) -> str:
    return p.text.text.rsplit("/", 1)[-1]


def _many_words(t: Token) -> bool:
    """May this word of a launch stand for several (an unquoted expansion, ``"${A[@]}"``)? Then rules about a
    flag's absence stay silent (:attr:`Invocation.opaque_args`)."""
    return t.unresolved and (
        t.text.startswith(("$", "{{", "`")) or any(m in t.text for m in ("$@", "$*", "[@]}", "[*]}"))
    )


def script_launches(piece: Piece, c: Container) -> SourceResult:
    """Launches in a shell script held in another file (a YAML ``run: |`` block, a ``sh -c`` body),
    run with ``c.env`` as its environment; unresolved parts of the text stay unresolved."""
    result = SourceResult()
    _script_launches(piece, c, result)
    return result


def _script_launches(piece: Piece, c: Container, result: SourceResult) -> None:
    """``sh -c SCRIPT``: the script is shell code run with the container's environment."""
    text, segments, originals = _placeholdered(piece)
    posmap = PositionMap(piece.posmap.path, segments)
    sub = shell.extract_from_text(
        text, posmap, base_dir=c.base_dir, read_file=c.read_file, env=_shell_env(c.env), source=c.source
    )
    _collect(sub, c, originals, lambda s: s, result)


def _placeholdered(piece: Piece) -> tuple[str, list[tuple[int, int, int]], dict[int, str]]:
    """The piece's text with each unresolved range replaced by an unknown shell variable, and a
    position map for it (segments) back into the piece's file."""
    m = piece.text
    out: list[str] = []
    origins: list[int] = []
    originals: dict[int, str] = {}
    k = 0
    ranges = sorted(m.unresolved)
    starts = {a for a, _ in ranges}
    r = 0
    while k < len(m.text):
        if r < len(ranges) and ranges[r][0] == k:
            a, b = ranges[r]
            ph = f"${{__VLINT_U{r}}}"
            originals[r] = m.text[a:b]
            out.append(ph)
            origins.extend(_spread(min(m.lo[a:b]), max(m.hi[a:b]), len(ph)))
            k = b
            r += 1
            continue
        # a run of characters that stand for one stretch of source (a substituted value)
        e = k + 1
        lo, hi = m.lo[k], m.hi[k]
        while e < len(m.text) and m.lo[e] == lo and m.hi[e] == hi and e not in starts:
            e += 1
        out.append(m.text[k:e])
        origins.extend(_spread(m.lo[k], m.hi[k], e - k) if m.hi[k] - m.lo[k] > 1 else m.lo[k:e])
        k = e
    segments = piece.posmap.segments_of(origins)
    return "".join(out), segments or [(0, *piece.posmap.position(0))], originals


def _spread(lo: int, hi: int, n: int) -> list[int]:
    """``n`` characters standing for source ``[lo, hi)``: the first at ``lo``, the last at ``hi - 1``,
    so a word made of them spans the whole source text."""
    width = max(1, hi - lo)
    step = min(n, width - 1)  # lo, lo + 1, … then the last source character repeated
    out = [*range(lo, lo + step), *[lo + width - 1] * (n - step)]
    if out:
        out[-1] = lo + width - 1
    return out


def _shell_env(env: dict[str, Token]) -> dict[str, Var]:
    return {k: Var(None if t.unresolved else t.text, exported=True, span=t.span) for k, t in env.items()}


def _restore(tok: Token, originals: dict[int, str], remap: Callable[[Span], Span]) -> Token:
    span = remap(tok.span)
    if "__VLINT_U" not in tok.text:
        return Token(tok.text, span, tok.unresolved) if span is not tok.span else tok
    text = _PLACEHOLDER.sub(lambda m: originals.get(int(m.group(1)), m.group(0)), tok.text)
    return Token(text, span, True)


def _collect(
    sub: SourceResult, c: Container, originals: dict[int, str], remap: Callable[[Span], Span], result: SourceResult
) -> None:
    for inv in sub.invocations:
        launch_span = inv.span
        inv.args = [_restore(t, originals, remap) for t in inv.args]
        env: dict[str, Token] = {}
        for name, tok in inv.env.items():
            if name in c.env and tok.span == launch_span:
                env[name] = c.env[name]  # the container's variable, where it is set
            else:
                env[name] = _restore(tok, originals, remap)
        inv.env = env
        inv.span = remap(launch_span)
        if inv.head is not None:  # the word the command starts at (a wrapper's, a docker run's) in the argv
            inv.head = remap(inv.head)
        inv.facts = {k: replace(f, span=remap(f.span)) if f.span is not None else f for k, f in inv.facts.items()}
        for k, f in c.facts.items():
            inv.facts.setdefault(k, f)
        inv.problems = [replace(p, span=remap(p.span)) for p in inv.problems]
        inv.label = inv.label or c.label
        result.invocations.append(inv)
    for name, tok in sub.assignments:
        result.assignments.append((name, _restore(tok, originals, remap)))
    result.linked.extend(sub.linked)
    if sub.error is not None and result.error is None:
        result.error = sub.error


# -- Dockerfile instructions ---------------------------------------------------------------------
@record(slots=True)
class Instruction:
    keyword: str
    #: the arguments (continuations joined), with offsets into the file text as origins
    args: Mapped
    keyword_span: Span
    line: int


_DIRECTIVE = lazy_compile(r"^\s*#\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(\S+)\s*$")
_HEREDOC = lazy_compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


def parse_instructions(text: str, path: str) -> tuple[list[Instruction], str]:
    """The instructions of a Dockerfile and its escape character."""
    posmap = PositionMap.for_text(path, text)
    escape = "\\"
    lines = text.split("\n")
    starts: list[int] = []
    off = 0
    for ln in lines:
        starts.append(off)
        off += len(ln) + 1
    out: list[Instruction] = []
    directives = True
    i = 0
    while i < len(lines):
        line = lines[i]
        if directives:
            m = _DIRECTIVE.match(line)
            if m and m.group(1).lower() in ("escape", "syntax", "check"):
                if m.group(1).lower() == "escape" and m.group(2) in ("\\", "`"):
                    escape = m.group(2)
                i += 1
                continue
            directives = False
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        first_line = i
        body = Mapped()
        while True:
            content = lines[i]
            trimmed = content.rstrip(" \t\r")
            if trimmed.endswith(escape):
                body.add_mapped(Mapped.verbatim(trimmed[:-1], starts[i]))
                i += 1
                while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#")):
                    i += 1
                if i >= len(lines):
                    break
                continue
            body.add_mapped(Mapped.verbatim(content, starts[i]))
            i += 1
            break
        s = body.text
        k = len(s) - len(s.lstrip())
        e = k
        while e < len(s) and not s[e].isspace():
            e += 1
        keyword = s[k:e].upper()
        a = e
        while a < len(s) and s[a].isspace():
            a += 1
        args = body.slice(a, len(s.rstrip()))
        out.append(Instruction(keyword, args, body.span(posmap, k, e), first_line + 1))
        if keyword in ("RUN", "COPY", "ADD"):
            hd = _HEREDOC.search(args.text)
            if hd is not None:
                delim = hd.group(2)
                while i < len(lines) and lines[i].strip() != delim:
                    i += 1
                i += 1
    return out, escape


def _flags(args: Mapped) -> tuple[dict[str, str], Mapped]:
    """Leading ``--name=value`` flags of an instruction, and the rest."""
    flags: dict[str, str] = {}
    s = args.text
    k = 0
    while s.startswith("--", k):
        e = k
        while e < len(s) and not s[e].isspace():
            e += 1
        name, _, value = s[k + 2 : e].partition("=")
        flags[name.lower()] = value
        while e < len(s) and s[e].isspace():
            e += 1
        k = e
    return flags, args.slice(k, len(s))


def exec_form(args: Mapped) -> list[Mapped] | None:
    """The strings of a JSON-array argument (``["a", "b"]``), each with origins; None when the text
    is not a JSON array of strings (Docker then runs it in shell form)."""
    s = args.text
    i = 0
    n = len(s)

    def ws(j: int) -> int:
        while j < n and s[j] in " \t\r\n":
            j += 1
        return j

    i = ws(i)
    if i >= n or s[i] != "[":
        return None
    i = ws(i + 1)
    items: list[Mapped] = []
    if i < n and s[i] == "]":
        return items if ws(i + 1) == n else None
    while i < n:
        if s[i] != '"':
            return None
        item = Mapped()
        j = i + 1
        while j < n and s[j] != '"':
            if s[j] == "\\" and j + 1 < n:
                esc = s[j + 1]
                if esc == "u" and j + 5 < n + 1:
                    try:
                        item.add(chr(int(s[j + 2 : j + 6], 16)), args.lo[j], args.hi[min(j + 5, n - 1)])
                    except ValueError:
                        return None
                    j += 6
                    continue
                decoded = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(esc, esc)
                item.add(decoded, args.lo[j], args.hi[j + 1])
                j += 2
                continue
            item.add_mapped(args.slice(j, j + 1))
            j += 1
        if j >= n:
            return None
        items.append(item)
        i = ws(j + 1)
        if i < n and s[i] == ",":
            i = ws(i + 1)
            continue
        if i < n and s[i] == "]":
            return items if ws(i + 1) == n else None
        return None
    return None


# -- stages --------------------------------------------------------------------------------------
@record(slots=True)
class EnvValue:
    token: Token
    value: Mapped
    #: ARG names the value was built from (``ENV MODEL=$MODEL``)
    from_args: set[str] = field(default_factory=set)


@record(slots=True)
class ArgDecl:
    name: str
    #: the value at build time (build arg, else default); None when neither is given
    value: Mapped | None
    span: Span


@record(slots=True)
class Stage:
    name: str | None
    image: ImageRef | None
    image_text: str
    image_span: Span
    parent: Stage | None = None
    args: dict[str, ArgDecl] = field(default_factory=dict)
    env: dict[str, EnvValue] = field(default_factory=dict)
    entrypoint: list[Piece] | None = None
    entrypoint_set: bool = False
    entrypoint_instr: Instruction | None = None
    cmd: list[Piece] | None = None
    cmd_set: bool = False
    cmd_instr: Instruction | None = None
    shell: list[str] = field(default_factory=lambda: ["/bin/sh", "-c"])
    copies: list[tuple[list[str], str]] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    pip_vllm: tuple[str, Span] | None = None

    def chain(self) -> list[Stage]:
        out: list[Stage] = []
        s: Stage | None = self
        while s is not None and s not in out:
            out.append(s)
            s = s.parent
        return out[::-1]

    @property
    def root_image(self) -> tuple[ImageRef | None, str, Span]:
        root = self.chain()[0]
        return root.image, root.image_text, root.image_span


@record(slots=True)
class Dockerfile:
    path: str
    abspath: Path
    stages: list[Stage]
    global_args: dict[str, ArgDecl]
    escape: str
    posmap: PositionMap
    #: every ``ENV``/``ARG`` default written in the file (secrets live there too)
    assignments: list[tuple[str, Token]] = field(default_factory=list)
    #: names of build arguments the file declares anywhere (global or in a stage)
    declared: set[str] = field(default_factory=set)

    def stage(self, target: str | None = None) -> Stage | None:
        if target:
            for s in self.stages:
                if s.name == target:
                    return s
        return self.stages[-1] if self.stages else None


def load_dockerfile(src: SourceText, build_args: dict[str, Token] | None = None) -> Dockerfile:
    """Read a Dockerfile; ``build_args`` (compose ``build.args``) override ``ARG`` defaults."""
    instructions, escape = parse_instructions(src.text, src.path)
    posmap = PositionMap.for_text(src.path, src.text)
    build_args = build_args or {}
    df = Dockerfile(src.path, src.abspath, [], {}, escape, posmap)
    stage: Stage | None = None
    by_name: dict[str, Stage] = {}
    for ins in instructions:
        kw = ins.keyword
        if kw == "FROM":
            stage = _from(ins, df, by_name)
            df.stages.append(stage)
            continue
        if kw == "ARG":
            _arg(ins, df, stage, build_args)
            continue
        if stage is None:
            continue
        if kw == "ENV":
            _env(ins, df, stage)
        elif kw in ("ENTRYPOINT", "CMD"):
            pieces = _command_pieces(ins, stage, posmap)
            if kw == "ENTRYPOINT":
                stage.entrypoint, stage.entrypoint_set, stage.entrypoint_instr = pieces, True, ins
            else:
                stage.cmd, stage.cmd_set, stage.cmd_instr = pieces, True, ins
        elif kw == "SHELL":
            items = exec_form(ins.args)
            if items:
                stage.shell = [m.text for m in items]
        elif kw in ("COPY", "ADD"):
            _flagset, rest = _flags(ins.args)
            items = exec_form(rest)
            words = [m.text for m in items] if items is not None else [w.text.text for w in split_words(rest)]
            if len(words) >= 2:
                stage.copies.append((words[:-1], words[-1]))
        elif kw == "RUN":
            stage.runs.append(ins.args.text)
            m = _PIP_VLLM.search(ins.args.text)
            if m is not None and stage.pip_vllm is None:
                stage.pip_vllm = (m.group(1), ins.args.span(posmap, m.start(), m.end()))
    return df


def _vars(df: Dockerfile, stage: Stage | None) -> Lookup:
    """Variables for ``${…}`` substitution in a stage (ENV wins over ARG; others are unset)."""

    def lookup(name: str) -> tuple[str, str | Mapped | None]:
        if stage is not None:
            for s in reversed(stage.chain()):
                if name in s.env:
                    return "set", s.env[name].value
            decl = stage.args.get(name)
            if decl is not None:
                return ("set", decl.value) if decl.value is not None else ("unknown", None)
            return "unset", None
        decl = df.global_args.get(name)
        if decl is not None:
            return ("set", decl.value) if decl.value is not None else ("unknown", None)
        return "unset", None

    return lookup


def _from(ins: Instruction, df: Dockerfile, by_name: dict[str, Stage]) -> Stage:
    _f, rest = _flags(ins.args)
    words = split_words(rest)
    image_m = interpolate(words[0].text, _vars(df, None), escape=df.escape) if words else Mapped()
    name = words[2].text.text.lower() if len(words) >= 3 and words[1].text.text.lower() == "as" else None
    image_span = image_m.span(df.posmap) if words else ins.keyword_span
    parent = by_name.get(image_m.text.lower())
    image = None if parent is not None or image_m.is_unresolved() else parse_image(image_m.text)
    stage = Stage(name, image, image_m.text, image_span, parent=parent)
    if parent is not None:
        stage.shell = list(parent.shell)
    if name:
        by_name[name] = stage
    return stage


def _arg(ins: Instruction, df: Dockerfile, stage: Stage | None, build_args: dict[str, Token]) -> None:
    for w in split_words(ins.args, escape=df.escape):
        name, eq, _ = w.text.text.partition("=")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            continue
        df.declared.add(name)
        span = w.text.span(df.posmap)
        value: Mapped | None = None
        if name in build_args:
            tok = build_args[name]
            value = Mapped()
            value.add(tok.text, 0, 0)
            if tok.unresolved:
                value.unresolved.append((0, len(tok.text)))
        elif eq:
            raw = w.text.slice(len(name) + 1, len(w.text.text))
            value = interpolate(raw, _vars(df, stage), escape=df.escape)
            df.assignments.append((name, Token(value.text, span, value.is_unresolved())))
        elif stage is not None and name in df.global_args:
            value = df.global_args[name].value
        decl = ArgDecl(name, value, span)
        if stage is None:
            df.global_args[name] = decl
        else:
            stage.args[name] = decl


def _env(ins: Instruction, df: Dockerfile, stage: Stage) -> None:
    words = split_words(ins.args, escape=df.escape)
    if not words:
        return
    pairs: list[tuple[str, Mapped, Span]] = []
    if "=" not in words[0].text.text:
        # legacy form: ENV NAME the rest of the line
        name = words[0].text.text
        s = ins.args.text
        start = len(s) - len(s.lstrip())
        start += len(name)
        while start < len(s) and s[start].isspace():
            start += 1
        rest = ins.args.slice(start, len(s))
        quoted = split_words(rest, escape=df.escape)
        value = quoted[0].text if len(quoted) == 1 else rest  # one quoted word: its quotes go
        pairs.append((name, value, ins.args.span(df.posmap)))
    else:
        for w in words:
            name, eq, _ = w.text.text.partition("=")
            if not eq:
                continue
            pairs.append((name, w.text.slice(len(name) + 1, len(w.text.text)), w.text.span(df.posmap)))
    for name, raw, span in pairs:
        used: set[str] = set()
        base = _vars(df, stage)

        def lookup(var: str, _base: Lookup = base, _used: set[str] = used) -> tuple[str, str | Mapped | None]:
            _used.add(var)
            return _base(var)

        value = interpolate(raw, lookup, escape=df.escape)
        tok = Token(value.text, span, value.is_unresolved())
        if used and SECRET_ENV.match(name):
            tok = Token(raw.text, span, True)  # ENV HF_TOKEN=$HF_TOKEN: the secret is where the ARG is given
        from_args = {u for u in used if u in stage.args}
        stage.env[name] = EnvValue(tok, value, from_args)
        df.assignments.append((name, tok))


def _command_pieces(ins: Instruction, stage: Stage, posmap: PositionMap) -> list[Piece]:
    items = exec_form(ins.args)
    if items is not None:
        return [Piece(m, posmap) for m in items]
    shell_words = [literal_piece(w, ins.keyword_span) for w in stage.shell]
    return [*shell_words, Piece(ins.args, posmap)]


# -- the image a Dockerfile builds ---------------------------------------------------------------
@record(slots=True)
class ImageConfig:
    """What ``docker run IMAGE`` does for the image a Dockerfile builds."""

    dockerfile: Dockerfile
    stage: Stage
    #: None: the base image's own entry point runs (``program`` says which vLLM program, if any)
    entrypoint: list[Piece] | None
    cmd: list[Piece] | None
    program: str | None
    image: ImageRef | None
    image_text: str
    image_span: Span
    env: dict[str, Token]
    #: the instruction the launch is shown at
    entry_span: Span


def image_config(df: Dockerfile, target: str | None = None) -> ImageConfig | None:
    stage = df.stage(target)
    if stage is None:
        return None
    entrypoint: list[Piece] | None = None
    cmd: list[Piece] | None = None
    ep_instr: Instruction | None = None
    cmd_instr: Instruction | None = None
    env: dict[str, Token] = {}
    for s in stage.chain():
        if s.entrypoint_set:
            entrypoint, ep_instr = s.entrypoint, s.entrypoint_instr
            if not s.cmd_set:
                cmd, cmd_instr = None, None  # Docker: a new ENTRYPOINT resets the inherited CMD
        if s.cmd_set:
            cmd, cmd_instr = s.cmd, s.cmd_instr
        for name, ev in s.env.items():
            env[name] = ev.token
    image, text, span = stage.root_image
    program = default_entrypoint(image) if image is not None and entrypoint is None else None
    shown = ep_instr or cmd_instr
    return ImageConfig(
        df, stage, entrypoint, cmd, program, image, text, span, env, shown.keyword_span if shown else span
    )


def image_facts(image: ImageRef | None, span: Span | None, detail: str) -> dict[str, Fact]:
    facts: dict[str, Fact] = {}
    if image is None:
        return facts
    facts["image"] = Fact(image.raw, span, detail)
    version = image_vllm_version(image)
    if version is not None:
        facts["vllm_version"] = Fact(str(version), span, f"image tag {image.raw}")
    return facts


@record(frozen=True, slots=True)
class LostBuildArg:
    """A build argument the run-time command reads although it never reaches the container."""

    name: str
    #: where the argument is given (compose ``build.args``) or declared (``ARG``)
    span: Span
    value: str | None
    reason: str


def lost_build_args(df: Dockerfile, stage: Stage, given: dict[str, Token] | None = None) -> Fact | None:
    """The ``lost_build_args`` fact (VL606): build arguments ``CMD``/``ENTRYPOINT`` read at run time.

    A build argument exists only while the image is built; the container sees it only when an
    ``ENV`` copies it. ``given`` are the build arguments passed in (compose ``build.args``)."""
    chain = stage.chain()
    runtime_text = " ".join(i.args.text for s in chain for i in (s.entrypoint_instr, s.cmd_instr) if i is not None)
    reaching = {a for s in chain for ev in s.env.values() for a in ev.from_args} | {n for s in chain for n in s.env}
    lost: list[LostBuildArg] = []
    for name in dict.fromkeys([*(given or {}), *(a for s in chain for a in s.args)]):
        if name in reaching or not re.search(r"\$\{?" + re.escape(name) + r"\b", runtime_text):
            continue
        tok = (given or {}).get(name)
        decl = next((s.args[name] for s in chain if name in s.args), None)
        span = tok.span if tok is not None else decl.span if decl is not None else stage.image_span
        reason = (
            f"{df.path} declares ARG {name} but no ENV copies it into the container"
            if decl is not None
            else f"{df.path} never declares ARG {name} (the build ignores it)"
        )
        lost.append(LostBuildArg(name, span, tok.text if tok is not None else None, reason))
    return Fact(lost, lost[0].span, "build arguments the command reads") if lost else None


# -- the source ----------------------------------------------------------------------------------


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    df = load_dockerfile(src)
    result = SourceResult(assignments=list(df.assignments))
    cfg = image_config(df)
    if cfg is None:
        return result
    if cfg.entrypoint is None and cfg.cmd is None:
        # FROM vllm/vllm-openai plus layers, no CMD or ENTRYPOINT of its own: a base image. Its launch
        # is written where it runs (docker run, compose, a pod's args) with the model given there;
        # those sources read this Dockerfile's facts through ``build:``/the image, not as a launch here.
        # What it pins is still this file's: a floating vLLM base image is VL603 here.
        result.problems.extend(_floating_vllm_base(cfg))
        return result
    base_dir = src.abspath.parent
    facts = image_facts(cfg.image, cfg.image_span, f"FROM {cfg.image_text}")
    pip = next((s.pip_vllm for s in cfg.stage.chain() if s.pip_vllm), None)
    if pip is not None and "vllm_version" not in facts:
        facts["vllm_version"] = Fact(pip[0], pip[1], f"pip install vllm=={pip[0]}")
    lost = lost_build_args(df, cfg.stage)
    if lost is not None:
        facts["lost_build_args"] = lost
    c = Container(
        source=NAME,
        label="Dockerfile " + ("ENTRYPOINT" if cfg.entrypoint is not None else "CMD"),
        env=cfg.env,
        facts=facts,
        base_dir=base_dir,
        read_file=container_reader(copy_mounts(cfg, base_dir), read_file),
        default_program=cfg.program,
        image_is_vllm=cfg.image is not None and cfg.image.is_vllm,
        entry_span=cfg.entry_span,
    )
    found = container_launches(cfg.entrypoint, cfg.cmd, c)
    merge_result(found, result)
    scripts = entry_scripts(cfg, base_dir, read_file)
    result.linked = list(dict.fromkeys([*result.linked, *scripts]))
    if not found.invocations and not scripts:
        # the image runs something else (ENTRYPOINT ["/bin/bash"], a tool of its own): vLLM is started
        # by hand or elsewhere, from this image, so its floating vLLM base is still this file's VL603
        result.problems.extend(_floating_vllm_base(cfg))
    return result


def _floating_vllm_base(cfg: ImageConfig) -> list[Problem]:
    """VL603 on the ``FROM`` of an image built on a floating vLLM tag (``latest``, a nightly, none)."""
    why = unpinned_why(cfg.image) if cfg.image is not None and cfg.image.is_vllm else None
    if why is None or cfg.image is None or cfg.image_span is None:
        return []
    msg = (
        f"image {cfg.image.raw} is not pinned ({why}): each pull can bring another vLLM release, "
        "with other defaults and flags"
    )
    data = {"image": cfg.image.raw, "tag": cfg.image.tag or None, "why": why}
    return [Problem("VL603", cfg.image_span, msg, data)]


def entry_scripts(cfg: ImageConfig, base_dir: Path, read_file: ReadFile) -> list[Path]:
    """Scripts the image runs that the Dockerfile copies in from next to itself (``COPY entrypoint.sh
    /`` + ``ENTRYPOINT ["/entrypoint.sh"]``, ``CMD ["python3", "/srv/handler.py"]``): the link is
    explicit, and the shell (or Python) source lints them."""
    argv = [*(cfg.entrypoint or []), *(cfg.cmd or [])]
    names = {p.text.text.rsplit("/", 1)[-1] for p in argv if not p.unresolved}
    names -= _SHELLS | {""}
    out: list[Path] = []
    for s in cfg.stage.chain():
        for srcs, _dest in s.copies:
            for src in srcs:
                if src.rsplit("/", 1)[-1] not in names or src.startswith(("http://", "https://")):
                    continue
                p = base_dir / src
                try:
                    read_file(p)
                except SourceError:
                    continue
                if p not in out:
                    out.append(p)
    return out


@record(frozen=True, slots=True)
class Mount:
    """A container path whose contents come from a file or folder of the repository."""

    target: str
    host: Path
    #: how users see it: ``volume ./configs/vllm.yaml``, ``COPY config.yaml``
    how: str


def copy_mounts(cfg: ImageConfig, base_dir: Path) -> list[Mount]:
    """``COPY``/``ADD`` of repository files to absolute container paths (the build context is taken
    to be the Dockerfile's folder, or what compose names)."""
    out: list[Mount] = []
    for s in cfg.stage.chain():
        for srcs, dest in s.copies:
            if not dest.startswith("/") or any(c in dest for c in "$*?"):
                continue
            for src in srcs:
                if src.startswith(("http://", "https://", "--")) or any(c in src for c in "$*?"):
                    continue
                name = src.rstrip("/").rsplit("/", 1)[-1]
                if dest.endswith("/") or len(srcs) > 1:
                    out.append(Mount(dest.rstrip("/") + "/" + name, base_dir / src, f"COPY {src}"))
                else:
                    out.append(Mount(dest, base_dir / src, f"COPY {src}"))
                    out.append(Mount(dest.rstrip("/") + "/" + name, base_dir / src, f"COPY {src}"))
    return out


def container_reader(mounts: list[Mount], read_file: ReadFile) -> ReadFile:
    """Read a file named on a container's command line (a path inside the container) through the
    mounts that bring it from the repository; anything else cannot be seen."""
    ordered = sorted(mounts, key=lambda m: -len(m.target))

    def read(path: Path) -> SourceText:
        posix = path.as_posix()
        for m in ordered:
            target = m.target.rstrip("/") or "/"
            if posix == target or posix.startswith(target + "/"):
                rest = posix[len(target) :].lstrip("/")
                try:
                    return read_file(m.host / rest if rest else m.host)
                except OutsideRoot as e:
                    raise OutsideRoot(e.path, f"{posix} (from {m.how}: {e.shown})", e.why) from None
                except SourceError as e:
                    raise SourceError(f"{posix} comes from {m.how}: {e.message}", e.line, e.column) from None
        raise SourceError(f"{posix} is a path inside the container, and nothing maps it from the repository")

    return read
