"""Procfiles (Heroku, foreman, honcho, overmind): ``name: command`` per line, each command run by
``/bin/sh -c`` with the app's config vars as its environment (which vlint cannot see: ``$PORT`` and
friends stay unresolved). Lines that are blank or start with ``#`` are skipped."""

from __future__ import annotations

from vlint.core.lazy_re import lazy_compile
from vlint.core.span import PositionMap
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.containers.dockerfile import Container, Piece, merge_result, script_launches
from vlint.sources.containers.dotenv import Mapped
from vlint.sources.sniffing import procfile as sniff  # noqa: F401 - re-exported: callers use procfile.sniff

NAME = "procfile"

#: a process type: letters, digits, ``_`` and ``-`` (foreman's ``^([A-Za-z0-9_-]+):\s*(.+)$``)
_ENTRY = lazy_compile(r"([A-Za-z0-9_-]+):[ \t]*")


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    posmap = PositionMap.for_text(src.path, src.text)
    offset = 0
    for line in src.text.split("\n"):
        start = offset
        offset += len(line) + 1
        m = _ENTRY.match(line)
        if m is None or line.lstrip().startswith("#"):
            continue
        body = line[m.end() :].rstrip()
        if not body:
            continue
        c = Container(NAME, f"process {m.group(1)}", {}, {}, src.abspath.parent, read_file)
        found = script_launches(Piece(Mapped.verbatim(body, start + m.end()), posmap), c)
        merge_result(found, result)
    return result
