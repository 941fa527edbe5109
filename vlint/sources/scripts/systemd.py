"""systemd service units (``*.service``): the ``ExecStart=`` of ``[Service]`` with its environment.

systemd.service(5) and systemd.exec(5):

* ``ExecStart=`` may start with the prefixes ``@`` (the second word is argv[0], not an argument),
  ``-``, ``:`` (no variable substitution), ``+``, ``!``, ``!!``; an empty ``ExecStart=`` resets the
  list; the command line is split by systemd (quotes, backslash escapes) — no shell — and
  ``$VAR``/``${VAR}`` are replaced from the unit's environment; ``%`` specifiers (``%i``, ``%h``…) are
  the unit manager's (unresolved here) and ``%%`` is ``%``;
* ``Environment="A=1" B=2`` assignments, and ``EnvironmentFile=[-]PATH`` (``KEY=VALUE`` lines, read
  only inside the lint root: a path on the target host such as ``/etc/default/vllm`` is reported, not
  read); variables from the files override ``Environment=`` ones. A file named again is read once.

A ``/bin/sh -c "…"`` command line is read as the shell script it runs.
"""

from __future__ import annotations

from pathlib import Path

from vlint.core.invocation import Problem, Token
from vlint.core.record import field, record
from vlint.core.span import PositionMap, Span
from vlint.sources.base import ReadFile, SourceError, SourceResult, SourceText, refused
from vlint.sources.containers.dockerfile import Container, Piece, merge_result, script_launches
from vlint.sources.containers.dotenv import Mapped, parse_dotenv, split_words
from vlint.sources.scripts.ini import IniEntry, read_ini
from vlint.sources.sniffing import systemd as sniff  # noqa: F401 - re-exported: callers use systemd.sniff

NAME = "systemd"

_PREFIXES = "@-:+!"


@record(slots=True)
class _EnvFiles:
    """What the unit's ``EnvironmentFile=`` lines set, in order (a later file overrides)."""

    values: dict[str, Token] = field(default_factory=dict)
    #: each file read: path as named → its variables (fifty lines naming one file read it once)
    read: dict[Path, list[tuple[str, Token]]] = field(default_factory=dict)


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    posmap = PositionMap.for_text(src.path, src.text)
    env: dict[str, Token] = {}
    from_files = _EnvFiles()
    starts: list[IniEntry] = []
    for e in read_ini(src.text, dialect="systemd"):
        if e.section != "Service":
            continue
        if e.key == "Environment":
            for name, tok in _assignments(e.value, posmap):
                env[name] = tok
                result.assignments.append((name, tok))
        elif e.key == "EnvironmentFile":
            _environment_file(e, src, posmap, read_file, from_files, result)
        elif e.key == "ExecStart":
            if not e.value.text.strip():
                starts.clear()  # an empty assignment resets the list
            else:
                starts.append(e)
    env.update(from_files.values)
    unit = src.abspath.name
    for e in starts:
        command = _command(e.value)
        if command is None:
            continue
        c = Container(NAME, f"ExecStart of {unit}", env, {}, src.abspath.parent, read_file)
        found = script_launches(Piece(command, posmap), c)
        merge_result(found, result)
    return result


def _assignments(value: Mapped, posmap: PositionMap) -> list[tuple[str, Token]]:
    out: list[tuple[str, Token]] = []
    for w in split_words(value):
        name, eq, _ = w.text.text.partition("=")
        if not eq or not name:
            continue
        v = w.text.slice(len(name) + 1, len(w.text.text))
        out.append((name, Token(v.text, w.text.span(posmap), False)))
    return out


def _environment_file(
    e: IniEntry,
    src: SourceText,
    posmap: PositionMap,
    read_file: ReadFile,
    files: _EnvFiles,
    result: SourceResult,
) -> None:
    text = e.value.text.strip()
    optional = text.startswith("-")
    path_text = text[1:] if optional else text
    if not path_text or "%" in path_text:
        return
    path = Path(path_text) if Path(path_text).is_absolute() else src.abspath.parent / path_text
    variables = files.read.get(path)
    if variables is None:
        variables = _read_environment_file(path, path_text, optional, e.value.span(posmap), read_file, result)
        if variables is None:
            return
        files.read[path] = variables
    files.values.update(variables)


def _read_environment_file(
    path: Path, path_text: str, optional: bool, span: Span, read_file: ReadFile, result: SourceResult
) -> list[tuple[str, Token]] | None:
    """The variables an ``EnvironmentFile=`` sets, in file order; None (reported unless optional)
    when it cannot be read."""
    try:
        other = read_file(path)
    except SourceError as err:
        if refused(err, span, result.problems, f"EnvironmentFile={path_text}"):
            return None
        if not optional:
            result.problems.append(
                Problem(
                    "VL010",
                    span,
                    f"EnvironmentFile={path_text} not found or unreadable: {err.message}; the variables it sets "
                    "are not checked",
                    {"config": path_text},
                )
            )
        return None
    result.linked.append(other.abspath)
    variables = [(entry.name, entry.token()) for entry in parse_dotenv(other.text, other.path)]
    result.assignments.extend(variables)
    return variables


def _command(value: Mapped) -> Mapped | None:
    """The command line without systemd's prefixes and with ``%`` specifiers resolved or marked
    unresolved; ``@path argv0 args…`` loses its argv0."""
    text = value.text
    k = 0
    while k < len(text) and text[k] in _PREFIXES:
        k += 1
    prefixes = text[:k]
    body = value.slice(k, len(text))
    lead = len(body.text) - len(body.text.lstrip())
    body = body.slice(lead, len(body.text))
    if not body.text:
        return None
    pieces: list[Mapped] = []
    s = body.text
    specials = "%$" if ":" in prefixes else "%"
    pos = i = 0
    while i < len(s):
        if s[i] not in specials:
            i += 1
            continue
        pieces.append(body.slice(pos, i))
        if s[i] == "$":
            pieces.append(Mapped.literal("\\$", body.lo[i], body.hi[i]))  # `:`: no variable substitution
            pos = i = i + 1
            continue
        if i + 1 < len(s) and s[i + 1] == "%":
            pieces.append(Mapped.literal("%", body.lo[i], body.hi[i + 1]))
        elif i + 1 < len(s):
            pieces.append(Mapped.unresolved_text(s[i : i + 2], body.lo[i], body.hi[i + 1]))
        else:
            pieces.append(body.slice(i, i + 1))
        pos = i = i + 2
    pieces.append(body.slice(pos, len(s)))
    out = Mapped.concat(pieces)
    if "@" in prefixes:
        words = split_words(out)
        if len(words) >= 2:
            # drop the argv[0] word: the shell sees `path args…`
            first_end = len(out.text) - len(out.text.lstrip())
            first_end = out.text.find(words[0].text.text, first_end) + len(words[0].text.text)
            second = out.text.find(words[1].text.text, first_end)
            if second >= 0:
                rest = out.slice(second + len(words[1].text.text), len(out.text))
                head = out.slice(0, first_end)
                out = Mapped()
                out.add_mapped(head)
                out.add_mapped(rest)
    return out
