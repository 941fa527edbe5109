"""GitHub Actions workflow commands (``--format github``, the default when ``GITHUB_ACTIONS=true``).

Each finding becomes an annotation on the pull request's diff::

    ::warning file=start.sh,line=11,col=3,endLine=11,endColumn=30,title=VL101 chunked-prefill-disabled::message

Levels: error → ``::error``, warning → ``::warning``, info → ``::notice``. Values are escaped the
way the Actions runner unescapes them (``%``, CR, LF everywhere; ``:`` and ``,`` in properties).
"""

from __future__ import annotations

from vlint.core.escape import printable
from vlint.engine.results import LintReport

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF as the runner unescapes them, and every other
    control character (ESC…) made visible, so file content can neither end the command nor start one."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **props: object) -> str:
    fields = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None)
    return f"::{level} {fields}::{escape_data(message)}" if fields else f"::{level}::{escape_data(message)}"


def render(report: LintReport, summary: str = "") -> str:
    red = report.redactor()
    out: list[str] = []
    for fr in report.files:
        if fr.error is not None:
            out.append(
                command(
                    "error",
                    red.text(fr.error.message),
                    file=fr.path,
                    line=fr.error.line,
                    col=fr.error.column,
                    title="vlint: file could not be read",
                )
            )
    for f in report.findings:
        message = red.text(f.message)
        if f.fix is not None:
            message += f"\n{f.fix.label}: {red.text(f.fix.description)}"
        s = f.span
        out.append(
            command(
                _COMMAND[f.severity],
                message,
                file=s.path,
                line=s.line,
                col=s.column,
                endLine=s.end_line,
                endColumn=s.end_column,
                title=f"{f.code} {f.name}",
            )
        )
    if summary:  # a plain line in the log: it must not be readable as a workflow command
        line = escape_data(summary)
        out.append(line if not line.startswith("::") else " " + line)
    return "\n".join(out) + "\n" if out else ""
