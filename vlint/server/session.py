"""The language server's state and answers, without the protocol plumbing (:mod:`vlint.server.app`).

A :class:`Session` holds the open buffers and, per buffer, the last lint. Every lint goes through
:func:`vlint.run.lint.lint_paths`, the pipeline ``vlint check`` runs, with a reader that serves open
buffers from memory and every other file from disk (:class:`BufferReader`); the config filters and
the baseline ``vlint check`` applies are applied too. So the editor shows what CI reports.

Methods are called from one thread at a time (the server runs them one after another on one worker
thread): nothing here is locked.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatch
from pathlib import Path

from lsprotocol import types

from vlint.core.finding import Finding
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.core.typing_names import Any
from vlint.engine.results import LintReport
from vlint.run.lint import Reader, display_path, lint_paths
from vlint.security.lint_root import LintRoot, is_within, real_path
from vlint.security.secrets import Redactor
from vlint.server.positions import UTF16, Lines
from vlint.server.setup import EditorSettings, Setup, SetupError, build_setup, config_file_for, single_file_root
from vlint.sources.base import SourceError, SourceText
from vlint.sources.decode import decode

SOURCE = "vlint"
FIX_ALL_KIND = "source.fixAll.vlint"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


def norm(path: Path) -> Path:
    return Path(os.path.normpath(os.path.abspath(path)))


def unix_lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


@record(slots=True)
class Buffer:
    """An open document as the editor has it."""

    uri: str
    path: Path
    version: int | None
    #: the text with its line ends as the editor has them (edits keep ``\r\n`` where the file has it)
    raw: str

    @property
    def text(self) -> str:
        """The text as vlint reads it (line ends as ``\\n``)."""
        return unix_lines(self.raw)

    @property
    def crlf(self) -> bool:
        return "\r\n" in self.raw


class BufferReader(Reader):
    """:class:`vlint.run.lint.Reader` that serves open buffers from memory (same size limit and decoding
    as a file on disk) and records every file the lint asked for, read or missing."""

    def __init__(self, opts: Any, buffers: Mapping[Path, str]) -> None:
        super().__init__(opts)
        self.buffers = buffers
        #: every file asked for (a missing --config target too: opening it must lint its user again)
        self.asked: set[Path] = set()

    def _read(self, path: Path, beneath: LintRoot | None = None) -> SourceText | SourceError:
        key = norm(path)
        self.asked.add(key)
        text = self.buffers.get(key)
        if text is None:
            return super()._read(path, beneath)
        data = text.encode("utf-8", "surrogatepass")
        if len(data) > self.opts.max_file_size:
            return self._too_large(len(data))
        try:
            return SourceText(display_path(path, self.opts.root), path, decode(data))
        except SourceError as e:
            return e


@record(slots=True)
class Scope:
    """Where a file is linted from: its workspace folder (display paths, config) and lint root."""

    folder: Path
    root: LintRoot


@record(slots=True)
class Entry:
    """A published diagnostic and the finding behind it."""

    finding: Finding
    diagnostic: types.Diagnostic
    #: the file whose launch reported it (display path)
    owner: str


@record(slots=True)
class DocResult:
    """The last lint of one buffer."""

    version: int | None
    diagnostics: list[types.Diagnostic] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    report: LintReport | None = None
    setup: Setup | None = None
    scope: Scope | None = None
    #: the files of the lint run (the buffer, then the files whose launches read it)
    paths: list[Path] = field(default_factory=list)
    #: every file the lint asked for (a change to one of them lints this buffer again)
    deps: frozenset[Path] = frozenset()
    #: open buffers this lint found to be read by another file's launch, or no longer: their own lint
    #: changes (a --config file is linted through the launch that reads it)
    relink: frozenset[Path] = frozenset()
    #: why the buffer was not linted (not a file vlint reads, a configuration error…)
    skipped: str = ""
    #: verified edits, computed once per buffer version: key → (title, edit) or the reason there is none
    actions: dict[tuple[Any, ...], tuple[str, types.WorkspaceEdit] | str] = field(default_factory=dict)


def finding_key(f: Finding) -> tuple[str, str, int, int, str]:
    return (f.code, f.span.path, f.span.line, f.span.column, f.message)


class Session:
    def __init__(
        self,
        folders: Iterable[Path] = (),
        settings: EditorSettings | None = None,
        *,
        encoding: str = UTF16,
        document_changes: bool = True,
        lint: Callable[..., LintReport] = lint_paths,
    ) -> None:
        self.folders = sorted({norm(f) for f in folders}, key=lambda p: len(p.parts), reverse=True)
        self.settings = settings or EditorSettings()
        self.encoding = encoding
        #: the client takes ``documentChanges`` (versioned edits) in a WorkspaceEdit
        self.document_changes = document_changes
        self.buffers: dict[Path, Buffer] = {}
        self.results: dict[Path, DocResult] = {}
        #: file → the files whose launches read it (learned from every lint)
        self.users: dict[Path, set[Path]] = {}
        #: file → the files its launches read, as last linted
        self.reads: dict[Path, set[Path]] = {}
        self._setups: dict[tuple[Any, ...], Setup] = {}
        self._lint = lint

    # -- buffers --------------------------------------------------------------------------------
    def open(self, uri: str, path: Path, version: int | None, text: str) -> None:
        self.buffers[norm(path)] = Buffer(uri, norm(path), version, text)

    def change(self, uri: str, path: Path, version: int | None, text: str) -> None:
        self.open(uri, path, version, text)

    def close(self, path: Path) -> None:
        self.buffers.pop(norm(path), None)
        self.results.pop(norm(path), None)

    def set_folders(self, folders: Iterable[Path]) -> None:
        self.folders = sorted({norm(f) for f in folders}, key=lambda p: len(p.parts), reverse=True)
        self._setups.clear()

    def set_settings(self, settings: EditorSettings) -> None:
        self.settings = settings
        self._setups.clear()

    def dependents(self, path: Path) -> list[Path]:
        """Open buffers (other than ``path``) whose last lint read ``path``."""
        p = norm(path)
        return sorted(q for q, r in self.results.items() if q != p and q in self.buffers and p in r.deps)

    def is_current(self, path: Path, version: int | None) -> bool:
        buf = self.buffers.get(norm(path))
        return buf is not None and buf.version == version

    # -- where a file is linted from --------------------------------------------------------------
    def scope(self, path: Path) -> Scope:
        p = norm(path)
        for folder in self.folders:  # deepest first
            if is_within(p, folder):
                return Scope(folder, LintRoot(real_path(folder), "the workspace folder"))
        return Scope(p.parent, single_file_root(p))

    def lintable(self, path: Path, scope: Scope, setup: Setup) -> str:
        """Why ``vlint check`` on the workspace would not read this file ("" when it would)."""
        p = norm(path)
        include = setup.opts.discover.include
        if not any(fnmatch(p.name, pat) for pat in include):
            return f"{p.name} is not a file vlint reads (it reads {', '.join(include)})"
        from vlint.config.discover import DEFAULT_EXCLUDE_DIRS

        try:
            parts = p.parent.relative_to(scope.folder).parts
        except ValueError:
            parts = ()
        skipped = next((d for d in parts if d in DEFAULT_EXCLUDE_DIRS), None)
        if skipped is not None:
            return f"vlint does not read files under {skipped}/"
        return ""

    def setup_for(self, path: Path, scope: Scope) -> Setup:
        in_folder = scope.root.path != real_path(norm(path))
        config = config_file_for(path, scope.folder) if in_folder else None
        key = (scope.folder, scope.root.path, config, self.settings)
        setup = self._setups.get(key)
        if setup is None or not setup.fresh():
            setup = build_setup(scope.folder, scope.root, config, self.settings)
            self._setups[key] = setup
        return setup

    # -- linting ------------------------------------------------------------------------------------
    def texts(self) -> dict[Path, str]:
        return {p: b.text for p, b in self.buffers.items()}

    def run(self, setup: Setup, paths: list[Path], texts: Mapping[Path, str]) -> tuple[LintReport, BufferReader]:
        """One lint as ``vlint check`` does it: the pipeline, then config filters and the baseline."""
        reader = BufferReader(setup.opts, texts)
        report = self._lint(paths, setup.engine, setup.opts, reader=reader)
        if setup.post is not None:
            setup.post(report)
        if setup.baseline:
            from vlint.suppression.baseline import apply_baseline, fingerprints

            def lines(shown: str) -> list[str] | None:
                if shown not in report.read_paths:
                    return None
                try:
                    return reader.read(setup.opts.root / shown).text.split("\n")
                except SourceError:
                    return None

            apply_baseline(report, fingerprints(report.findings, lines), setup.baseline)
        return report, reader

    def lint(self, path: Path) -> DocResult:
        """Lint the buffer at ``path`` as it is now; the result is kept for code actions and hover."""
        p = norm(path)
        buf = self.buffers[p]
        scope = self.scope(p)
        result = DocResult(buf.version, scope=scope)
        self.results[p] = result
        try:
            setup = self.setup_for(p, scope)
        except SetupError as e:
            result.skipped = f"not checked: {e}"
            result.diagnostics = [_note(Lines(buf.text, self.encoding), f"vlint is not configured: {e}")]
            return result
        result.setup = setup
        why = self.lintable(p, scope, setup)
        if why:
            result.skipped = why
            return result
        users = sorted(u for u in self.users.get(p, ()) if u != p and (u in self.buffers or u.is_file()))
        result.paths = [p, *users]
        report, reader = self.run(setup, result.paths, self.texts())
        result.report = report
        result.deps = frozenset(reader.asked)
        result.relink = frozenset(q for q in self._learn(report, scope.folder) if q != p and q in self.buffers)
        self._diagnose(result, buf, reader)
        return result

    def _learn(self, report: LintReport, folder: Path) -> set[Path]:
        """Which file's launches read which files (a --config file opened alone is then linted with
        the launch that reads it, as ``vlint check`` on the workspace lints it); returns the files
        whose readers changed."""
        moved: set[Path] = set()
        for fr in report.files:
            user = norm(folder / fr.path)
            old = self.reads.pop(user, set())
            linked = {norm(folder / shown) for shown in fr.linked}
            for q in old - linked:
                self.users.get(q, set()).discard(user)
            for q in linked:
                self.users.setdefault(q, set()).add(user)
            self.reads[user] = linked
            moved |= old ^ linked
        return moved

    def _diagnose(self, result: DocResult, buf: Buffer, reader: BufferReader) -> None:
        assert result.report is not None and result.scope is not None and result.setup is not None
        report, folder = result.report, result.scope.folder
        shown = display_path(buf.path, folder)
        lines = Lines(buf.text, self.encoding)
        red = report.redactor()
        catalog = result.setup.engine.catalog

        def other(path: str) -> Lines | None:
            try:
                return Lines(reader.read(folder / path).text, self.encoding)
            except SourceError:
                return None

        for fr in report.files:
            if fr.path == shown and fr.error is not None and not _walk_drops(fr, buf):
                span = Span(shown, fr.error.line or 1, fr.error.column or 1)
                result.diagnostics.append(
                    types.Diagnostic(
                        range=lines.range(span),
                        message=red.text(fr.error.message),
                        severity=types.DiagnosticSeverity.Error,
                        source=SOURCE,
                    )
                )
            for f in fr.findings:
                if f.span.path == shown:
                    related = _launch_info(fr, f, folder, other, red) if fr.path != shown else None
                    d = _diagnostic(f, lines.range(f.span), catalog, red, related)
                elif fr.path == shown:  # a finding in a file this buffer's launch reads (its --config)
                    there = other(f.span.path)
                    if there is None:
                        continue
                    anchor = _anchor(fr, f, shown)
                    where = f"{f.span.path}:{f.span.line}:{f.span.column}"
                    info = types.DiagnosticRelatedInformation(
                        location=types.Location(uri=(folder / f.span.path).as_uri(), range=there.range(f.span)),
                        message=red.text(f.message),
                    )
                    d = _diagnostic(f, lines.range(anchor), catalog, red, [info], prefix=f"in {where}: ")
                else:
                    continue
                d.data = {"id": len(result.entries)}
                result.entries.append(Entry(f, d, fr.path))
                result.diagnostics.append(d)

    def current(self, path: Path) -> DocResult:
        """The lint of the buffer as it is now (linted again if it changed since)."""
        p = norm(path)
        result = self.results.get(p)
        buf = self.buffers[p]
        if result is None or result.version != buf.version:
            result = self.lint(p)
        return result

    # -- code actions --------------------------------------------------------------------------------
    # -- hover ------------------------------------------------------------------------------------
    def hover(self, path: Path, pos: types.Position, markdown: bool = True) -> types.Hover | None:
        from vlint.server.hover import hover

        if norm(path) not in self.buffers:
            return None
        result = self.current(path)
        buf = self.buffers[norm(path)]
        if result.report is None or result.scope is None:
            return None
        shown = display_path(buf.path, result.scope.folder)
        return hover(result.report, shown, Lines(buf.text, self.encoding), pos, markdown)

    # -- edits ------------------------------------------------------------------------------------
    def workspace_edit(self, changed: Mapping[Path, tuple[str, str, str]], folder: Path) -> types.WorkspaceEdit:
        """The edit that turns each file's text (as linted) into its new text: one range per file,
        the changed middle, line ends as the file has them."""
        doc_changes: list[types.TextDocumentEdit] = []
        changes: dict[str, list[types.TextEdit]] = {}
        for p, (_, old, new) in sorted(changed.items()):
            key = norm(p)
            buf = self.buffers.get(key)
            uri = buf.uri if buf is not None else key.as_uri()
            crlf = buf.crlf if buf is not None else _file_has_crlf(key)
            edit = text_edit(old, new, self.encoding, crlf)
            if self.document_changes:
                doc_changes.append(
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(
                            uri=uri, version=buf.version if buf is not None else None
                        ),
                        edits=[edit],
                    )
                )
            else:
                changes[uri] = [edit]
        if self.document_changes:
            return types.WorkspaceEdit(document_changes=doc_changes)
        return types.WorkspaceEdit(changes=changes)


def text_edit(old: str, new: str, encoding: str = UTF16, crlf: bool = False) -> types.TextEdit:
    """One edit replacing the part of ``old`` that differs from ``new``."""
    n = min(len(old), len(new))
    a = 0
    while a < n and old[a] == new[a]:
        a += 1
    b = 0
    while b < n - a and old[len(old) - 1 - b] == new[len(new) - 1 - b]:
        b += 1
    lines = Lines(old, encoding)
    middle = new[a : len(new) - b]
    return types.TextEdit(
        range=types.Range(start=lines.offset_position(a), end=lines.offset_position(len(old) - b)),
        new_text=middle.replace("\n", "\r\n") if crlf else middle,
    )


def _file_has_crlf(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return b"\r\n" in f.read(1 << 20)
    except OSError:
        return False


def _wanted(kind: str, only: list[str] | None) -> bool:
    return not only or any(kind == o or kind.startswith(o + ".") for o in only)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    """Do the ranges share a line? (The cursor anywhere on a diagnostic's line offers its fixes.)"""
    return a.start.line <= b.end.line and b.start.line <= a.end.line


def _note(lines: Lines, message: str) -> types.Diagnostic:
    return types.Diagnostic(
        range=lines.range(Span("", 1, 1)), message=message, severity=types.DiagnosticSeverity.Error, source=SOURCE
    )


def _diagnostic(
    f: Finding,
    rng: types.Range,
    catalog: Any,
    red: Redactor,
    related: list[types.DiagnosticRelatedInformation] | None,
    prefix: str = "",
) -> types.Diagnostic:
    from vlint.report.sarif import rule_help_uri

    rule = catalog.find(f.code)
    href = rule_help_uri(rule) if rule is not None else None
    return types.Diagnostic(
        range=rng,
        message=prefix + red.text(f.message),
        severity=_SEVERITY.get(f.severity, types.DiagnosticSeverity.Warning),
        code=f.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        related_information=related or None,
        tags=[types.DiagnosticTag.Unnecessary] if f.code == "VL901" else None,
    )


def _walk_drops(fr: Any, buf: Buffer) -> bool:
    """Is ``fr.error`` the "broken YAML" error that ``vlint check`` gives a YAML file named on its
    command line but not one found by the folder walk (a file that is not about vLLM)? The editor
    reports what the walk of the workspace reports."""
    from vlint.run.lint import _unreadable_yaml

    if fr.sources or buf.path.suffix.lower() not in (".yaml", ".yml"):
        return False
    src = SourceText(fr.path, buf.path, buf.text)
    named = _unreadable_yaml(src, True)
    return named is not None and named.message == fr.error.message and _unreadable_yaml(src, False) is None


def _deployment_of(fr: Any, f: Finding) -> Any:
    from vlint.engine.runner import describe

    return next((d for d in fr.deployments if f.context and describe(d) == f.context), None)


def _anchor(fr: Any, f: Finding, shown: str) -> Span:
    """Where in the buffer a finding in a linked file is shown: the launch's ``--config`` word, else
    the launch, else the first line."""
    dep = _deployment_of(fr, f)
    if dep is None:
        return Span(shown, 1, 1)
    inv = dep.invocation
    words = inv.args
    at = next((k for k, t in enumerate(words) if t.text == "--config" and k + 1 < len(words)), None)
    candidates = [words[at].span.to(words[at + 1].span)] if at is not None else []
    fact = inv.facts.get("config_path")
    candidates += [fact.span] if fact is not None and fact.span is not None else []
    return next((span for span in (*candidates, inv.span) if span.path == shown), Span(shown, 1, 1))


def _launch_info(
    fr: Any, f: Finding, folder: Path, other: Callable[[str], Lines | None], red: Redactor
) -> list[types.DiagnosticRelatedInformation] | None:
    """For a finding reported through a launch in another file: where that launch is."""
    dep = _deployment_of(fr, f)
    span = dep.invocation.span if dep is not None else Span(fr.path, 1, 1)
    there = other(span.path)
    if there is None:
        return None
    label = (dep.invocation.label or dep.invocation.program) if dep is not None else "a launch"
    return [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=(folder / span.path).as_uri(), range=there.range(span)),
            message=red.text(f"reported for the launch that reads this file: {label} in {span}"),
        )
    ]
