"""Turn :class:`~vlint.core.finding.SettingChange` objects into text edits of the original file.

Edits are made by span on the file's text, so comments, quoting, key order and layout stay as they
were; nothing is re-serialised. Where a word lives decides how it is written:

* ``word``: a shell word (a script, a ``bash -c`` body, a YAML block scalar holding a command line).
  Removing a flag that sat alone on a ``\\``-continued line removes the line, and the continuation
  backslash of the line before when it was the command's last line.
* ``item``: an item of a YAML block sequence (``- --max-model-len`` in Kubernetes ``args``); values
  stay strings (``"8192"``), new items copy the indentation and quoting of their neighbour.
* ``flow``: an item of a flow sequence (``["--max-model-len", "8192"]``, JSON exec-form ``CMD``).
* ``entry``: a key of a vLLM ``--config`` mapping (typed YAML values, the file's key spelling).

A change that cannot be written safely raises :class:`CannotApply` with the reason.
"""

from __future__ import annotations

import json
import re
import shlex

from vlint.core.finding import SettingChange
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import record
from vlint.core.span import Span, line_starts
from vlint.core.typing_names import Any

_YAML_SUFFIXES = (".yaml", ".yml")
_SHELL_SAFE = lazy_compile(r"[\w@%+=:,./-]+")
_BLOCK_ITEM_PREFIX = lazy_compile(r"[ \t]*(?:-[ \t]+)+")
_MAP_KEY_AFTER = lazy_compile(r"[ \t]*:(?:[ \t]|$)")
_MAP_VALUE_BEFORE = lazy_compile(r"[ \t]*(?:-[ \t]+)?(?:\"[^\"]*\"|'[^']*'|[^\s#'\"\[{][^#]*?)[ \t]*:[ \t]+")


class CannotApply(Exception):
    """A change vlint will not write (the reason is shown to the user)."""


@record(frozen=True, slots=True)
class TextEdit:
    """Replace ``text[start:end]`` of one file (offsets in its decoded text) by ``new``."""

    path: str
    start: int
    end: int
    new: str

    def overlaps(self, other: TextEdit) -> bool:
        if self.path != other.path:
            return False
        if self.start == self.end or other.start == other.end:  # insertions conflict only inside a range
            point, rng = (self, other) if self.start == self.end else (other, self)
            return rng.start < point.start < rng.end
        return self.start < other.end and other.start < self.end


class Text:
    """A file's text with line offsets (lines and columns are 1-based, columns count characters)."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.starts = line_starts(text)

    def offset(self, line: int, column: int) -> int:
        if line < 1 or line > len(self.starts):
            raise CannotApply(f"line {line} is outside {self.path}")
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        off = start + column - 1
        if column < 1 or off > end + 1:
            raise CannotApply(f"column {column} is outside line {line} of {self.path}")
        return min(off, len(self.text))

    def range(self, span: Span) -> tuple[int, int]:
        a = self.offset(span.line, span.column)
        b = self.offset(span.end_line, span.end_column)
        return a, max(a, b)

    def line_start(self, off: int) -> int:
        return self.text.rfind("\n", 0, off) + 1

    def line_end(self, off: int) -> int:
        """Offset of the newline ending the line that holds ``off`` (or the end of the text)."""
        n = self.text.find("\n", off)
        return len(self.text) if n < 0 else n

    @property
    def is_yaml(self) -> bool:
        return self.path.lower().endswith(_YAML_SUFFIXES)


# -- where a word lives ------------------------------------------------------------------------
def word_range(t: Text, span: Span, target: str) -> tuple[int, int]:
    """The offsets of an argv word, with its quotes when the span holds only what is inside them."""
    a, b = t.range(span)
    if target == "cli" and a > 0 and b < len(t.text):
        q = t.text[a - 1]
        if q in "'\"" and t.text[b] == q and q not in t.text[a:b]:
            return a - 1, b + 1
    return a, b


def container(t: Text, start: int, end: int, target: str) -> str:
    if target == "config":
        return "entry"
    before = t.text[t.line_start(start) : start]
    if t.is_yaml:
        after = t.text[end : t.line_end(end)]
        if _BLOCK_ITEM_PREFIX.fullmatch(before):
            return "item"
        if _MAP_KEY_AFTER.match(after):
            return "key"  # a chart's values key rendered as a flag (Helm ``vllmConfig``)
        if _MAP_VALUE_BEFORE.fullmatch(before) and after.strip()[:1] in ("", "#"):
            return "value"  # the whole value of a mapping key
    prev = t.text[:start].rstrip()
    nxt = t.text[end:].lstrip()
    raw = t.text[start:end]
    if prev[-1:] in ("[", ",") and nxt[:1] in (",", "]") and (_quote_of(raw) or t.is_yaml):
        return "flow"
    return "word"


def _quote_of(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[0]
    return ""


def _unquote(raw: str) -> tuple[str, str]:
    q = _quote_of(raw)
    return (q, raw[1:-1]) if q else ("", raw)


# -- writing values ------------------------------------------------------------------------------
def cli_text(value: Any) -> str:
    """A value as vLLM reads it from one argv word."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


def _plain_yaml_string_ok(text: str) -> bool:
    """Would YAML read ``text`` unquoted as this very string?"""
    from vlint.sources.base import SourceError
    from vlint.sources.yaml_nodes import ScalarNode, compose_all

    if not text or text != text.strip() or "\n" in text:
        return False
    try:
        docs = compose_all(text, "<value>")
    except SourceError:
        return False
    return (
        len(docs) == 1
        and isinstance(docs[0], ScalarNode)
        and docs[0].tag == "tag:yaml.org,2002:str"
        and docs[0].value == text
        and not docs[0].style
    )


def yaml_string(text: str, quote: str = "") -> str:
    """A YAML scalar that reads back as the string ``text`` (argv items must stay strings)."""
    if quote == "'" and "\n" not in text:
        return "'" + text.replace("'", "''") + "'"
    if quote == '"' or not _plain_yaml_string_ok(text):
        return json.dumps(text, ensure_ascii=False)
    return text


def yaml_value(value: Any, quote: str = "") -> str:
    """A typed YAML scalar for a config entry (numbers and booleans plain, strings quoted if needed)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float) and not quote:
        return cli_text(value)
    if isinstance(value, dict | list):
        return json.dumps(value)
    return yaml_string(cli_text(value), quote)


def shell_word(text: str, quote: str = "") -> str:
    if quote and quote not in text and "\\" not in text and (quote == "'" or not re.search(r"[$`\"]", text)):
        return quote + text + quote
    if _SHELL_SAFE.fullmatch(text):
        return text
    return shlex.quote(text)


def _write_word(text: str, kind: str, quote: str) -> str:
    if kind == "word":
        return shell_word(text, quote)
    return yaml_string(text, quote) if kind == "item" or not quote else _flow_string(text, quote)


def _flow_string(text: str, quote: str) -> str:
    if quote == '"':
        return json.dumps(text, ensure_ascii=False)
    return yaml_string(text, quote)


def _check_static(raw: str, what: str) -> None:
    if any(m in raw for m in ("$", "`", "{{")):
        raise CannotApply(f"{what} `{raw}` comes from a variable or template; edit it by hand")


# -- the edits -----------------------------------------------------------------------------------
def edits_for(change: SettingChange, texts: dict[str, Text]) -> list[TextEdit]:
    """The text edits for one change (raises :class:`CannotApply`)."""
    paths = {s.path for s in change.spans} | ({change.anchor.path} if change.anchor else set())
    for p in paths:
        if p not in texts:
            raise CannotApply(f"{p} cannot be edited")
    if change.action == "set":
        return _set(change, texts)
    if change.action == "rename":
        return _rename(change, texts)
    if change.action == "remove":
        return _remove(change, texts)
    if change.action == "add":
        return _add(change, texts)
    raise CannotApply(f"unknown change {change.action!r}")


def _one_line(t: Text, a: int, b: int) -> None:
    if "\n" in t.text[a:b]:
        raise CannotApply(f"a value spanning lines in {t.path}")


def _set(change: SettingChange, texts: dict[str, Text]) -> list[TextEdit]:
    if not change.spans:
        raise CannotApply("no value to replace")
    span = change.spans[0]
    t = texts[span.path]
    a, b = word_range(t, span, change.target)
    raw = t.text[a:b]
    kind = container(t, a, b, change.target)
    if kind in ("entry", "value"):
        if raw.lstrip().startswith(("|", ">", "{", "[")) or "\n" in raw:
            raise CannotApply(f"a block or flow value in {t.path}")
        _check_static(raw, "the value")
        return [TextEdit(t.path, a, b, yaml_value(change.value, _quote_of(raw)))]
    if kind == "key":
        raise CannotApply(f"the value is a key of {t.path}")
    _one_line(t, a, b)
    _check_static(raw, "the value")
    quote, inner = _unquote(raw)
    value = cli_text(change.value)
    if inner.startswith("-") and "=" in inner:  # --flag=value in one word
        value = inner.split("=", 1)[0] + "=" + value
    return [TextEdit(t.path, a, b, _write_word(value, kind, quote))]


def _rename(change: SettingChange, texts: dict[str, Text]) -> list[TextEdit]:
    if not change.spans or not change.option:
        raise CannotApply("nothing to rename")
    span = change.spans[0]
    t = texts[span.path]
    a, b = word_range(t, span, change.target)
    raw = t.text[a:b]
    _one_line(t, a, b)
    _check_static(raw, "the option")
    kind = container(t, a, b, change.target)
    if kind in ("key", "value"):
        raise CannotApply(f"the option is written by a chart key in {t.path}; rename it by hand")
    if kind == "entry":
        key_q, key = _unquote(raw)
        new_key = change.option.lstrip("-")
        if "_" in key and "-" not in key:
            new_key = new_key.replace("-", "_")
        edits = [TextEdit(t.path, a, b, key_q + new_key + key_q if key_q else new_key)]
        if change.value is not None:
            if len(change.spans) < 2:
                raise CannotApply("no value span for the renamed key")
            va, vb = t.range(change.spans[1])
            edits.append(TextEdit(t.path, va, vb, yaml_value(change.value)))
        return edits
    quote, inner = _unquote(raw)
    words = [change.option]
    if inner.startswith("-") and "=" in inner:
        words = [change.option + "=" + inner.split("=", 1)[1]]
    if change.value is not None:
        words.append(cli_text(change.value))
    if kind == "word":
        return [TextEdit(t.path, a, b, " ".join(shell_word(w, quote) for w in words))]
    if kind == "flow":
        return [TextEdit(t.path, a, b, ", ".join(_write_word(w, kind, quote) for w in words))]
    first = TextEdit(t.path, a, b, _write_word(words[0], kind, quote))
    prefix = t.text[t.line_start(a) : a]
    more = "".join("\n" + prefix + _write_word(w, kind, quote) for w in words[1:])
    end = t.line_end(b)
    return [first] + ([TextEdit(t.path, end, end, more)] if more else [])


def _remove(change: SettingChange, texts: dict[str, Text]) -> list[TextEdit]:
    if not change.spans:
        raise CannotApply("nothing to remove")
    t = texts[change.spans[0].path]
    if any(s.path != t.path for s in change.spans):
        raise CannotApply("a setting written across files")
    if change.target == "config":
        return [_remove_entry(t, [t.range(s) for s in change.spans])]
    found = [(word_range(t, s, change.target), s) for s in change.spans]
    kinds = [container(t, a, b, change.target) for (a, b), _ in found]
    if "key" in kinds:  # a chart key and its value: the whole entry goes
        return [_remove_entry(t, [r for r, _ in found])]
    ranges: list[tuple[int, int]] = []
    word_ranges: list[tuple[int, int]] = []
    for ((a, b), _), kind in zip(found, kinds, strict=True):
        _one_line(t, a, b)
        if kind == "value":
            raise CannotApply(f"the word is the whole value of a key in {t.path}; edit it by hand")
        if kind == "item":
            ranges.append((t.line_start(a), min(t.line_end(b) + 1, len(t.text))))
        elif kind == "flow":
            ranges.append(_flow_item_range(t, a, b))
        else:
            word_ranges.append((a, b))
    ranges.extend(_word_removals(t, word_ranges))
    return [TextEdit(t.path, a, b, "") for a, b in _merge(ranges)]


def _remove_entry(t: Text, ranges: list[tuple[int, int]]) -> TextEdit:
    """Delete a mapping entry (key line through the end of its value) as whole lines."""
    a = ranges[0][0]
    b = max(r[1] for r in ranges)
    ls = t.line_start(a)
    if t.text[ls:a].strip():
        raise CannotApply(f"a key sharing its line with others in {t.path}")
    if b > a and t.text[b - 1] == "\n":
        b -= 1
    le = t.line_end(b)
    rest = t.text[b:le].strip()
    if rest.startswith(":"):  # only the key was given: its value must be on the same line
        rest = rest[1:].strip()
        value = rest.split(" #", 1)[0].strip()
        if not value or value[:1] in ("|", ">", "&", "*", "!"):
            raise CannotApply(f"a key whose value spans lines in {t.path}")
        rest = rest[len(value) :].strip()
    if rest and not rest.startswith("#"):
        raise CannotApply(f"a value sharing its line with others in {t.path}")
    return TextEdit(t.path, ls, min(le + 1, len(t.text)), "")


def _flow_item_range(t: Text, a: int, b: int) -> tuple[int, int]:
    after = re.match(r"\s*,[ \t]*", t.text[b:])
    if after:
        a2, b2 = a, b + after.end()
    else:
        before = re.search(r",\s*$", t.text[:a])
        if before is None:  # the only item
            a2, b2 = a, b
        else:
            a2, b2 = before.start(), b
    ls, le = t.line_start(a2), t.line_end(b2)
    if (t.text[ls:a2] + t.text[b2:le]).strip() == "" and "\n" not in t.text[a2:b2]:
        return ls, min(le + 1, len(t.text))
    return a2, b2


def _word_removals(t: Text, words: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges that delete shell words, whole lines when nothing else is left on them, and the
    continuation backslash before a deleted last line."""
    by_line: dict[int, list[tuple[int, int]]] = {}
    for a, b in words:
        ls = t.line_start(a)
        before = t.text[ls:a]
        if before.strip() == "":  # first word on its line: keep the indentation, eat the blanks after
            m = re.match(r"[ \t]*", t.text[b:])
            by_line.setdefault(ls, []).append((a, b + (m.end() if m else 0)))
        else:
            m = re.search(r"[ \t]*$", before)
            by_line.setdefault(ls, []).append((a - (len(m.group(0)) if m else 0), b))
    out: list[tuple[int, int]] = []
    deleted_lines: set[int] = set()
    for ls, rs in sorted(by_line.items()):
        le = t.line_end(ls)
        merged = _merge(rs)
        remaining = ""
        pos = ls
        for a, b in merged:
            remaining += t.text[pos:a]
            pos = b
        remaining += t.text[pos:le]
        if remaining.strip() in ("", "\\"):
            out.append((ls, min(le + 1, len(t.text))))
            deleted_lines.add(ls)
            if not t.text[ls:le].rstrip().endswith("\\"):
                out.extend(_drop_continuation(t, ls, deleted_lines))
        else:
            out.extend(merged)
    return out


def _drop_continuation(t: Text, ls: int, deleted: set[int]) -> list[tuple[int, int]]:
    """The command's last line is gone: the backslash ending the line before it must go too."""
    prev_end = ls - 1
    while prev_end > 0:
        prev_start = t.line_start(prev_end)
        if prev_start in deleted:
            prev_end = prev_start - 1
            continue
        line = t.text[prev_start:prev_end]
        m = re.search(r"[ \t]*\\[ \t]*$", line)
        if m is None:
            return []
        return [(prev_start + m.start(), prev_start + m.end())]
    return []


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _add(change: SettingChange, texts: dict[str, Text]) -> list[TextEdit]:
    if change.anchor is None or not change.option:
        raise CannotApply("nowhere to add the setting")
    t = texts[change.anchor.path]
    a, b = word_range(t, change.anchor, change.target)
    if change.target == "config":
        return [_add_entry(t, a, b, change)]
    _one_line(t, a, b)
    words = [change.option] + ([] if change.value is None else [cli_text(change.value)])
    raw = t.text[a:b]
    quote = _quote_of(raw)
    kind = container(t, a, b, change.target)
    if kind in ("key", "value"):
        raise CannotApply(f"the launch's arguments end in a chart key of {t.path}; add {change.option} by hand")
    if kind == "item":
        prefix = t.text[t.line_start(a) : a]
        end = t.line_end(b)
        return [TextEdit(t.path, end, end, "".join("\n" + prefix + _write_word(w, kind, quote) for w in words))]
    if kind == "flow":
        return [TextEdit(t.path, b, b, "".join(", " + _write_word(w, kind, quote) for w in words))]
    for w in words:
        if not _SHELL_SAFE.fullmatch(w):
            raise CannotApply(f"{w!r} would need shell quoting inside a command line")
    ls, le = t.line_start(a), t.line_end(b)
    text = " ".join(words)
    if re.fullmatch(r"[ \t]*\\", t.text[b:le]) and le < len(t.text):
        # the command goes on with a continuation line: add one line of its own after the anchor's
        nxt = t.text[le + 1 : t.line_end(le + 1)]
        indent = re.match(r"[ \t]*", nxt).group(0) or re.match(r"[ \t]*", t.text[ls:a]).group(0)  # type: ignore[union-attr]
        return [TextEdit(t.path, le, le, "\n" + indent + text + " \\")]
    prev_line = t.text[t.line_start(max(ls - 1, 0)) : max(ls - 1, 0)] if ls > 0 else ""
    if t.text[ls:a].strip() == "" and prev_line.rstrip().endswith("\\"):
        indent = t.text[ls:a]
        return [TextEdit(t.path, b, b, " \\\n" + indent + text)]
    return [TextEdit(t.path, b, b, " " + text)]


def _add_entry(t: Text, a: int, b: int, change: SettingChange) -> TextEdit:
    ls = t.line_start(a)
    indent = t.text[ls:a]
    if indent.strip():
        raise CannotApply(f"a flow mapping in {t.path}")
    key_raw = re.match(r"[^:\s]+", t.text[a:]) if a < len(t.text) else None
    key = change.option.lstrip("-") if change.option else change.dest
    if key_raw is not None and "_" in key_raw.group(0) and "-" not in key_raw.group(0):
        key = key.replace("-", "_")
    if b > a and t.text[b - 1] == "\n":
        b -= 1
    end = t.line_end(b)
    value = yaml_value(True if change.value is None else change.value)
    return TextEdit(t.path, end, end, "\n" + indent + key + ": " + value)


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """Apply non-overlapping edits of one file (insertions at one point keep their order)."""
    ordered = sorted(enumerate(edits), key=lambda p: (p[1].start, p[1].end, p[0]))
    out: list[str] = []
    pos = 0
    for _, e in ordered:
        if e.start < pos:
            raise CannotApply("overlapping edits")
        out.append(text[pos : e.start])
        out.append(e.new)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)
