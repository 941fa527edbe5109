"""A Markdown summary of a run (``--format markdown``), for a CI job's summary page (the GitHub Action
appends it to ``$GITHUB_STEP_SUMMARY``, where every finding is counted even when GitHub shows only the
first annotations of each level): the summary line, findings per rule and severity, the memory line of
each launch that starts, and what was not checked (files that could not be read, files that mention
vLLM but hold no launch, launches the memory model could not answer).

Everything taken from the linted files (paths, model names) is masked like every other output and
escaped: each ASCII punctuation character gets a backslash, so a file name can start neither a link, an
image, an HTML tag nor a table cell.
"""

from __future__ import annotations

import string
from collections import Counter

from vlint.core.escape import printable
from vlint.engine.results import LintReport

_PUNCTUATION = frozenset(string.punctuation)
#: rows of the per-rule table and lines of each list before "… N more"
MAX_ROWS = 50


def md(text: str) -> str:
    """``text`` as literal Markdown: control characters shown as escapes, newlines as spaces, every ASCII
    punctuation character backslash-escaped (CommonMark: any of them may be)."""
    plain = printable(text.replace("\r", " ").replace("\n", " "))
    return "".join("\\" + c if c in _PUNCTUATION else c for c in plain)


def render(report: LintReport) -> str:
    from vlint.launch.memory_status import memory_status
    from vlint.report.text import launch_memory_lines, memory_line, note_lines, summary

    red = report.redactor()
    out = ["## vlint", "", md(red.text(summary(report))), ""]
    counts: Counter[tuple[str, str, str]] = Counter((f.code, f.name, f.severity) for f in report.findings)
    if counts:
        out += ["| rule | name | error | warning | info |", "|---|---|---:|---:|---:|"]
        rules = sorted({(code, name) for code, name, _ in counts})
        for code, name in rules[:MAX_ROWS]:
            cells = [str(counts[(code, name, sev)] or "") for sev in ("error", "warning", "info")]
            out.append(f"| {md(code)} | {md(name)} | " + " | ".join(cells) + " |")
        if len(rules) > MAX_ROWS:
            out.append(f"| … | {len(rules) - MAX_ROWS} more rules | | | |")
        out.append("")
    memory = memory_line(report, red)
    launches = launch_memory_lines(report)
    if memory:
        out += ["**Memory**", "", md(memory), ""]
        out += [f"- {md(red.text(line))}" for line in launches[:MAX_ROWS]]
        if len(launches) > MAX_ROWS:
            out.append(f"- … and {len(launches) - MAX_ROWS} more launches")
        out.append("")
        notes = note_lines(report, red, files=False)
        if notes:
            out += [md(line) for line in notes] + [""]
    unchecked = [f"{fr.path}: could not be read: {red.text(fr.error.message)}" for fr in report.files if fr.error]
    unchecked += [f"{fr.path}: {fr.skipped}" for fr in report.files if fr.skipped]
    unchecked += [f"{fr.path}: {n}" for fr in report.files for n in fr.notes]
    for fr in report.files:  # launches the memory model could not answer, each with its fix
        for d in fr.deployments:
            status = memory_status(d)
            if status.answer is None and status.explained:
                unchecked.append(f"{d.path}:{d.invocation.span.line}: memory model: {status.explained}")
    if unchecked:
        out += ["**Not checked**", ""]
        out += [f"- {md(red.text(line))}" for line in unchecked[:MAX_ROWS]]
        if len(unchecked) > MAX_ROWS:
            out.append(f"- … and {len(unchecked) - MAX_ROWS} more")
        out.append("")
    return "\n".join(out)
