"""Text report like ruff: ``path:line:col: CODE [severity] message`` with a code frame."""

from __future__ import annotations

from collections.abc import Callable

from vlint.core.escape import printable
from vlint.core.finding import Finding
from vlint.engine.results import LintReport
from vlint.security.secrets import Redactor

_SEV_COLOR = {"error": "red", "warning": "yellow", "info": "blue"}


class Styler:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, **kw: object) -> str:
        if not self.color:
            return text
        import click

        return click.style(text, **kw)  # type: ignore[arg-type]


def _frame(
    f: Finding, lines: list[str] | None, st: Styler, red: Redactor, shown: dict[tuple[str, int], str]
) -> list[str]:
    if not lines or f.span.line < 1 or f.span.line > len(lines):
        return []
    # each line redacted once (``shown``): thousands of findings on one long line redacted it each time
    line = shown.get((f.span.path, f.span.line))
    if line is None:
        line = printable(red.line(f.span.path, f.span.line, lines[f.span.line - 1].rstrip("\n").replace("\t", " ")))
        shown[(f.span.path, f.span.line)] = line
    width = len(str(f.span.line))
    gutter = " " * width
    start = max(f.span.column, 1)
    end = f.span.end_column if f.span.end_line == f.span.line and f.span.end_column > start else len(line) + 1
    end = min(max(end, start + 1), max(len(line) + 1, start + 1))
    if len(line) > 160:  # keep long lines readable: a window around the span
        lo = max(0, start - 60)
        line = ("…" if lo else "") + line[lo : lo + 140] + "…"
        shift = lo - (1 if lo else 0)
        start, end = start - shift, min(end - shift, len(line) + 1)
    caret = " " * (start - 1) + "^" * max(1, end - start)
    return [
        f"{gutter} {st('|', fg='blue')}",
        f"{st(str(f.span.line), fg='blue')} {st('|', fg='blue')} {line}",
        f"{gutter} {st('|', fg='blue')} {st(caret, fg=_SEV_COLOR[f.severity], bold=True)}",
    ]


def render(
    report: LintReport,
    *,
    color: bool = False,
    quiet: bool = False,
    source_lines: Callable[[str], list[str] | None] = lambda p: None,
) -> str:
    st = Styler(color)
    red = report.redactor(source_lines)
    shown: dict[tuple[str, int], str] = {}
    out: list[str] = []
    for fr in report.files:
        if fr.error is not None:
            loc = printable(f"{fr.path}:{fr.error.line}" if fr.error.line else fr.path)
            message = printable(red.text(fr.error.message))
            out.append(f"{st(loc, bold=True)}: {st('error', fg='red', bold=True)}: {message}")
    for f in report.findings:
        where = printable(f"{f.span.path}:{f.span.line}:{f.span.column}")
        head = (
            f"{st(where, bold=True)}: "
            f"{st(f.code, fg=_SEV_COLOR[f.severity], bold=True)} [{f.severity}] {printable(red.text(f.message))}"
        )
        out.append(head)
        if quiet:
            continue
        out.extend(_frame(f, source_lines(f.span.path), st, red, shown))
        if f.fix is not None:
            fix = printable(red.text(f.fix.description))
            color = "green" if f.fix.applicable else "cyan"
            out.append(f"{' ' * len(str(f.span.line))} = {st(f.fix.label, fg=color)}: {fix}")
        out.append("")
    if not quiet:  # one line per launch that starts: what a reviewer reads in a CI log
        out.extend(printable(red.text(line)) for line in launch_memory_lines(report))
    memory = memory_line(report, red)
    if memory:
        out.append(memory)
    out.extend(note_lines(report, red))
    out.append(summary(report, st))
    return "\n".join(out) + "\n"


def launch_memory_lines(report: LintReport) -> list[str]:
    """The memory line of every launch that has one (:attr:`vlint.launch.memory_status.MemoryStatus.line`),
    in file order."""
    from vlint.launch.memory_status import memory_status

    return [line for fr in report.files for d in fr.deployments if (line := memory_status(d).line) is not None]


def memory_line(report: LintReport, red: Redactor | None = None) -> str | None:
    """``memory model: 5 of 7 launches; not checked: 2 — …`` (:mod:`vlint.launch.memory_status`): secrets masked,
    control characters of the model names and paths it quotes shown as escapes."""
    from vlint.launch.memory_status import summary_line

    line = summary_line(d for fr in report.files for d in fr.deployments)
    return None if line is None else printable((red or report.redactor()).text(line))


def note_lines(report: LintReport, red: Redactor | None = None, *, files: bool = True) -> list[str]:
    """``note: …`` lines: what vlint assumed about the launches' GPUs and how to state it
    (:func:`vlint.launch.memory_status.note_lines`), then (``files``) what was not checked for a reason
    that is no fault of the files (:func:`file_note_lines`), secrets masked."""
    from vlint.launch.memory_status import note_lines as lines

    red = red or report.redactor()
    out = [printable(red.text(line)) for line in lines(d for fr in report.files for d in fr.deployments)]
    return out + (file_note_lines(report, red) if files else [])


def file_note_lines(report: LintReport, red: Redactor | None = None) -> list[str]:
    """``note: PATH: …``, one per :attr:`vlint.engine.results.FileResult.notes` (a tool that is not
    installed, a file that was not given): said once, never a finding."""
    red = red or report.redactor()
    return [printable(red.text(f"note: {fr.path}: {n}")) for fr in report.files for n in fr.notes]


def all_checked(report: LintReport) -> bool:
    """The memory model answered for every launch and no file has a run note (something not checked):
    ``No problems found`` may then be said plainly."""
    from vlint.launch.memory_status import memory_status

    if any(fr.notes for fr in report.files):
        return False
    return all(memory_status(d).answer is not None for fr in report.files for d in fr.deployments)


def summary(report: LintReport, st: Styler | None = None) -> str:
    st = st or Styler(False)
    counts = {"error": 0, "warning": 0, "info": 0}
    for f in report.findings:
        counts[f.severity] += 1
    n = len(report.findings)
    files_with = len({f.span.path for f in report.findings})
    launches = sum(fr.launches for fr in report.files)
    broken = sum(1 for fr in report.files if fr.error is not None)
    versions = [str(v) for v in sorted({d.version for fr in report.files for d in fr.deployments})]  # as versions
    reasons = sorted({d.version_reason for fr in report.files for d in fr.deployments})
    parts = []
    if n:
        detail = ", ".join(f"{c} {k}{'s' if c != 1 and k != 'info' else ''}" for k, c in counts.items() if c)
        parts.append(
            st(
                f"Found {n} problem{'s' if n != 1 else ''} ({detail}) in {files_with} "
                f"file{'s' if files_with != 1 else ''}.",
                bold=True,
            )
        )
    elif broken:  # "No problems found" only when everything was checked
        parts.append(
            st(
                f"{broken} file{'s' if broken != 1 else ''} could not be read (the errors above); "
                "no problems found in the others.",
                fg="red",
                bold=True,
            )
        )
    else:
        found = "No problems found." if all_checked(report) else "No problems found in what was checked."
        parts.append(st(found, fg="green", bold=True))
    checked = (
        f"{len(report.files)} file{'s' if len(report.files) != 1 else ''} checked, "
        f"{launches} vLLM launch{'es' if launches != 1 else ''}"
    )
    if broken:
        checked += f", {broken} could not be read"
    parts.append(checked + ".")
    skipped = [fr.path for fr in report.files if fr.skipped]
    if skipped:
        shown = ", ".join(skipped[:3]) + (f" and {len(skipped) - 3} more" if len(skipped) > 3 else "")
        parts.append(
            f"{len(skipped)} file{'s' if len(skipped) != 1 else ''} mention{'s' if len(skipped) == 1 else ''} vLLM "
            f"but {'have' if len(skipped) != 1 else 'has'} no launch vlint can read: {shown}."
        )
    if versions:
        why = reasons[0] if len(reasons) == 1 else "per launch"
        parts.append(f"Target vLLM {', '.join(versions)} ({why}).")
    return printable(" ".join(parts))
