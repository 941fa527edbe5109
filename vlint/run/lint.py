"""The lint run: files → sources → invocations → deployments → findings.

I/O happens here and in the sources; everything downstream is pure. A file that cannot be read or
parsed yields an error for that file only: every other file is still linted.
"""

from __future__ import annotations

import errno
import gc
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from vlint.config.discover import Discovered, DiscoverOptions, discover
from vlint.core.finding import Finding
from vlint.core.invocation import CALLER_ARGS, Invocation, Problem, Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record, replace
from vlint.core.rule import looks_like_rule_file
from vlint.core.span import Span
from vlint.core.typing_names import Any, TypeVar
from vlint.engine.results import FileError, FileResult, LintReport
from vlint.engine.runner import Engine
from vlint.launch.credentials import find_secrets
from vlint.launch.file_context import FileContext
from vlint.launch.resolver import ResolveOptions, lone_environment, resolve
from vlint.security.bounded_read import NotReadable, read_fd
from vlint.security.lint_root import LintRoot, Refused, find_root
from vlint.security.secrets import Secret
from vlint.sources.base import OutsideRoot, SourceError, SourceResult, SourceText
from vlint.sources.decode import read_text
from vlint.sources.registry import iter_sources, source_named

DEFAULT_MAX_FILE_SIZE = 10 * 2**20
#: a launch with more argument words than this is not linted (a per-file error): real launches have
#: tens of words, and the argument parser's work (did-you-mean for each unknown flag) grows with them
MAX_LAUNCH_WORDS = 10_000
#: below this many files a run stays in one process (starting workers costs more than it saves)
PARALLEL_MIN_FILES = 48


@record(slots=True)
class LintOptions:
    resolve: ResolveOptions = field(default_factory=ResolveOptions)
    discover: DiscoverOptions = field(default_factory=DiscoverOptions)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    #: display paths relative to this folder
    root: Path = field(default_factory=Path.cwd)
    #: the only folder whose files vlint reads on its own (:mod:`vlint.security.lint_root`); None: chosen from
    #: the paths of the run (``--root``, else their git work tree, else their common folder)
    lint_root: LintRoot | None = None
    #: apply ``# vlint: disable=`` comments and annotations (vlint.suppression.inline); False: --no-suppress
    suppress: bool = True
    #: worker processes for large trees (``-j``); 1 lints in this process. The output is the same; the
    #: deployments in a report from workers keep what reports read (invocation, version, model, GPU,
    #: parsed arguments) but not the resolved defaults, model architecture and memory estimate
    jobs: int = 1
    #: the engine and resolver options of one file (its nearest configuration and the command line:
    #: :mod:`vlint.commands.settings`); None: ``engine`` and ``resolve`` for every file
    settings_for: Callable[[Path], tuple[Engine, ResolveOptions]] | None = None
    #: called with (steps done, steps in all) as files are read and checked (progress on a terminal)
    progress: Callable[[int, int], None] | None = None
    #: ``jobs`` is vlint's default (not ``-j``): workers only for runs with enough work to pay for them
    auto_jobs: bool = False
    #: render kustomize overlays and Helm charts with the tools on PATH (False: ``--no-render``)
    render: bool = True
    #: why rendering is off, in the VL630 note (the language server: the editor does not run tools)
    render_off_reason: str = ""
    #: a file named on the command line that no source reads, whose name is none the folder walk reads,
    #: is an error (``vlint check``); else it is listed as skipped
    unknown_format_is_error: bool = False


def display_path(path: Path, root: Path) -> str:
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _resolves(path: Path) -> bool:
    """Whether every link on ``path`` leads somewhere (a loop does not: that is the file's own error)."""
    try:
        os.path.realpath(path, strict=True)
    except OSError:
        return False
    return True


#: opening a FIFO for reading must not wait
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)


class Reader:
    """Reads files once, with the size limit, for sources and linked files alike.

    :meth:`read` is for the files of the run (named on the command line, or found by the walk, which
    checks them against the lint root itself); :meth:`read_linked`, which sources get as their
    ``read_file``, is for files a linted file names: those must lie inside the lint root
    (:mod:`vlint.security.lint_root`). Refused references are recorded in :attr:`refused` so that none goes
    unreported.
    """

    def __init__(self, opts: LintOptions) -> None:
        self.opts = opts
        self._cache: dict[Path, SourceText | SourceError] = {}
        #: references not read because of the lint root: path as asked for → why
        self.refused: dict[Path, OutsideRoot] = {}
        #: every refusal in order, repeats included (each file that asks gets its own finding)
        self.refusals: list[OutsideRoot] = []
        #: what :func:`_extract` made of each file, for another lint with this reader (``vlint upgrade``'s
        #: two releases, the oracle's replay of one case at each release): (path, named, how charts are
        #: rendered) → (the file's result before checking, its launches, the path). Extraction depends on
        #: nothing else; a copy of the result is handed out, the launches are never changed after.
        self.extracted: dict[tuple[Path, bool, tuple[Any, ...]], tuple[FileResult, SourceResult | None, Path]] = {}
        #: how this run renders charts (set by :func:`lint_paths`): part of the key above
        self.render_key: tuple[Any, ...] = ()

    def read(self, path: Path) -> SourceText:
        """A file of the run, read as named (the walk checks what it finds itself: :meth:`read_found`)."""
        return self._cached(path.absolute(), None)

    def read_found(self, path: Path) -> SourceText:
        """A file the walk found below a folder given: opened beneath the lint root like a linked file,
        but shown by the path it was found at."""
        root = self.opts.lint_root
        if root is None:
            return self.read(path)
        return self._cached(path.absolute(), root)

    def read_linked(self, path: Path) -> SourceText:
        """A file that a linted file refers to: read only inside the lint root, by its real location
        (:meth:`vlint.security.lint_root.LintRoot.resolve`), which is also the path it is shown and cached by."""
        root = self.opts.lint_root
        if root is None:
            return self.read(path)
        asked = path.absolute()
        try:
            real, _ = root.resolve(asked)
        except Refused as e:
            err = self.refused.get(asked) or OutsideRoot(asked, display_path(asked, self.opts.root), e.why)
            self.refused[asked] = err
            self.refusals.append(err)
            raise err from None
        return self._cached(real, root)

    def _cached(self, key: Path, beneath: LintRoot | None) -> SourceText:
        hit = self._cache.get(key)
        if hit is None:
            hit = self._read(key, beneath)
            self._cache[key] = hit
        if isinstance(hit, SourceError):
            raise hit
        return hit

    def _read(self, path: Path, beneath: LintRoot | None = None) -> SourceText | SourceError:
        """``path``'s text; with ``beneath``, opened through the lint root's confined open (the path
        the check resolved is the one opened, component by component, following no link)."""
        shown = display_path(path, self.opts.root)
        limit = self.opts.max_file_size
        try:
            fd = beneath.open(path, _READ_FLAGS) if beneath is not None else os.open(path, _READ_FLAGS)
            data = read_fd(fd, limit)
        except NotReadable as e:
            return self._too_large(e.size) if e.size is not None else SourceError(e.strerror or str(e))
        except Refused as e:  # a link swapped in between the check and the open
            return OutsideRoot(path, shown, e.why)
        except IsADirectoryError:
            return SourceError("is a directory, not a file")
        except FileNotFoundError:
            return SourceError("no such file")
        except PermissionError:
            return SourceError("permission denied")
        except OSError as e:
            if e.errno == errno.ELOOP and beneath is not None and _resolves(path):  # a link the check did not see
                return OutsideRoot(path, shown, "changed into a symbolic link while vlint read it")
            return SourceError(f"cannot read: {e.strerror or e}")
        try:
            return SourceText(shown, path, *read_text(data))
        except SourceError as e:
            return e

    def _too_large(self, size: int) -> SourceError:
        limit = self.opts.max_file_size
        return SourceError(f"file is {size / 2**20:.1f} MiB, over the {limit / 2**20:.0f} MiB limit (--max-file-size)")


def lint_paths(paths: list[Path], engine: Engine, opts: LintOptions, *, reader: Reader | None = None) -> LintReport:
    """Lint ``paths``. ``reader`` replaces the file reader (``vlint fix`` lints edited text in memory).

    Two passes over the files: extract every file's launches (so that a config file a launch reads is
    known before it is linted on its own), then resolve and check each file. With ``opts.jobs > 1``
    and enough files the files are done in worker processes; the report is the same byte for byte.
    """
    if opts.lint_root is None:
        opts = replace(opts, lint_root=find_root(paths))
    if opts.resolve.lint_root is None:
        opts = replace(opts, resolve=replace(opts.resolve, lint_root=opts.lint_root))
    if opts.discover.lint_root is None:
        opts = replace(opts, discover=replace(opts.discover, lint_root=opts.lint_root))
    reader = reader or Reader(opts)
    if reader.opts.lint_root is None:
        reader.opts = opts
    from vlint.sources.render import configured

    lint_root = opts.lint_root
    reader.render_key = (opts.render, opts.render_off_reason, lint_root.folders if lint_root else None)
    with configured(opts.render, opts.lint_root, opts.render_off_reason):
        return _lint_paths(paths, engine, opts, reader)


def _lint_paths(paths: list[Path], engine: Engine, opts: LintOptions, reader: Reader) -> LintReport:
    found = list(discover(paths, opts.discover))
    jobs = _jobs_for(opts.jobs, found, auto=opts.auto_jobs)
    tick = opts.progress or (lambda done, total: None)
    if jobs > 1:
        checked = _parallel(found, jobs, reader, engine, opts)
    else:
        steps = 2 * len(found)
        extracted = []
        for d in found:
            extracted.append(_extract(d.path, d.explicit, reader))
            tick(len(extracted), steps)
        linked_by = _linked_by((fr.path, sr.linked) for fr, sr, _ in extracted if sr is not None)
        completed_by = _linked_by((fr.path, sr.completes) for fr, sr, _ in extracted if sr is not None)
        checked = []
        for item in extracted:
            checked.append(_check_file(item, linked_by, engine, opts, completed_by))
            tick(len(found) + len(checked), steps)
    results: list[FileResult] = []
    all_findings: list[Finding] = []
    secrets: list[Secret] = []
    seen: set[tuple[str, str, int, int, str]] = set()
    for fr, findings, found in checked:
        secrets.extend(found)
        if fr.used_by or fr.launches:  # read through another file's launch: checked there
            fr.skipped = ""
        # a finding in a file that several launches read (a shared --config) is reported once
        for f in findings:
            key = (f.code, f.span.path, f.span.line, f.span.column, f.message)
            if key not in seen:
                seen.add(key)
                fr.findings.append(f)
        results.append(fr)
        all_findings.extend(fr.findings)
    suppressed: list[Finding] = []
    if opts.suppress and results:
        from vlint.suppression.inline import apply_suppressions

        engine_for = None
        if opts.settings_for is not None:
            settings_for = opts.settings_for
            engine_for = lambda shown: settings_for(opts.root / shown)[0]  # noqa: E731
        suppressed = apply_suppressions(results, engine, reader.read, opts.root, engine_for=engine_for)
        all_findings = [f for fr in results for f in fr.findings]
    results.sort(key=lambda r: r.path)
    all_findings.sort(key=Finding.sort_key)
    read = frozenset(p for fr in results if fr.read for p in (fr.path, *fr.linked))
    return LintReport(results, all_findings, secrets, suppressed, read)


def _linked_by(links: Iterable[tuple[str, list[Path]]]) -> dict[Path, list[str]]:
    """Files that a launch reads (``--config``) → the files with those launches: they are linted
    through those launches, not on their own."""
    linked_by: dict[Path, list[str]] = {}
    for user, linked in links:
        for p in linked:
            linked_by.setdefault(_real(p), []).append(user)
    return linked_by


def _parallel(
    found: list[Discovered], jobs: int, reader: Reader, engine: Engine, opts: LintOptions
) -> list[tuple[FileResult, list[Finding], list[Secret]]]:
    """Both passes per file in one trip to a worker (as if no file were another's ``--config``); then,
    here, the few files that turn out to be read by a launch elsewhere are checked again as such."""
    _warm(engine, opts)
    more: dict[str, Any] = {"progress": opts.progress} if opts.progress is not None else {}
    # what is loaded now (catalogs, schemas, modules) outlives the pool: out of the collector's reach
    # while it runs, so that neither this process (unpickling the workers' results) nor the workers
    # (whose collections would otherwise touch, and so copy, every inherited page) scan it again — the
    # use the gc module's documentation gives gc.freeze ("before a fork() call to make the gc
    # copy-on-write friendly"); given back to the collector afterwards (a server lints again)
    gc.freeze()
    try:
        done = _map(
            lambda d: _extract_and_check(d, reader, engine, opts), found, jobs, send=_slim, cost=_file_size, **more
        )
    finally:
        gc.unfreeze()
    linked_by = _linked_by((fr.path, linked) for (fr, _, _), (linked, _), _ in done)
    completed_by = _linked_by((fr.path, completes) for (fr, _, _), (_, completes), _ in done)
    checked = []
    for d, (item, _, has_config) in zip(found, done, strict=True):
        if has_config and _real(d.path) in linked_by:
            item = _check_file(_extract(d.path, d.explicit, reader), linked_by, engine, opts, completed_by)
        elif linked_by.get(_real(d.path)):
            item[0].used_by = tuple(sorted(set(linked_by[_real(d.path)])))
        checked.append(item)
    return checked


def _extract_and_check(
    d: Discovered, reader: Reader, engine: Engine, opts: LintOptions
) -> tuple[tuple[FileResult, list[Finding], list[Secret]], tuple[list[Path], list[Path]], bool]:
    fr, sr, path = _extract(d.path, d.explicit, reader)
    links = (list(sr.linked), list(sr.completes)) if sr is not None else ([], [])
    # launches a linking file may check instead: a bare config file, a launch built in two files, a
    # wrapper script's launch an image's CMD completes (or a .env, whose variables are checked on their
    # own only when no launch reads it)
    has_config = sr is not None and (
        bool(sr.environment)
        or any(inv.program == "config" or inv.also_in or _takes_caller_args(inv) for inv in sr.invocations)
    )
    return _check_file((fr, sr, path), {}, engine, opts), links, has_config


def _takes_caller_args(inv: Invocation) -> bool:
    """A wrapper script's launch: vLLM gets the script's own arguments (``exec vllm serve "$@"``)."""
    return any(t.unresolved and t.text in CALLER_ARGS for t in inv.args)


def _shown(path: str, opts: LintOptions) -> str:
    """How the report names the file at ``path`` (as :attr:`FileResult.path` does)."""
    return display_path(Path(path), opts.root)


def _real(path: Path) -> Path:
    """``path`` with symbolic links resolved; as given when they loop (resolve raises on a loop)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def internal_error(what: str, e: BaseException) -> FileError:
    """A bug in vlint met while linting one file: that file gets this error, the others are linted."""
    where = ""
    tb = e.__traceback__
    while tb is not None:  # the innermost vlint frame says where to look
        if tb.tb_frame.f_globals.get("__name__", "").startswith("vlint."):
            where = f" at {tb.tb_frame.f_globals['__name__']}:{tb.tb_lineno}"
        tb = tb.tb_next
    detail = str(e).splitlines()[0][:200] if str(e) else ""
    return FileError(
        f"internal error while {what}: {type(e).__name__}{': ' + detail if detail else ''}{where}; "
        "this is a bug in vlint, please report it with the file"
    )


def _check_file(
    item: tuple[FileResult, SourceResult | None, Path],
    linked_by: dict[Path, list[str]],
    engine: Engine,
    opts: LintOptions,
    completed_by: dict[Path, list[str]] | None = None,
) -> tuple[FileResult, list[Finding], list[Secret]]:
    """Resolve and check one extracted file: (the file's result, its findings in order, secrets seen).
    ``completed_by``: wrapper scripts → the files whose launches complete them (:attr:`SourceResult.completes`)."""
    fr, sr, path = item
    resolve_opts = opts.resolve
    if opts.settings_for is not None:
        engine, resolve_opts = opts.settings_for(path)
        if resolve_opts.lint_root is None:
            resolve_opts.lint_root = opts.resolve.lint_root
    users = linked_by.get(_real(path))
    if users:
        fr.used_by = tuple(sorted(set(users)))
    if sr is None:
        return fr, [], []
    try:
        invocations = sr.invocations
        problems = sr.problems
        if users:  # a --config file: checked by the launches that read it, every key included
            invocations = [i for i in invocations if i.program != "config"]
            problems = [p for p in problems if p.code != "VL051"]
        covered = [i for i in invocations if i.also_in and _shown(i.also_in, opts) in (users or ())]
        if covered:  # built in the linked file too, which this run lints: checked there
            invocations = [i for i in invocations if i not in covered]
            fr.notes = tuple(dict.fromkeys([*fr.notes, *(i.elsewhere_note for i in covered if i.elsewhere_note)]))
        completers = sorted(set((completed_by or {}).get(_real(path), ())))
        wrapped = [i for i in invocations if completers and _takes_caller_args(i)]
        if wrapped:  # a wrapper whose arguments an image's CMD gives: the whole launch is checked there
            invocations = [i for i in invocations if i not in wrapped]
            note = (
                'its vLLM launch takes the arguments the script is run with ("$@"): checked in '
                f"{', '.join(completers)}, which runs it with them"
            )
            fr.notes = tuple(dict.fromkeys([*fr.notes, note]))
        kept = []
        for inv in invocations:
            words = len(inv.args) + len(inv.kwargs) + (len(inv.config.entries) if inv.config is not None else 0)
            if words > MAX_LAUNCH_WORDS:
                if fr.error is None:
                    fr.error = FileError(
                        f"this launch has {words:,} arguments, over the limit of {MAX_LAUNCH_WORDS:,}: not linted",
                        inv.span.line,
                        inv.span.column,
                    )
            else:
                kept.append(inv)
        deployments = [resolve(inv, resolve_opts, base_dir=path.parent) for inv in kept]
        fr.deployments = deployments
        fr.launches = len(deployments)
        fr.linked = tuple(sorted({display_path(p, opts.root) for p in sr.linked}))
        findings: list[Finding] = []
        for dep in deployments:
            findings.extend(engine.run_deployment(dep))
        ctx = FileContext(fr.path, deployments, sr.assignments, problems, sr.secret_tokens)
        if sr.environment and not deployments and not users:  # a .env no launch of the run reads
            ctx.environment = lone_environment(sr.environment, resolve_opts)
        secrets = list(find_secrets(ctx))
        findings.extend(engine.run_file(ctx))
    except Exception as e:  # the safety net: never lose the other files to one file's crash
        fr.error = internal_error("checking this file", e)
        fr.deployments, fr.launches = [], 0
        return fr, [], []
    return fr, sorted(findings, key=Finding.sort_key), secrets


def _extract(path: Path, explicit: bool, reader: Reader) -> tuple[FileResult, SourceResult | None, Path]:
    """The file's result before checking and its launches: read and extracted once per reader."""
    key = (path, explicit, reader.render_key)
    done = reader.extracted.get(key)
    if done is None:
        done = reader.extracted[key] = _extract_file(path, explicit, reader)
    fr, sr, at = done
    # checking fills the result in (deployments, findings, notes): each lint gets its own copy
    return replace(fr, findings=list(fr.findings), deployments=list(fr.deployments)), sr, at


def _extract_file(path: Path, explicit: bool, reader: Reader) -> tuple[FileResult, SourceResult | None, Path]:
    shown = display_path(path, reader.opts.root)
    fr = FileResult(shown)
    root = reader.opts.lint_root
    why = None if explicit or root is None else root.refusal(path)
    if why is not None:  # found by the walk, but a symbolic link out of the root (or into .git)
        note = Problem("VL060", Span(shown, 1, 1, 1, 1), f"{shown} {why}: not read", {"path": shown, "refused": shown})
        return fr, SourceResult(problems=[note]), path
    try:
        src = reader.read(path) if explicit else reader.read_found(path)
        fr.read = True
    except SourceError as e:
        fr.error = FileError(e.message, e.line, e.column)
        return fr, None, path
    except Exception as e:  # the safety net (an unexpected error from the file system or a decoder)
        fr.error = internal_error("reading this file", e)
        return fr, None, path
    combined = SourceResult()
    names: list[str] = []
    stage = "reading this file"
    refused_before = len(reader.refusals)
    try:
        for source in iter_sources(src, explicit=explicit):
            stage = f"reading this file as {source.name}"
            try:
                r = source.extract(src, reader.read_linked)
            except SourceError as e:
                fr.error = FileError(e.message, e.line, e.column)
                break
            stage = "reading this file"
            names.append(source.name)
            combined.invocations.extend(r.invocations)
            combined.assignments.extend(r.assignments)
            combined.environment.extend(r.environment)
            combined.secret_tokens.extend(r.secret_tokens)
            combined.problems.extend(r.problems)
            combined.notes.extend(r.notes)
            combined.linked.extend(r.linked)
            combined.completes.extend(r.completes)
            if r.error is not None and fr.error is None:
                fr.error = FileError(r.error.message, r.error.line, r.error.column)
            for name, text in r.embedded:
                stage = f"reading a {name} document of this file"
                part = source_named(name).extract(replace(src, text=text), reader.read_linked)
                stage = "reading this file"
                combined.invocations.extend(part.invocations)
                combined.secret_tokens.extend(part.secret_tokens)
                combined.problems.extend(part.problems)
                combined.notes.extend(part.notes)
                combined.linked.extend(part.linked)
                combined.completes.extend(part.completes)
            if combined.invocations:
                if r.invocations and len(names) > 1:
                    # a later source read the launches an earlier one found a template (VL604) in: no
                    # "not linted" notice for what was linted
                    combined.problems = [p for p in combined.problems if p.code != "VL604" or p in r.problems]
                break
    except Exception as e:  # the safety net: a source's bug costs this file only
        fr.error = internal_error(stage, e)
    if combined.invocations:
        from vlint.sources.pins import attach_pins

        lint_root = reader.opts.lint_root
        pin_root = lint_root.folder_of(src.abspath) if lint_root else reader.opts.root
        attach_pins(combined.invocations, src, reader.read_linked, pin_root)
    if not names and fr.error is None:
        fr.error = _unreadable_yaml(src, explicit)
    if not names and fr.error is None and explicit and not _readable_name(path):
        why = f"not a file vlint can read: {shown} (supported formats: {SUPPORTED_FORMATS})"
        if reader.opts.unknown_format_is_error:
            fr.error = FileError(why)
        elif _about_vllm(src.text):
            fr.skipped = f"mentions vLLM but is {why}"
    elif (
        fr.error is None
        and not combined.invocations
        and not combined.problems
        and not combined.notes
        and _about_vllm(src.text)
        and not looks_like_rule_file(src.text)  # a policy rule that mentions vLLM is not a deployment
    ):
        how = f" (read as {', '.join(names)})" if names else ""
        fr.skipped = f"mentions vLLM but has no vLLM launch vlint can read{how}"
    if src.undecodable is not None:
        combined.problems.append(_undecodable_note(src))
    fr.sources = tuple(names)
    fr.notes = tuple(dict.fromkeys(combined.notes))
    _report_refusals(reader.refusals[refused_before:], combined, shown)
    return fr, combined, path


def _undecodable_note(src: SourceText) -> Problem:
    """VL050: bytes that are not UTF-8 were read one character each (never quoted raw)."""
    count, line = src.undecodable or (0, 1)
    return Problem(
        "VL050",
        Span(src.path, line, 1, line, 1),
        f"{count} byte{'s' if count != 1 else ''} of this file {'are' if count != 1 else 'is'} not valid UTF-8 "
        f"(the first on line {line}): read as Windows-1252 characters; save the file as UTF-8 so that "
        "what vlint reads is what the tools read",
        {"bytes": count, "line": line},
    )


def _report_refusals(refusals: list[OutsideRoot], result: SourceResult, shown: str) -> None:
    """Every reference the lint root kept vlint from reading is a finding: where the source reported
    it on the line that names it, that one; else one on the file's first line (never silent)."""
    problems = [*result.problems, *(p for inv in result.invocations for p in inv.problems)]
    told = {str(p.data.get("refused")) for p in problems if p.code == "VL060"}
    for err in dict.fromkeys(refusals):
        if str(err.path) not in told:
            told.add(str(err.path))
            result.problems.append(
                Problem(
                    "VL060",
                    Span(shown, 1, 1, 1, 1),
                    f"this file refers to {err.shown}, which {err.why}: not read, so what it holds is not checked",
                    {"path": display_path(err.path, Path.cwd()), "refused": str(err.path)},
                )
            )


#: a ``key:`` at the start of a line (matched line by line: ``^\s*`` with MULTILINE spans blank lines
#: and rescans them from every line start)
_KEY_LINE = lazy_compile(r"[ \t]*([A-Za-z][\w-]*)[ \t]*:")


def _about_vllm(text: str) -> bool:
    """Names vLLM, or has at least two keys that are vLLM options (a --config file)."""
    if "vllm" in text.lower():
        return True
    from vlint.argspec.history import is_known_option

    keys = {m.group(1) for line in text.split("\n") if (m := _KEY_LINE.match(line)) is not None}
    return sum(1 for k in keys if k != "model" and is_known_option(k)) >= 2


#: what ``not a file vlint can read`` lists
SUPPORTED_FORMATS = (
    "shell scripts, vLLM --config YAML, Kubernetes manifests, kustomize overlays, Helm charts and values, "
    "compose files, GitHub Actions, SkyPilot, Ray Serve, Dockerfiles, Python, .env files, Makefiles, "
    "justfiles, Taskfiles, Procfiles, systemd units, supervisord configs"
)


def _readable_name(path: Path) -> bool:
    """Is the file's name one the folder walk reads (a YAML, a script, a Dockerfile…)? Such a file
    named on the command line (as pre-commit names every staged one) is read, launches or not."""
    from fnmatch import fnmatch

    from vlint.config.discover import DEFAULT_INCLUDE

    return any(fnmatch(path.name, pattern) for pattern in DEFAULT_INCLUDE)


def _unreadable_yaml(src: SourceText, explicit: bool) -> FileError | None:
    """A YAML file no source claimed because it does not parse: an error when it is about vLLM (it names
    vLLM, or it was given on the command line); other broken YAML in a repository is not vlint's business."""
    if src.abspath.suffix.lower() not in (".yaml", ".yml") or not (explicit or _about_vllm(src.text)):
        return None
    from vlint.sources.sniffing import has_template
    from vlint.sources.yaml_nodes import compose_all

    if has_template(src.text):
        return None
    try:
        compose_all(src.text, src.path)
    except SourceError as e:
        return FileError(e.message, e.line, e.column)
    return None


# -- parallel runs ---------------------------------------------------------------------------------
_T = TypeVar("_T")
_R = TypeVar("_R")
#: (function, items) of the map in progress: forked workers inherit it, so only indices and results
#: cross the process boundary
_WORK: tuple[Callable[[Any], Any], Sequence[Any], Callable[[Any], Any] | None] | None = None


#: why a worker pool failed and its items were done in this process instead (each failure of this
#: process; tests/reliability/test_partial_failure.py asserts a parallel run leaves it empty)
POOL_FAILURES: list[str] = []

#: a run is done in workers only when it has this much work: files + KiB/2 (the per-file cost grows
#: with the file; forking and sending results back cost about what 150 small files take: bench/speed.py)
PARALLEL_MIN_WORK = 300


def _file_size(d: Discovered) -> float:
    try:
        return float(d.path.stat().st_size)
    except OSError:  # read later, with the file's own error
        return 0.0


def _work(found: Sequence[Discovered]) -> float:
    total = 0
    for d in found:
        try:
            total += d.path.stat().st_size
        except OSError:  # read later, with the file's own error
            continue
    return len(found) + total / 2048


def _jobs_for(jobs: int, found: Sequence[Discovered], *, auto: bool = False) -> int:
    """Worker processes for the files ``found``: 1 (this process) for small runs — with ``auto`` (no
    ``-j`` given), for every run with less work than workers cost — or where fork is not available
    (workers inherit the loaded catalog and schemas instead of loading them again)."""
    files = len(found)
    if jobs <= 1 or files < PARALLEL_MIN_FILES or (auto and _work(found) < PARALLEL_MIN_WORK):
        return 1
    import multiprocessing  # not on the path of small runs (it imports socket, pickle, signal…)

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return min(jobs, max(1, files // (PARALLEL_MIN_FILES // 2)))


def _warm(engine: Engine, opts: LintOptions) -> None:
    """Before the workers fork: load the newest argument schema and check one launch (importing the
    resolver, the model and GPU catalogs and the memory model), so that the workers share them
    instead of each loading them again."""
    from vlint.argspec.spec import bundled_versions
    from vlint.core.span import Span
    from vlint.sources.registry import import_sources

    span = Span("<warm-up>", 1, 1, 1, 1)
    args = [Token("meta-llama/Llama-3.1-8B-Instruct", span)]
    try:
        bundled_versions()
        import_sources()
        engine.run_deployment(resolve(Invocation("cli", "vllm serve", span, args), opts.resolve))
        # and a name the catalog holds only as a variant (the name matcher), on no named GPU
        engine.run_deployment(
            resolve(Invocation("cli", "vllm serve", span, [Token("llama-3.1-8b", span)]), opts.resolve)
        )
    except Exception:  # only a warm-up
        pass


def _run_index(i: int) -> Any:
    assert _WORK is not None
    fn, items, send = _WORK
    result = fn(items[i])
    return send(result) if send is not None else result


def _slim(done: tuple[tuple[FileResult, list[Finding], list[Secret]], tuple[list[Path], list[Path]], bool]) -> Any:
    """What a worker sends back of a checked file: deployments without the resolved defaults, model
    architecture and memory estimate (most of the bytes; reports and suppressions do not read them)."""
    from vlint.launch.memory_status import memory_status

    for dep in done[0][0].deployments:
        memory_status(dep)  # the report's "memory model: …" line reads it: computed while it can be
        dep.resolved = {}
        dep.arch = None
        dep._memory, dep._memory_done, dep._gpu_fit = None, True, (None, None)
        dep.release_guess_alternative = None  # a closure (cannot be pickled); the checks have used it
    return done


def _map(
    fn: Callable[[_T], _R],
    items: Sequence[_T],
    jobs: int,
    send: Callable[[_R], _R] | None = None,
    progress: Callable[[int, int], None] | None = None,
    cost: Callable[[_T], float] | None = None,
) -> list[_R]:
    """``[fn(x) for x in items]``, in worker processes when ``jobs > 1`` (where ``send`` prepares each
    result for the trip back), results in order. With ``cost`` (a guess of each item's work) the items
    are handed out largest first in small chunks, so that no worker is left with a large one at the
    end while the others wait. Should the pool fail (a worker killed, a result that cannot be sent
    back), the items are done here instead."""
    global _WORK
    if jobs <= 1 or len(items) < 2:
        return [fn(x) for x in items]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _WORK = (fn, items, send)
    try:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            order = list(range(len(items)))
            if cost is not None:
                costs = [cost(x) for x in items]
                order.sort(key=lambda i: -costs[i])
                chunk = max(1, min(8, len(items) // (jobs * 8)))
            else:
                chunk = max(1, min(64, len(items) // (jobs * 4)))
            out: list[Any] = [None] * len(items)
            results = pool.map(_run_index, order, chunksize=chunk)
            for done, (i, result) in enumerate(zip(order, results, strict=True), 1):
                out[i] = result
                if progress is not None:
                    progress(done, len(items))
            return out
    except Exception as e:  # BrokenProcessPool, a pickling error: same results, one process
        POOL_FAILURES.append(f"{type(e).__name__}: {e}")  # (twice the work: the tests keep it empty)
        return [fn(x) for x in items]
    finally:
        _WORK = None
