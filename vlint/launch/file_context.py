"""One linted file as the file-scope rules (``scope: file``) and the secret scanner see it.

Below :mod:`vlint.checks` and :mod:`vlint.engine.runner` in the layers (they read it; :mod:`vlint.run.lint`
builds it), so that checks need not import the lint run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vlint.core.record import field, record

if TYPE_CHECKING:
    from vlint.core.invocation import Problem, Token
    from vlint.launch.deployment import Deployment


@record(slots=True)
class FileContext:
    """One file as the file-scope rules see it."""

    path: str
    deployments: list[Deployment]
    assignments: list[tuple[str, Token]]
    problems: list[Problem]
    #: credentials whatever their name (Kubernetes Secret values): (key, token, base64-encoded)
    secret_tokens: list[tuple[str, Token, bool]] = field(default_factory=list)
