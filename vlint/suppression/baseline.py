"""Finding fingerprints, and the baseline file that accepts today's findings.

A fingerprint identifies a finding across runs and line moves: a hash of the rule code, the file
path, the finding's source line with its whitespace normalized, and the occurrence index among
findings that share those three (two identical lines in one file). The line *number* is not part of
it, so adding a comment above a launch keeps every fingerprint. SARIF's ``partialFingerprints`` and
the baseline use the same value.

Baseline file (``--write-baseline FILE``)::

    {"format_version": 1, "tool": "vlint", "vlint_version": "0.1.0",
     "findings": [{"fingerprint": "…", "code": "VL101", "path": "start.sh", "line": 11, "message": "…"}]}

Only ``fingerprint`` is used to match; the other fields are there for people reading the diff.
An entry that no longer matches anything is stale: not an error, counted in the summary.

Partial runs (pre-commit passes a few files per batch): a :class:`Scope` says which files a run
covered. Only entries of those files can be stale, and ``--write-baseline`` replaces only their
entries, keeping the others' as they are in the file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from vlint.core.finding import Finding
from vlint.core.record import record
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.security.bounded_read import read_regular

if TYPE_CHECKING:
    from vlint.engine.results import LintReport

FORMAT_VERSION = 1
MAX_BASELINE_BYTES = 64 << 20  # a baseline of a large monorepo is a few MiB
#: the key under SARIF ``partialFingerprints``
FINGERPRINT_KEY = "vlint/v1"

LineSource = Callable[[str], "list[str] | None"]


class BaselineError(Exception):
    """The baseline file cannot be read or is not a vlint baseline (exit 2)."""


class SourceLines:
    """Reads each reported file once (for code frames and fingerprints); display paths are relative
    to ``root``. With ``allowed``, only those files (the ones the lint read): a report never quotes
    a file the lint root kept vlint from reading."""

    def __init__(self, root: Path | None = None, allowed: frozenset[str] | None = None) -> None:
        self.root = root or Path.cwd()
        self.allowed = allowed
        self._cache: dict[str, list[str] | None] = {}

    def provide(self, path: str, text: str) -> None:
        """The lines of a file that is not on disk (``vlint -`` reads it from stdin)."""
        self._cache[path] = text.split("\n")

    def __call__(self, path: str) -> list[str] | None:
        if self.allowed is not None and path not in self.allowed:
            return None
        if path not in self._cache:
            from vlint.sources.base import SourceError
            from vlint.sources.decode import decode

            try:
                data = (self.root / path).read_bytes()
                self._cache[path] = decode(data).split("\n")
            except (OSError, SourceError):
                self._cache[path] = None
        return self._cache[path]


def normalize(line: str) -> str:
    return " ".join(line.split())


def fingerprints(findings: Sequence[Finding], lines: LineSource) -> list[str]:
    """One fingerprint per finding, in order (the order must be the report's sorted order)."""
    import hashlib

    seen: dict[tuple[str, str, str], int] = {}
    #: each source line normalized once, and each key hashed once (copies add the index): thousands of
    #: findings on one long line cost a split and a hash of the line each, quadratic
    normalized: dict[tuple[str, int], str] = {}
    prefix: dict[tuple[str, str, str], Any] = {}
    out: list[str] = []
    for f in findings:
        where = (f.span.path, f.span.line)
        content = normalized.get(where)
        if content is None:
            src = lines(f.span.path)
            content = normalize(src[f.span.line - 1]) if src and 1 <= f.span.line <= len(src) else ""
            normalized[where] = content
        key = (f.code, f.span.path.replace("\\", "/"), content)
        index = seen.get(key, 0)
        seen[key] = index + 1
        h = prefix.get(key)
        if h is None:
            h = prefix[key] = hashlib.sha256("\x00".join((*key, "")).encode("utf-8", "surrogatepass"))
        h = h.copy()
        h.update(str(index).encode())
        out.append(h.hexdigest()[:32])
    return out


@record(slots=True)
class BaselineResult:
    #: findings the baseline accepted (not reported, not counted for the exit code)
    accepted: int
    #: baseline entries that matched nothing today
    stale: int


@record(frozen=True, slots=True)
class Scope:
    """The files a run covered: those it linted, and everything under the folders it walked (display
    paths, relative to the current folder; ``.`` is the current folder)."""

    files: frozenset[str]
    folders: tuple[str, ...] = ()

    def covers(self, path: str) -> bool:
        p = path.replace("\\", "/")
        if p in self.files:
            return True
        for d in self.folders:
            d = d.replace("\\", "/").rstrip("/")
            if d in (".", ""):
                if not p.startswith("../") and not os.path.isabs(p):
                    return True
            elif p == d or p.startswith(d + "/"):
                return True
        return False

    @classmethod
    def of_run(cls, report: LintReport, folders: Iterable[str]) -> Scope:
        files = {fr.path for fr in report.files} | {p for fr in report.files for p in fr.linked}
        return cls(frozenset(files), tuple(folders))


def read_entries(path: Path) -> list[dict[str, object]]:
    """The entries of a baseline file (each with a fingerprint). Raises :class:`BaselineError`."""
    try:
        doc = json.loads(read_regular(path, MAX_BASELINE_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{path}: no such baseline file (create it with --write-baseline {path})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BaselineError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    except json.JSONDecodeError as e:
        raise BaselineError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
    except RecursionError:  # a hostile file: nesting deeper than the decoder's stack
        raise BaselineError(f"{path}: not a vlint baseline (nested too deeply to read)") from None
    if not isinstance(doc, dict) or doc.get("tool") != "vlint" or not isinstance(doc.get("findings"), list):
        raise BaselineError(f"{path}: not a vlint baseline (expected an object with tool: vlint and findings: [...])")
    if doc.get("format_version") != FORMAT_VERSION:
        raise BaselineError(f"{path}: baseline format_version {doc.get('format_version')!r} is not {FORMAT_VERSION}")
    out: list[dict[str, object]] = []
    for i, entry in enumerate(doc["findings"]):
        fp = entry.get("fingerprint") if isinstance(entry, dict) else None
        if not isinstance(fp, str) or not fp:
            raise BaselineError(f"{path}: findings[{i}] has no fingerprint")
        out.append(dict(entry))
    return out


def read_baseline(path: Path) -> set[str]:
    """The fingerprints a baseline file accepts."""
    return {str(e["fingerprint"]) for e in read_entries(path)}


def baseline_document(
    report: LintReport, prints: Sequence[str], kept: Sequence[dict[str, object]] = ()
) -> dict[str, object]:
    """The baseline of this run's findings, with ``kept`` (entries of files the run did not cover)."""
    from vlint import __version__

    red = report.redactor()
    entries: list[dict[str, object]] = [
        {
            "fingerprint": fp,
            "code": f.code,
            "path": f.span.path,
            "line": f.span.line,
            "message": red.text(f.message),
        }
        for f, fp in zip(report.findings, prints, strict=True)
    ]
    entries.extend(kept)
    entries.sort(key=lambda e: (str(e.get("path", "")), _int(e.get("line")), str(e.get("code", ""))))
    return {"format_version": FORMAT_VERSION, "tool": "vlint", "vlint_version": __version__, "findings": entries}


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def write_baseline(path: Path, report: LintReport, prints: Sequence[str], scope: Scope | None = None) -> int:
    """Write the baseline; with ``scope``, the entries an existing file holds for files outside it
    are kept (returns how many)."""
    from vlint.core.escape import json_text

    kept: list[dict[str, object]] = []
    if scope is not None and path.exists():
        kept = [e for e in read_entries(path) if not scope.covers(str(e.get("path", "")))]
    text = json_text(baseline_document(report, prints, kept))
    try:
        path.write_text(text, encoding="utf-8", errors="backslashreplace")
    except OSError as e:
        raise BaselineError(f"{path}: cannot write: {e.strerror or e}") from None
    return len(kept)


def apply_baseline(
    report: LintReport, prints: list[str], accepted: set[str] | Sequence[dict[str, object]], scope: Scope | None = None
) -> BaselineResult:
    """Drop the findings whose fingerprint the baseline holds (from the report and its files);
    ``prints`` is kept aligned with ``report.findings``. Stale entries are counted only inside
    ``scope`` (an entry of a file the run did not lint is not stale)."""
    if isinstance(accepted, set):
        fingerprints_by_path = {fp: None for fp in accepted}
    else:
        fingerprints_by_path = {str(e["fingerprint"]): str(e.get("path", "")) for e in accepted}
    keep = [fp not in fingerprints_by_path for fp in prints]
    dropped = {id(f) for f, k in zip(report.findings, keep, strict=True) if not k}
    matched = {fp for fp in prints if fp in fingerprints_by_path}
    report.findings[:] = [f for f, k in zip(report.findings, keep, strict=True) if k]
    prints[:] = [fp for fp, k in zip(prints, keep, strict=True) if k]
    for fr in report.files:
        fr.findings[:] = [f for f in fr.findings if id(f) not in dropped]
    stale = [
        fp
        for fp, where in fingerprints_by_path.items()
        if fp not in matched and (scope is None or where is None or scope.covers(where))
    ]
    return BaselineResult(accepted=len(dropped), stale=len(stale))
