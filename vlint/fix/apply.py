"""``vlint fix``: apply the findings' structured fixes to the files, verified by linting again.

The run works on the decoded text of every file in memory (an overlay the lint reads instead of the
disk) and only writes at the end, so ``--diff`` and ``fix`` compute exactly the same result:

1. lint; take every finding whose fix has structured changes (safe ones, plus unsafe ones with
   ``--unsafe-fixes``), turn the changes into span edits (:mod:`vlint.fix.editor`), skipping fixes
   whose edits overlap one already taken this round and every file that failed to parse;
2. lint the edited text again and accept the round only if every fixed finding is gone, no file
   stopped parsing, vLLM's parser rejects nothing new (VL0xx) and no new error appeared; otherwise
   retry that round's fixes one at a time and drop those that fail;
3. repeat (overlapping fixes land in later rounds) until nothing changes.

Files keep their encoding details: a UTF-8 BOM and CRLF line endings are restored when written.
"""

from __future__ import annotations

import codecs
import contextlib
import difflib
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

from vlint.core.finding import Finding
from vlint.core.record import field, record
from vlint.engine.results import LintReport
from vlint.engine.runner import Engine
from vlint.fix.editor import CannotApply, Text, TextEdit, apply_edits, edits_for
from vlint.run.lint import LintOptions, Reader, display_path, lint_paths
from vlint.security.lint_root import LintRoot, real_path
from vlint.sources.base import SourceError, SourceText
from vlint.suppression.inline import UNUSED

MAX_ROUNDS = 10
#: formats whose text ``vlint fix`` edits (Python sources and Helm templates are left alone: an
#: argv word there is an expression or a template, not text that can be rewritten in place)
EDITABLE_SOURCES = frozenset(
    {"shell", "vllm-config", "kubernetes", "helm", "compose", "github-actions", "skypilot", "dockerfile"}
)


def _norm(path: Path) -> Path:
    return Path(os.path.normpath(path.absolute()))


class OverlayReader(Reader):
    """Reads edited text from memory, everything else from disk."""

    def __init__(self, opts: LintOptions, overlay: dict[Path, str]) -> None:
        super().__init__(opts)
        self.overlay = overlay

    def _read(self, path: Path, beneath: LintRoot | None = None) -> SourceText | SourceError:
        text = self.overlay.get(_norm(path))
        if text is not None:
            return SourceText(display_path(path, self.opts.root), path, text)
        return super()._read(path, beneath)


@record(slots=True)
class FixRecord:
    """A fix that was applied (or not, with the reason)."""

    code: str
    path: str
    line: int
    column: int
    description: str
    unsafe: bool
    files: tuple[str, ...] = ()
    reason: str = ""
    #: the other ways the finding offered, not applied
    alternatives: tuple[str, ...] = ()


@record(slots=True)
class FixOutcome:
    before: LintReport
    after: LintReport
    applied: list[FixRecord] = field(default_factory=list)
    skipped: list[FixRecord] = field(default_factory=list)
    #: file → (display path, original text, fixed text), for changed files only
    changed: dict[Path, tuple[str, str, str]] = field(default_factory=dict)

    #: which findings were to be fixed (None: all)
    wanted: Callable[[Finding], bool] | None = None

    @property
    def unsafe_left(self) -> list[Finding]:
        """Remaining findings that ``--unsafe-fixes`` could fix."""
        return [
            f
            for f in self.after.findings
            if f.fix is not None and f.fix.changes and f.fix.unsafe and (self.wanted is None or self.wanted(f))
        ]

    def diff(self) -> str:
        """The fixes as a unified diff, with every secret masked as reports mask it (the lines are
        masked before they are compared, so no hunk can show a secret's text)."""
        originals = {shown: old for shown, old, _ in self.changed.values()}
        red = self.before.redactor(lambda path: originals[path].split("\n") if path in originals else None)
        out: list[str] = []
        for _, (shown, old, new) in sorted(self.changed.items(), key=lambda kv: kv[1][0]):
            old_lines = [
                red.line(shown, i, line.rstrip("\n")) + ("\n" if line.endswith("\n") else "")
                for i, line in enumerate(old.splitlines(keepends=True), 1)
            ]
            new_lines = [red.fragment(line) for line in new.splitlines(keepends=True)]
            out.extend(difflib.unified_diff(old_lines, new_lines, fromfile=f"a/{shown}", tofile=f"b/{shown}"))
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)


def _key(f: Finding) -> tuple[str, str, str]:
    assert f.fix is not None
    return (f.code, f.span.path, f.fix.description)


def _record(f: Finding, files: tuple[str, ...] = (), reason: str = "") -> FixRecord:
    assert f.fix is not None
    fix = f.fix
    return FixRecord(
        f.code,
        f.span.path,
        f.span.line,
        f.span.column,
        fix.applied_description,
        fix.unsafe,
        files,
        reason,
        fix.alternatives,
    )


class _Run:
    def __init__(
        self,
        paths: list[Path],
        engine: Engine,
        opts: LintOptions,
        post: Callable[[LintReport], None] | None,
    ) -> None:
        self.paths = paths
        self.engine = engine
        #: for the lints that check an edit: findings without the fixes checks defer
        self.checker = engine.without_fixes()
        self.opts = opts
        self.post = post
        self.overlay: dict[Path, str] = {}
        self.display: dict[Path, str] = {}
        self.originals: dict[Path, str] = {}

    def lint(self, overlay: dict[Path, str], only: list[str] | None = None, *, fixes: bool = True) -> LintReport:
        """Lint the run's paths (or ``only`` these files) as the overlay has them; ``fixes=False``: the
        findings only (:func:`verify` compares what is reported, never how it would be fixed)."""
        paths = self.paths if only is None else [self.abspath(p) for p in only]
        engine = self.engine if fixes else self.checker
        report = lint_paths(paths, engine, self.opts, reader=OverlayReader(self.opts, overlay))
        if self.post is not None:
            self.post(report)
        return report

    def abspath(self, shown: str) -> Path:
        return _norm(self.opts.root / shown)

    def unwritable(self, shown: str) -> str | None:
        """Why ``vlint fix`` will not edit this file, or None."""
        p = self.abspath(shown)
        if p in self.overlay and not p.exists():  # an editor's unsaved buffer
            return None
        return write_refusal(p, self.opts.lint_root)

    def text(self, shown: str, overlay: dict[Path, str]) -> Text:
        p = self.abspath(shown)
        if p in overlay:
            return Text(shown, overlay[p])
        src = Reader(self.opts).read(p)
        self.originals.setdefault(p, src.text)
        self.display.setdefault(p, shown)
        return Text(shown, src.text)


def _broken_files(report: LintReport) -> set[str]:
    return {fr.path for fr in report.files if fr.error is not None}


def _counts(report: LintReport, pred: Callable[[Finding], bool]) -> Counter[tuple[str, str]]:
    return Counter((f.code, f.span.path) for f in report.findings if pred(f))


def verify(before: LintReport, after: LintReport, fixed: list[Finding]) -> str | None:
    """Why the edited files are worse than before (None: the fixes are good)."""
    broken_before = _broken_files(before)
    for fr in after.files:
        if fr.error is not None and fr.path not in broken_before:
            return f"{fr.path} would no longer parse: {fr.error.message}"
    launches_before = {fr.path: fr.launches for fr in before.files}
    for fr in after.files:
        if fr.launches < launches_before.get(fr.path, 0):
            return f"vlint would no longer find every vLLM launch in {fr.path}"
    parse_before = _counts(before, lambda f: f.code.startswith("VL0"))
    for key, n in _counts(after, lambda f: f.code.startswith("VL0")).items():
        if n > parse_before.get(key, 0):
            return f"vLLM would reject the result ({key[0]} in {key[1]})"
    errors_before = _counts(before, lambda f: f.severity == "error")
    for key, n in _counts(after, lambda f: f.severity == "error").items():
        if n > errors_before.get(key, 0):
            return f"the result has a new error ({key[0]} in {key[1]})"
    all_before = _counts(before, lambda f: True)
    all_after = _counts(after, lambda f: True)
    expected = Counter((f.code, f.span.path) for f in fixed)
    for key, n in expected.items():
        if all_after.get(key, 0) > all_before.get(key, 0) - n:
            return f"{key[0]} would still be reported"
    # fixes re-lint clean: none may bring a finding of its own (VL210's shorter context reporting VL211
    # low concurrency). A suppression the fix leaves unused (VL901) is not held against it.
    brought = {code for f in fixed if f.fix is not None for code in f.fix.brings}
    for key, n in all_after.items():
        if key[0] != UNUSED and key[0] not in brought and key not in expected and n > all_before.get(key, 0):
            return f"the result would bring a new finding ({key[0]} in {key[1]})"
    return None


def fix_paths(
    paths: list[Path],
    engine: Engine,
    opts: LintOptions,
    *,
    unsafe: bool = False,
    post: Callable[[LintReport], None] | None = None,
    wanted: Callable[[Finding], bool] | None = None,
    texts: Mapping[Path, str] | None = None,
) -> FixOutcome:
    """Compute the fixed text of every file (nothing is written; see :func:`write_fixed`).

    ``post`` filters each lint report (config excludes, per-file ignores); ``wanted`` chooses which
    findings to fix. Every finding the engine reports takes part in the verification. ``texts`` is
    the current text of files that differ from the disk (an editor's unsaved buffers, by absolute
    path, line ends as ``\n``): the fixes start from it and ``changed`` compares against it."""
    run = _Run(paths, engine, opts, post)
    for p, text in (texts or {}).items():
        key = _norm(p)
        run.overlay[key] = run.originals[key] = text
        run.display[key] = display_path(key, opts.root)
    report = run.lint(run.overlay)
    outcome = FixOutcome(before=report, after=report, wanted=wanted)
    given_up: dict[tuple[str, str, str], FixRecord] = {}
    for _ in range(MAX_ROUNDS):
        planned, deferred = _plan(run, report, unsafe, given_up, wanted)
        if not planned:
            break
        base = run.overlay
        accepted: list[_Planned] = []
        for group in _groups(planned):
            accepted.extend(_verified(run, base, group, given_up))
        if not accepted:
            if deferred:  # fixes that overlapped this round's (all given up now) get their turn
                continue
            break
        run.overlay = _with_edits(run, base, [e for p in accepted for e in p.edits])
        outcome.applied.extend(_record(p.finding, _files(p.edits)) for p in accepted)
        report = run.lint(run.overlay)
    outcome.after = report
    # a fix given up in one round may have been computed again and applied in a later one: only
    # findings still reported need a reason
    left = {(f.code, f.span.path) for f in report.findings}
    outcome.skipped = [r for r in given_up.values() if (r.code, r.path) in left]
    for p, text in run.overlay.items():
        old = run.originals[p]
        if text != old:
            outcome.changed[p] = (run.display[p], old, text)
    return outcome


@record(slots=True)
class _Planned:
    finding: Finding
    edits: list[TextEdit]
    #: the file whose launches report the finding (linting it alone reproduces the finding)
    owner: str


def _groups(planned: list[_Planned]) -> list[list[_Planned]]:
    """Fixes that share a file (the one reporting them or one they edit) are verified together."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for p in planned:
        for path in {e.path for e in p.edits}:
            parent[find(path)] = find(p.owner)
    groups: dict[str, list[_Planned]] = {}
    for p in planned:
        groups.setdefault(find(p.owner), []).append(p)
    return list(groups.values())


def _verified(
    run: _Run, base: dict[Path, str], group: list[_Planned], given_up: dict[tuple[str, str, str], FixRecord]
) -> list[_Planned]:
    """The fixes of one group that pass :func:`verify`: all at once, else one at a time."""
    targets = sorted({p.owner for p in group} | {e.path for p in group for e in p.edits})
    before = run.lint(base, targets, fixes=False)
    after = run.lint(_with_edits(run, base, [e for p in group for e in p.edits]), targets, fixes=False)
    if verify(before, after, [p.finding for p in group]) is None:
        return group
    kept: list[_Planned] = []
    # rule codes run from vLLM's parser (VL0xx) to settings (VL1xx, VL20x) to the memory model
    # (VL21x): a later rule's fix is computed from settings an earlier one changes (a max-model-len
    # that fits at the gpu_memory_utilization VL201 lowers), so earlier codes are tried first and a
    # later fix that no longer holds is computed again in the next round
    for p in sorted(group, key=lambda p: p.finding.code):
        trial = _with_edits(run, base, [e for k in [*kept, p] for e in k.edits])
        problem = verify(before, run.lint(trial, targets, fixes=False), [k.finding for k in [*kept, p]])
        if problem is None:
            kept.append(p)
        else:
            if kept and not problem.startswith(p.finding.code):
                problem = "together with the other fixes, " + problem
            given_up[_key(p.finding)] = _record(p.finding, reason=problem)
    return kept


def _files(edits: list[TextEdit]) -> tuple[str, ...]:
    return tuple(sorted({e.path for e in edits}))


def _plan(
    run: _Run,
    report: LintReport,
    unsafe: bool,
    given_up: dict[tuple[str, str, str], FixRecord],
    wanted: Callable[[Finding], bool] | None,
) -> tuple[list[_Planned], int]:
    """This round's fixes (applicable, allowed, not overlapping each other) and how many were left
    for a later round because they overlap one of them."""
    broken = _broken_files(report)
    finding_file = {id(f): fr.path for fr in report.files for f in fr.findings}
    formats = {fr.path: fr.sources for fr in report.files}
    planned: list[_Planned] = []
    deferred = 0
    taken: list[TextEdit] = []
    texts: dict[str, Text] = {}
    for f in report.findings:
        fix = f.fix
        if fix is None or not fix.changes or (fix.unsafe and not unsafe) or _key(f) in given_up:
            continue
        if wanted is not None and not wanted(f):
            continue
        if finding_file.get(id(f)) in broken:
            given_up[_key(f)] = _record(f, reason=f"{finding_file[id(f)]} failed to parse; it is not edited")
            continue
        try:
            edits: list[TextEdit] = []
            for change in fix.changes:
                for s in change.spans + ((change.anchor,) if change.anchor else ()):
                    if s.path in broken:
                        raise CannotApply(f"{s.path} failed to parse; it is not edited")
                    if s.path in formats and not EDITABLE_SOURCES.intersection(formats[s.path]):
                        shown = ", ".join(formats[s.path]) or "this format"
                        raise CannotApply(f"vlint fix does not edit {shown} files ({s.path})")
                    if s.path not in texts:
                        why = run.unwritable(s.path)
                        if why is not None:
                            raise CannotApply(f"{s.path} {why}")
                        texts[s.path] = run.text(s.path, run.overlay)
                edits.extend(edits_for(change, texts))
        except (CannotApply, SourceError) as e:
            given_up[_key(f)] = _record(f, reason=str(e) if isinstance(e, CannotApply) else e.message)
            continue
        if any(e.overlaps(t) for e in edits for t in taken):
            deferred += 1
            continue  # next round, on the text this round produces
        planned.append(_Planned(f, edits, finding_file.get(id(f), f.span.path)))
        taken.extend(edits)
    return planned, deferred


def _with_edits(run: _Run, overlay: dict[Path, str], edits: list[TextEdit]) -> dict[Path, str]:
    out = dict(overlay)
    by_path: dict[str, list[TextEdit]] = {}
    for e in edits:
        by_path.setdefault(e.path, []).append(e)
    for shown, es in by_path.items():
        p = run.abspath(shown)
        out[p] = apply_edits(run.text(shown, overlay).text, es)
    return out


# -- writing -------------------------------------------------------------------------------------
def encode_like(text: str, original: bytes) -> bytes:
    """``text`` encoded the way the original file was: UTF-8 or UTF-16 with its BOM, CRLF endings."""
    if original.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        crlf = "\r\n".encode("utf-16-le") in original or "\r\n".encode("utf-16-be") in original
        return (text.replace("\n", "\r\n") if crlf else text).encode("utf-16")
    if b"\r\n" in original:
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    return codecs.BOM_UTF8 + data if original.startswith(codecs.BOM_UTF8) else data


def write_refusal(path: Path, root: LintRoot | None) -> str | None:
    """Why a fix must not be written to ``path``: outside the lint root, a symbolic link (or reached
    through one), a file with several hard links (replacing it would split them); None when it may."""
    if root is not None:
        why = root.refusal(path)
        if why is not None:
            return why
    if real_path(path) != Path(os.path.abspath(path)):
        return "is a symbolic link (or inside a linked folder): vlint never writes through a link"
    try:
        links = os.lstat(path).st_nlink
    except OSError:
        return None
    if links > 1:
        return f"has {links} hard links: replacing it would split them, so vlint does not write it"
    return None


def write_fixed(outcome: FixOutcome, root: LintRoot | None = None) -> list[str]:
    """Write the changed files; returns errors, one per file.

    Each file is checked again just before it is written (inside the root, no symbolic link, a
    single hard link, unchanged since it was read), written to a temporary file beside it with the
    original's mode (and owner, where allowed), flushed to disk, and moved over it atomically."""
    from vlint.sources.decode import decode

    errors: list[str] = []
    for p, (shown, old, new) in sorted(outcome.changed.items(), key=lambda kv: kv[1][0]):
        why = write_refusal(p, root)
        if why is not None:
            errors.append(f"{shown}: not fixed: {why}")
            continue
        try:
            original = p.read_bytes()
            if decode(original, strict=True) != old:
                errors.append(f"{shown}: changed on disk while vlint was fixing it; not written")
                continue
            st = os.lstat(p)
            data = encode_like(new, original)
            fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".vlint")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.chmod(tmp, stat.S_IMODE(st.st_mode))
                with contextlib.suppress(OSError):  # keeping the owner needs the right to give files away
                    os.chown(tmp, st.st_uid, st.st_gid)
                os.replace(tmp, p)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            _fsync_dir(p.parent)
        except (OSError, SourceError) as e:
            errors.append(f"{shown}: cannot write: {getattr(e, 'strerror', None) or e}")
    return errors


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
