"""INI-style files as systemd and supervisord read them: ``[section]`` headers and ``key=value``
lines, with each value's characters mapped to their file offsets (:class:`~vlint.sources.containers.dotenv.Mapped`).

The two dialects differ in how a value continues: systemd joins a line that ends in ``\\`` with the
next (the backslash becomes a space; comment lines inside are skipped, systemd.syntax(7)), Python's
configparser (supervisord) continues a value on lines indented deeper than the key. Both start
comments with ``#`` or ``;`` at the start of a line; supervisord also ends a value at `` ;``.
"""

from __future__ import annotations

from vlint.core.record import record
from vlint.sources.containers.dotenv import Mapped


@record(slots=True)
class IniEntry:
    section: str
    key: str
    value: Mapped
    #: offsets of the key (for spans over ``key=value``)
    key_start: int
    key_end: int


def read_ini(text: str, *, dialect: str) -> list[IniEntry]:
    """Every ``key=value`` of the file in order (``dialect``: ``systemd`` or ``configparser``)."""
    entries: list[IniEntry] = []
    section = ""
    lines: list[tuple[int, str]] = []
    offset = 0
    for line in text.split("\n"):
        lines.append((offset, line))
        offset += len(line) + 1
    i = 0
    while i < len(lines):
        start, line = lines[i]
        i += 1
        body = line.strip()
        if not body or body[0] in "#;":
            continue
        if body.startswith("[") and "]" in body:
            section = body[1 : body.index("]")].strip()
            continue
        eq = line.find("=")
        if dialect == "configparser":
            colon = line.find(":")
            if colon >= 0 and (eq < 0 or colon < eq):
                eq = colon
        if eq < 0:
            continue
        key = line[:eq].strip()
        key_start = start + len(line) - len(line.lstrip())
        v = eq + 1
        while v < len(line) and line[v] in " \t":
            v += 1
        if dialect == "systemd":
            value, i = _systemd_value(lines, i, start + v, line[v:])
        else:
            first = _strip_inline_comment(line[v:])
            pieces = [Mapped.verbatim(first.rstrip(), start + v)]
            indent = len(line) - len(line.lstrip())
            while i < len(lines):
                nstart, nline = lines[i]
                nbody = nline.strip()
                if nbody and (len(nline) - len(nline.lstrip())) > indent:
                    lead = len(nline) - len(nline.lstrip())
                    text_part = _strip_inline_comment(nline[lead:]).rstrip()
                    pieces += [Mapped.literal("\n", nstart - 1, nstart), Mapped.verbatim(text_part, nstart + lead)]
                    i += 1
                    continue
                if not nbody and i + 1 < len(lines) and lines[i + 1][1][:1] in " \t" and lines[i + 1][1].strip():
                    i += 1  # a blank line inside an indented continuation
                    continue
                break
            value = Mapped.concat(pieces)
        entries.append(IniEntry(section, key, value, key_start, key_start + len(key)))
    return entries


def _systemd_value(lines: list[tuple[int, str]], i: int, at: int, first: str) -> tuple[Mapped, int]:
    pieces: list[Mapped] = []
    part, at_part = first.rstrip(), at
    while True:
        run = len(part) - len(part.rstrip("\\"))
        if run % 2 == 0 or i >= len(lines):
            pieces.append(Mapped.verbatim(part, at_part))
            return Mapped.concat(pieces), i
        pieces.append(Mapped.verbatim(part[:-1], at_part))
        pieces.append(Mapped.literal(" ", at_part + len(part) - 1, at_part + len(part)))
        # comment lines inside a continuation are skipped (systemd.syntax(7))
        while i < len(lines) and lines[i][1].lstrip()[:1] in ("#", ";"):
            i += 1
        if i >= len(lines):
            return Mapped.concat(pieces), i
        at_part, part = lines[i][0], lines[i][1].rstrip()
        i += 1


def _strip_inline_comment(value: str) -> str:
    """configparser with ``inline_comment_prefixes=(";",)`` (supervisord): `` ;`` starts a comment."""
    for k, ch in enumerate(value):
        if ch == ";" and k > 0 and value[k - 1] in " \t":
            return value[:k]
    return value
