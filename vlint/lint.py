"""The lint run: files → sources → invocations → deployments → findings.

I/O happens here and in the sources; everything downstream is pure. A file that cannot be read or
parsed yields an error for that file only: every other file is still linted.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass, field
from pathlib import Path

from vlint.deployment import Deployment
from vlint.discover import DiscoverOptions, discover
from vlint.engine import Engine
from vlint.finding import Finding
from vlint.invocation import Problem, Token
from vlint.resolve.resolver import ResolveOptions, resolve
from vlint.secrets import find_secrets
from vlint.sources.base import SourceError, SourceResult, SourceText
from vlint.sources.registry import sources_for

DEFAULT_MAX_FILE_SIZE = 10 * 2**20


@dataclass(slots=True)
class FileError:
    message: str
    line: int | None = None
    column: int | None = None


@dataclass(slots=True)
class FileContext:
    """One file as the file-scope rules see it."""

    path: str
    deployments: list[Deployment]
    assignments: list[tuple[str, Token]]
    problems: list[Problem]


@dataclass(slots=True)
class FileResult:
    path: str
    launches: int = 0
    error: FileError | None = None
    findings: list[Finding] = field(default_factory=list)
    deployments: list[Deployment] = field(default_factory=list)
    sources: tuple[str, ...] = ()
    #: other files this one's launches read (``--config``)
    linked: tuple[str, ...] = ()
    #: files whose launches read this one
    used_by: tuple[str, ...] = ()


@dataclass(slots=True)
class LintOptions:
    resolve: ResolveOptions = field(default_factory=ResolveOptions)
    discover: DiscoverOptions = field(default_factory=DiscoverOptions)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    #: display paths relative to this folder
    root: Path = field(default_factory=Path.cwd)
    #: apply ``# vlint: disable=`` comments and annotations (vlint.suppress); False: --no-suppress
    suppress: bool = True


def display_path(path: Path, root: Path) -> str:
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def decode(data: bytes) -> str:
    """Text of a file: UTF-8 (with or without BOM) or UTF-16/32 with a BOM; anything else is an
    error. Line ends become ``\\n`` whatever the encoding (Windows editors write UTF-16 with CRLF)."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    elif data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        # the UTF-32 LE mark starts with the UTF-16 LE one: test it first
        encoding = "utf-32" if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)) else "utf-16"
        try:
            return _unix_lines(data.decode(encoding))
        except UnicodeDecodeError as e:
            raise SourceError(f"not valid {encoding.upper()} text: {e.reason} at byte {e.start}") from None
    if b"\x00" in data[:8192]:
        raise SourceError("binary file (NUL bytes), not a text config")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SourceError(f"not valid UTF-8 text (byte 0x{data[e.start]:02x})", line) from None
    return _unix_lines(text)


def _unix_lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


class Reader:
    """Reads files once, with the size limit, for sources and linked files alike."""

    def __init__(self, opts: LintOptions) -> None:
        self.opts = opts
        self._cache: dict[Path, SourceText | SourceError] = {}

    def read(self, path: Path) -> SourceText:
        key = path.absolute()
        hit = self._cache.get(key)
        if hit is None:
            hit = self._read(key)
            self._cache[key] = hit
        if isinstance(hit, SourceError):
            raise hit
        return hit

    def _read(self, path: Path) -> SourceText | SourceError:
        shown = display_path(path, self.opts.root)
        try:
            if path.is_dir():
                return SourceError("is a directory, not a file")
            size = path.stat().st_size
            if size > self.opts.max_file_size:
                return SourceError(
                    f"file is {size / 2**20:.1f} MiB, over the {self.opts.max_file_size / 2**20:.0f} MiB limit "
                    "(--max-file-size)"
                )
            data = path.read_bytes()
        except FileNotFoundError:
            return SourceError("no such file")
        except PermissionError:
            return SourceError("permission denied")
        except OSError as e:
            return SourceError(f"cannot read: {e.strerror or e}")
        try:
            return SourceText(shown, path, decode(data))
        except SourceError as e:
            return e


@dataclass(slots=True)
class LintReport:
    files: list[FileResult]
    findings: list[Finding]
    #: credential values seen in the files: every renderer masks them wherever they would appear
    secret_values: set[str] = field(default_factory=set)
    #: findings that suppression comments or annotations hid (not in ``findings``)
    suppressed: list[Finding] = field(default_factory=list)


def lint_paths(paths: list[Path], engine: Engine, opts: LintOptions, *, reader: Reader | None = None) -> LintReport:
    """Lint ``paths``. ``reader`` replaces the file reader (``vlint fix`` lints edited text in memory)."""
    reader = reader or Reader(opts)
    extracted: list[tuple[FileResult, SourceResult | None, Path]] = []
    for d in discover(paths, opts.discover):
        extracted.append(_extract(d.path, d.explicit, reader))
    # files that a launch reads (--config) are linted through that launch, not on their own
    linked_by: dict[Path, list[str]] = {}
    for fr, sr, _ in extracted:
        if sr is not None:
            for p in sr.linked:
                linked_by.setdefault(p.resolve(), []).append(fr.path)
    results: list[FileResult] = []
    all_findings: list[Finding] = []
    secret_values: set[str] = set()
    seen: set[tuple[str, str, int, int, str]] = set()
    for fr, sr, path in extracted:
        users = linked_by.get(path.resolve())
        if users:
            fr.used_by = tuple(sorted(set(users)))
        if sr is not None:
            invocations = sr.invocations
            if users:
                invocations = [i for i in invocations if i.program != "config"]
            deployments = [resolve(inv, opts.resolve, base_dir=path.parent) for inv in invocations]
            fr.deployments = deployments
            fr.launches = len(deployments)
            fr.linked = tuple(sorted({display_path(p, opts.root) for p in sr.linked}))
            findings: list[Finding] = []
            for dep in deployments:
                findings.extend(engine.run_deployment(dep))
            ctx = FileContext(fr.path, deployments, sr.assignments, sr.problems)
            secret_values.update(secret.value for secret in find_secrets(ctx))
            findings.extend(engine.run_file(ctx))
            for f in sorted(findings, key=Finding.sort_key):
                key = (f.code, f.span.path, f.span.line, f.span.column, f.message)
                if key not in seen:
                    seen.add(key)
                    fr.findings.append(f)
        results.append(fr)
        all_findings.extend(fr.findings)
    suppressed: list[Finding] = []
    if opts.suppress and results:
        from vlint.suppress import apply_suppressions

        suppressed = apply_suppressions(results, engine, reader.read, opts.root)
        all_findings = [f for fr in results for f in fr.findings]
    results.sort(key=lambda r: r.path)
    all_findings.sort(key=Finding.sort_key)
    return LintReport(results, all_findings, secret_values, suppressed)


def _extract(path: Path, explicit: bool, reader: Reader) -> tuple[FileResult, SourceResult | None, Path]:
    shown = display_path(path, reader.opts.root)
    fr = FileResult(shown)
    try:
        src = reader.read(path)
    except SourceError as e:
        fr.error = FileError(e.message, e.line, e.column)
        return fr, None, path
    combined = SourceResult()
    names: list[str] = []
    for source in sources_for(src, explicit=explicit):
        try:
            r = source.extract(src, reader.read)
        except SourceError as e:
            fr.error = FileError(e.message, e.line, e.column)
            break
        names.append(source.name)
        combined.invocations.extend(r.invocations)
        combined.assignments.extend(r.assignments)
        combined.problems.extend(r.problems)
        combined.linked.extend(r.linked)
        if r.error is not None and fr.error is None:
            fr.error = FileError(r.error.message, r.error.line, r.error.column)
        if r.invocations:
            break
    fr.sources = tuple(names)
    return fr, combined, path
