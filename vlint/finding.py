"""What a rule reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vlint.span import Span

SEVERITIES = ("error", "warning", "info")
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


@dataclass(frozen=True, slots=True)
class Fix:
    """A suggested change: a sentence, and (optionally) the replacement text for a span."""

    description: str
    span: Span | None = None
    replacement: str | None = None
    #: True when applying it changes behaviour (e.g. lowers max_model_len)
    unsafe: bool = False


@dataclass(slots=True)
class Finding:
    code: str
    name: str
    severity: str
    span: Span
    message: str
    data: dict[str, Any] = field(default_factory=dict)
    fix: Fix | None = None
    #: which launch the finding is about (``vllm serve`` at line 3…), for reports
    context: str = ""

    @property
    def path(self) -> str:
        return self.span.path

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.span.path, self.span.line, self.span.column, self.code, self.message)
