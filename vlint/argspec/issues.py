"""What vLLM's parser would reject or warn about, as the parser and the ``--config`` expansion report it."""

from __future__ import annotations

from vlint.core.finding import Fix
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.core.typing_names import Any


@record(slots=True)
class ArgIssue:
    """Something vLLM's parser would reject or warn about."""

    code: str
    span: Span
    message: str
    data: dict[str, Any] = field(default_factory=dict)
    #: overrides the rule's severity for this issue
    severity: str | None = None
    #: the change that clears it (VL002, VL005), for ``vlint fix``
    fix: Fix | None = None
