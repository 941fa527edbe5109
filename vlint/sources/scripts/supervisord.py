"""supervisord programs: ``command=`` of each ``[program:NAME]`` section, with its ``environment=``.

supervisord reads its configuration with Python's configparser (values continue on indented lines,
`` ;`` starts a comment) and expands ``%(ENV_NAME)s`` (the environment supervisord was started with:
unresolved here), ``%(program_name)s``, ``%(process_num)d``, ``%(here)s`` and ``%%`` in ``command``.
The command is split with ``shlex`` and executed directly — no shell (supervisor/options.py,
``ProcessConfig.get_execv_args``) — so a ``bash -c "…"`` command is read as the script it runs.
``environment=KEY="val",KEY2=val`` is a comma-separated list of assignments.
"""

from __future__ import annotations

from vlint.core.invocation import Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.span import PositionMap
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.containers.dockerfile import Container, Piece, merge_result, script_launches
from vlint.sources.containers.dotenv import Mapped, split_words
from vlint.sources.expansion_budget import ExpansionBudget, current
from vlint.sources.scripts.ini import read_ini
from vlint.sources.sniffing import supervisord as sniff  # noqa: F401 - re-exported: callers use supervisord.sniff

NAME = "supervisord"

_EXPANSION = lazy_compile(r"%\(([A-Za-z0-9_]+)\)[sd]")


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    posmap = PositionMap.for_text(src.path, src.text)
    programs: dict[str, dict[str, Mapped]] = {}
    budget = current()
    for e in read_ini(src.text, dialect="configparser"):
        if e.section.startswith("program:"):
            programs.setdefault(e.section[len("program:") :].strip(), {})[e.key.lower()] = e.value
    for name, keys in programs.items():
        env: dict[str, Token] = {}
        if "environment" in keys:
            for var, tok in _environment(keys["environment"], posmap):
                env[var] = tok
                result.assignments.append((var, tok))
        command = keys.get("command")
        if command is None or not command.text.strip():
            continue
        c = Container(NAME, f"program {name}", env, {}, src.abspath.parent, read_file)
        found = script_launches(Piece(_expand(command, name, src, budget), posmap), c)
        merge_result(found, result)
    return result


def _expand(value: Mapped, program: str, src: SourceText, budget: ExpansionBudget) -> Mapped:
    """``%(name)s`` replaced by what supervisord knows (the program's name, its folder…) while the
    file's expansion budget lasts; ``%(ENV_X)s`` and what is past the budget are unresolved."""
    known = {"program_name": program, "group_name": program, "process_num": "0", "here": str(src.abspath.parent)}
    pieces: list[Mapped] = []  # joined once (Mapped.concat): appending piece by piece is quadratic
    pos = 0
    s = value.text
    i = s.find("%")
    while i >= 0:
        pieces.append(value.slice(pos, i))
        if s.startswith("%%", i):
            pieces.append(Mapped.literal("%", value.lo[i], value.hi[i + 1]))
            pos = i + 2
        else:
            m = _EXPANSION.match(s, i)
            if m is None:
                pieces.append(value.slice(i, i + 1))
                pos = i + 1
            else:
                lo, hi = value.origin(i, m.end())
                if m.group(1) in known and budget.spend(len(known[m.group(1)])):
                    pieces.append(Mapped.literal(known[m.group(1)], lo, hi))
                else:
                    pieces.append(Mapped.unresolved_text(m.group(0), lo, hi))
                pos = m.end()
        i = s.find("%", pos)
    pieces.append(value.slice(pos, len(s)))
    out = Mapped.concat(pieces)
    # shlex splits on the newlines of a continued value like on blanks (no shell: no second command)
    out.text = out.text.replace("\n", " ")
    return out


def _environment(value: Mapped, posmap: PositionMap) -> list[tuple[str, Token]]:
    """``KEY="v",KEY2=v``: commas outside quotes separate the assignments."""
    out: list[tuple[str, Token]] = []
    parts: list[Mapped] = []
    quote = ""
    start = 0
    s = value.text
    for k, ch in enumerate(s):
        if ch in "'\"" and (not quote or quote == ch):
            quote = "" if quote else ch
        elif ch == "," and not quote:
            parts.append(value.slice(start, k))
            start = k + 1
    parts.append(value.slice(start, len(s)))
    for part in parts:
        words = split_words(part)
        if not words:
            continue
        joined = words[0].text
        name, eq, _ = joined.text.partition("=")
        if not eq:
            continue
        v = joined.slice(len(name) + 1, len(joined.text))
        out.append((name.strip(), Token(v.text, joined.span(posmap), False)))
    return out
