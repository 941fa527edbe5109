"""``--set`` and ``-f`` of the ``helm install|upgrade|template`` commands in scripts beside a chart.

A chart is often installed by a script next to it (``deploy.sh``, a Makefile): the values that
install uses are those of the command line over the chart's ``values.yaml``. This module finds, in
the shell scripts and Makefiles of the chart's folder, its parent and its grandparent, each
``helm install|upgrade|template`` command whose chart argument is the chart's folder (relative to the
script's folder or to the lint root) and reads its ``--set``/``--set-string`` pairs and ``-f``/``--values``
files (Helm's precedence: ``--set`` over the ``-f`` files, the later ``-f`` over the earlier).

Only plain forms are read: ``a.b.c=value`` with a literal value. A command with a shell variable, a
command substitution, a list index (``a[0]=x``) or ``--set-file``/``--set-json`` is left alone (never
guessed). ``--set`` types as Helm's strvals does: ``true``/``false`` booleans, integers int64 (printed
as written, not as floats), ``null`` removes the key; ``--set-string`` keeps strings.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from yaml.error import Mark

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import record
from vlint.sources.base import OutsideRoot, ReadFile, SourceError, SourceText
from vlint.sources.kube.k8s_common import LineIndex
from vlint.sources.render.unrendered import SetValues
from vlint.sources.yaml_nodes import MappingNode, ScalarNode

#: scripts read per chart
_MAX_SCRIPTS = 40
_SCRIPT = lazy_compile(r"(\.(sh|bash|mk|make)|^Makefile|^GNUmakefile|^justfile)$", re.IGNORECASE)
_SUBCOMMANDS = ("install", "upgrade", "template")
_KEY = lazy_compile(r"^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$")
_INT = lazy_compile(r"^[-+]?\d+$")


@record(slots=True)
class _Word:
    text: str
    start: int
    end: int
    #: held a `$`, a backquote or a glob: not a literal
    dynamic: bool = False


@record(slots=True)
class Install:
    """One helm command line that installs the chart: its values files and ``--set`` values."""

    where: str
    files: list[Path]
    sets: SetValues | None


def _commands(text: str) -> list[list[_Word]]:
    """The simple commands of a shell text as words with their offsets (quotes removed, ``\\``-newline
    joined); a command ends at a newline, ``;``, ``&&``, ``||`` or ``|``; ``#`` starts a comment."""
    out: list[list[_Word]] = []
    cur: list[_Word] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] == "\n":
            i += 2
            continue
        if c in " \t\r":
            i += 1
            continue
        if c in "\n;|&":
            if cur:
                out.append(cur)
            cur = []
            i += 1
            continue
        if c == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        start, buf, dynamic = i, [], False
        while i < n and text[i] not in " \t\r\n;|&":
            ch = text[i]
            if ch == "\\" and i + 1 < n:
                if text[i + 1] != "\n":
                    buf.append(text[i + 1])
                i += 2
                continue
            if ch in "'\"":
                close = text.find(ch, i + 1)
                if close < 0:
                    close = n
                part = text[i + 1 : close]
                dynamic = dynamic or (ch == '"' and ("$" in part or "`" in part))
                buf.append(part)
                i = close + 1
                continue
            if ch in "$`*?":
                dynamic = True
            buf.append(ch)
            i += 1
        cur.append(_Word("".join(buf), start, i, dynamic))
    if cur:
        out.append(cur)
    return out


def _scripts(chart: Path, root: Path | None) -> list[Path]:
    found: list[Path] = []
    folder = chart
    for _ in range(3):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            break
        found += [folder / n for n in names if _SCRIPT.search(n) and (folder / n).is_file()]
        if root is not None and folder == root:
            break
        folder = folder.parent
    return found[:_MAX_SCRIPTS]


def installs(chart: Path, root: Path | None, read_file: ReadFile) -> list[Install]:
    """Every helm command in the scripts beside ``chart`` that installs it, in file order."""
    out: list[Install] = []
    target = chart.resolve()
    for script in _scripts(chart, root):
        try:
            src = read_file(script)
        except (SourceError, OutsideRoot):
            continue
        if "helm" not in src.text:
            continue
        lines = LineIndex(src.path, src.text)
        for words in _commands(src.text):
            inst = _install(words, src, lines, script, target, root, read_file)
            if inst is not None:
                out.append(inst)
    return out


def _install(
    words: list[_Word],
    src: SourceText,
    lines: LineIndex,
    script: Path,
    target: Path,
    root: Path | None,
    read_file: ReadFile,
) -> Install | None:
    at = next((k for k, w in enumerate(words[:-1]) if w.text == "helm" and words[k + 1].text in _SUBCOMMANDS), None)
    if at is None:
        return None
    rest = words[at + 2 :]
    files: list[Path] = []
    pairs: list[tuple[_Word, bool]] = []  # (word holding a=b,c=d, as strings)
    is_chart = False
    i = 0
    while i < len(rest):
        w = rest[i]
        name, eq, inline = w.text.partition("=")
        if w.text.startswith("-") and name in ("--set", "--set-string", "-f", "--values"):
            if eq:
                value = _Word(inline, w.start + len(name) + 1, w.end, w.dynamic)
            elif i + 1 < len(rest):
                value = rest[i + 1]
                i += 1
            else:
                return None
            if value.dynamic:
                return None
            if name in ("-f", "--values"):
                path = _resolve(value.text, script, root)
                if path is None:
                    return None
                files.append(path)
            else:
                pairs.append((value, name == "--set-string"))
        elif w.text.startswith(("--set-file", "--set-json", "--set-literal")):
            return None
        elif not w.text.startswith("-") and not w.dynamic:
            path = _resolve(w.text, script, root)
            is_chart = is_chart or (path is not None and path.resolve() == target)
        i += 1
    if not is_chart:
        return None
    line = lines.pos(words[at].start)[0]
    where = f"{src.path}:{line}"
    sets = _set_values(pairs, lines, where) if pairs else None
    if pairs and sets is None:
        return None
    for f in files:
        try:
            read_file(f)
        except (SourceError, OutsideRoot):
            return None
    return Install(where, files, sets)


def _resolve(text: str, script: Path, root: Path | None) -> Path | None:
    for base in (script.parent, root):
        if base is None:
            continue
        p = (base / text).resolve()
        if p.exists():
            return p
    return None


def _mark(lines: LineIndex, offset: int) -> Mark:
    line, col = lines.pos(offset)
    return Mark(lines.path, offset, line - 1, col - 1, None, None)


def _set_values(pairs: list[tuple[_Word, bool]], lines: LineIndex, where: str) -> SetValues | None:
    """The ``--set`` pairs as a values document on the script's characters; None for a form not read."""
    tree: dict[str, object] = {}
    keys: dict[tuple[str, ...], ScalarNode] = {}
    for word, as_string in pairs:
        raw = lines.text[word.start : word.end]
        # quoted in the shell: the value's characters are not the script's, so spans are the word's
        offset_of = word.start if word.text == raw else None
        pos = 0
        for part in re.split(r"(?<!\\),", word.text):
            key, eq, value = part.partition("=")
            if not eq or not _KEY.match(key) or "\\" in part:
                return None
            path = tuple(key.split("."))
            base = offset_of + pos if offset_of is not None else word.start
            vstart = base + len(key) + 1 if offset_of is not None else word.start
            vend = vstart + len(value) if offset_of is not None else word.end
            kend = base + len(key) if offset_of is not None else word.end
            pos += len(part) + 1
            node = _typed(value, as_string, lines, vstart, vend)
            cur = tree
            for k in path[:-1]:
                nxt = cur.setdefault(k, {})
                if not isinstance(nxt, dict):
                    return None
                cur = nxt
            cur[path[-1]] = node
            keys[path] = ScalarNode("tag:yaml.org,2002:str", path[-1], _mark(lines, base), _mark(lines, kend))
    return SetValues(_build(tree, (), keys, lines), lines, where)


def _typed(value: str, as_string: bool, lines: LineIndex, start: int, end: int) -> ScalarNode:
    tag = "tag:yaml.org,2002:str"
    if not as_string:
        if value in ("true", "false"):
            tag = "tag:yaml.org,2002:bool"
        elif value == "null":
            tag = "tag:yaml.org,2002:null"
        elif _INT.match(value):
            # int64 in Helm: false when 0, printed as written, never as a float64 (go_value prints a
            # number with a style as written)
            return ScalarNode("tag:yaml.org,2002:int", value, _mark(lines, start), _mark(lines, end), style="'")
    return ScalarNode(tag, value, _mark(lines, start), _mark(lines, end))


def _build(tree: dict, path: tuple[str, ...], keys: dict, lines: LineIndex) -> MappingNode:
    pairs = []
    for k, v in tree.items():
        sub = (*path, k)
        key = keys.get(sub) or ScalarNode("tag:yaml.org,2002:str", k, _mark(lines, 0), _mark(lines, 0))
        node = _build(v, sub, keys, lines) if isinstance(v, dict) else v
        pairs.append((key, node))
    first = pairs[0][0] if pairs else None
    start = first.start_mark if first is not None else _mark(lines, 0)
    return MappingNode("tag:yaml.org,2002:map", pairs, start, start)
