"""Code actions: a finding's fix, "disable VLxxx for this line", "fix all safe" for the document.

Every edit offered is verified the way ``vlint fix`` verifies its fixes: the fix itself is computed
by :func:`vlint.fix.apply.fix_paths` (which lints the edited text again and keeps a fix only if its
finding is gone and nothing got worse), and a suppression comment is kept only if linting the text
with it no longer reports the finding and passes the same :func:`vlint.fix.apply.verify`. An edit
that does not verify is not offered (or offered disabled, with the reason, to clients that show
that). Results are kept per buffer version: asking again costs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types

from vlint.core.lazy_re import lazy_compile
from vlint.core.typing_names import TYPE_CHECKING
from vlint.sources.base import SourceError
from vlint.suppression.inline import UNUSED

if TYPE_CHECKING:
    from vlint.core.finding import Finding
    from vlint.security.secrets import Redactor
from vlint.server.session import FIX_ALL_KIND, Buffer, DocResult, Entry, Session, _overlaps, _wanted, norm

_CONTINUED = lazy_compile(r"(?<!\\)\\$")


def for_finding(
    session: Session, result: DocResult, buf: Buffer, entry: Entry, disabled_support: bool
) -> list[types.CodeAction]:
    """The quick fixes of one diagnostic: its fix (when it has structured changes), then the
    suppression comment."""
    from vlint.server.session import finding_key

    f = entry.finding
    red = result.report.redactor() if result.report is not None else Redactor([])
    out: list[types.CodeAction] = []
    key = finding_key(f)
    if f.fix is not None and f.fix.changes:
        done = _cached(result, ("fix", key), lambda: _fix_one(session, result, f))
        label = "Fix" if not f.fix.unsafe else "Fix (unsafe: changes behaviour)"
        title = f"{label} {f.code}: {red.text(f.fix.description)}"
        if isinstance(done, str):
            if disabled_support:
                out.append(
                    types.CodeAction(
                        title=title,
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[entry.diagnostic],
                        disabled=types.CodeActionDisabled(reason=red.text(done)),
                    )
                )
        else:
            out.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[entry.diagnostic],
                    is_preferred=not f.fix.unsafe,
                    edit=done[1],
                )
            )
    if f.code == UNUSED:  # an unused suppression is fixed by deleting it, not by another one
        return out
    done = _cached(result, ("disable", key), lambda: _disable(session, result, f))
    if not isinstance(done, str):
        out.append(
            types.CodeAction(
                title=done[0], kind=types.CodeActionKind.QuickFix, diagnostics=[entry.diagnostic], edit=done[1]
            )
        )
    return out


def _cached(
    result: DocResult, key: tuple[object, ...], compute: Callable[[], tuple[str, types.WorkspaceEdit] | str]
) -> tuple[str, types.WorkspaceEdit] | str:
    hit = result.actions.get(key)
    if hit is None:
        hit = compute()
        result.actions[key] = hit
    return hit


def has_safe_fix(result: DocResult, buf: Buffer) -> bool:
    return any(
        e.finding.fix is not None and e.finding.fix.changes and not e.finding.fix.unsafe
        for e in result.entries
        if e.finding.span.path == _shown(result, buf)
    )


def _shown(result: DocResult, buf: Buffer) -> str:
    from vlint.run.lint import display_path

    assert result.scope is not None
    return display_path(buf.path, result.scope.folder)


# -- fixes ----------------------------------------------------------------------------------------
def _fix_one(session: Session, result: DocResult, f: Finding) -> tuple[str, types.WorkspaceEdit] | str:
    from vlint.server.session import finding_key

    key = finding_key(f)
    return _fix(session, result, lambda x: finding_key(x) == key, unsafe=bool(f.fix and f.fix.unsafe))


def fix_all(session: Session, result: DocResult, buf: Buffer) -> tuple[str, types.WorkspaceEdit] | str:
    shown = _shown(result, buf)
    return _cached(result, ("fix-all",), lambda: _fix(session, result, lambda x: x.span.path == shown, unsafe=False))


def _fix(
    session: Session, result: DocResult, wanted: Callable[[Finding], bool], *, unsafe: bool
) -> tuple[str, types.WorkspaceEdit] | str:
    from vlint.fix.apply import fix_paths

    assert result.setup is not None and result.scope is not None
    setup = result.setup
    outcome = fix_paths(
        result.paths,
        setup.engine,
        setup.opts,
        unsafe=unsafe,
        post=setup.post,
        wanted=wanted,
        texts=session.texts(),
    )
    if not outcome.applied or not outcome.changed:
        reasons = sorted({r.reason for r in outcome.skipped if r.reason})
        return "; ".join(reasons) or "vlint fix found nothing it could change safely"
    n = len(outcome.applied)
    title = f"Fix {n} vlint problem{'s' if n != 1 else ''} in this file"
    return title, session.workspace_edit(outcome.changed, result.scope.folder)


# -- suppression comments ----------------------------------------------------------------------------
def _disable(session: Session, result: DocResult, f: Finding) -> tuple[str, types.WorkspaceEdit] | str:
    """A ``# vlint: disable=CODE`` comment that suppresses ``f``: added to a directive already
    covering its line, else at the end of the line, else on a line of its own above the command; the
    first that verifies."""
    from vlint.fix.apply import verify
    from vlint.server.session import norm

    assert result.setup is not None and result.scope is not None and result.report is not None
    folder = result.scope.folder
    target = norm(folder / f.span.path)
    texts = session.texts()
    text = texts.get(target)
    if text is None:
        try:
            text = _read(result, target)
        except SourceError as e:
            return e.message
    last = "no comment placement suppresses it"
    for title, new in _placements(text, f, result):
        after, _ = session.run(result.setup, result.paths, {**texts, target: new})
        problem = verify(result.report, after, [f])
        if problem is None:
            return title, session.workspace_edit({target: (f.span.path, text, new)}, folder)
        last = problem
    return last


def _read(result: DocResult, path: Path) -> str:
    from vlint.run.lint import Reader

    assert result.setup is not None
    return Reader(result.setup.opts).read(path).text


def _placements(text: str, f: Finding, result: DocResult) -> list[tuple[str, str]]:
    """Candidate texts with the suppression, best first."""
    from vlint.sources.sniffing import is_dockerfile_name
    from vlint.suppression.inline import flavor_of, parse_directives

    code, line = f.code, f.span.line
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return []
    out: list[tuple[str, str]] = []
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    # a directive that already covers the line: one more code in its list
    catalog = result.setup.engine.catalog if result.setup is not None else None

    def resolve(ref: str) -> str | None:
        rule = catalog.find(ref) if catalog is not None else None
        return rule.code if rule is not None else None

    for d in parse_directives(text, f.span.path, resolve):
        if d.kind == "disable" and line in d.covers and d.refs:
            end = d.refs[-1].span
            at = starts[end.line - 1] + end.end_column - 1
            out.append((f"Disable {code} for this line (add it to the comment)", text[:at] + "," + code + text[at:]))
    first, last = line, line
    while first > 1 and _CONTINUED.search(lines[first - 2]):
        first -= 1
    while last < len(lines) and _CONTINUED.search(lines[last - 1]):
        last += 1
    name = f.span.path.replace("\\", "/").rsplit("/", 1)[-1]
    # Dockerfiles have comments only on lines of their own; .env readers disagree on comments after a value
    eol_ok = flavor_of(name) != "shell" or not (is_dockerfile_name(name) or ".env" in name.lower())
    comment = f"# vlint: disable={code}"
    if first == last and eol_ok:
        body = lines[line - 1].rstrip(" \t")
        at = starts[line - 1]
        new = text[:at] + body + "  " + comment + text[at + len(lines[line - 1]) :]
        out.append((f"Disable {code} for this line", new))
    indent = re.match(r"[ \t]*", lines[first - 1]).group(0)  # type: ignore[union-attr]
    at = starts[first - 1]
    what = "this line" if first == last else f"this command (lines {first}–{last})"
    out.append((f"Disable {code} for {what}", text[:at] + indent + comment + "\n" + text[at:]))
    return out


# -- what the editor asks for ---------------------------------------------------------------
def code_actions(
    session: Session,
    path: Path,
    rng: types.Range,
    only: list[str] | None = None,
    *,
    resolve: bool = False,
    disabled_support: bool = False,
) -> list[types.CodeAction]:
    """Quick fixes (each finding's verified fix, "disable VLxxx for this line") for the findings
    in ``rng``, and "fix all safe" for the document. With ``resolve`` the fix-all edit is left
    for ``codeAction/resolve`` (it lints the file several times)."""
    if norm(path) not in session.buffers:
        return []
    result = session.current(path)
    buf = session.buffers[norm(path)]
    if result.report is None:
        return []
    out: list[types.CodeAction] = []
    if _wanted(types.CodeActionKind.QuickFix, only):
        for entry in result.entries:
            if not _overlaps(entry.diagnostic.range, rng):
                continue
            out.extend(for_finding(session, result, buf, entry, disabled_support))
    if _wanted(FIX_ALL_KIND, only) and has_safe_fix(result, buf):
        action = types.CodeAction(
            title="Fix all safe vlint problems in this file",
            kind=FIX_ALL_KIND,
            data={"uri": buf.uri, "version": buf.version, "action": "fix-all"},
        )
        if not resolve:
            action = resolve_action(session, path, action)
            if action.edit is None:
                return out
        out.append(action)
    return out


def resolve_action(session: Session, path: Path, action: types.CodeAction) -> types.CodeAction:
    if norm(path) not in session.buffers:
        return action
    result = session.current(path)
    buf = session.buffers[norm(path)]
    data = action.data if isinstance(action.data, dict) else {}
    if data.get("action") == "fix-all" and data.get("version") == buf.version:
        done = fix_all(session, result, buf)
        if isinstance(done, str):
            action.disabled = types.CodeActionDisabled(reason=done)
        else:
            action.title, action.edit = done
    return action
