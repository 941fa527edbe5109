"""One linted file as the file-scope rules (``scope: file``) and the secret scanner see it.

Below :mod:`vlint.checks` and :mod:`vlint.engine.runner` in the layers (they read it; :mod:`vlint.run.lint`
builds it), so that checks need not import the lint run.
"""

from __future__ import annotations

from vlint.core.record import field, record
from vlint.core.typing_names import TYPE_CHECKING

if TYPE_CHECKING:
    from vlint.core.invocation import Problem, Token
    from vlint.core.version import Version
    from vlint.launch.deployment import Deployment


@record(slots=True)
class LoneEnvironment:
    """The ``VLLM_*`` variables of a file of environment alone (a ``.env``) that no launch of the run
    reads, and the release they are checked against, chosen as a launch's is
    (:func:`vlint.launch.resolver.lone_environment`)."""

    #: name → value token, spanning ``NAME=value`` from the name
    env: dict[str, Token]
    version: Version
    #: why that release (``the newest bundled release; pass --vllm-version to check another``…)
    version_reason: str
    #: the variables that release reads
    known: frozenset[str]


@record(slots=True)
class FileContext:
    """One file as the file-scope rules see it."""

    path: str
    deployments: list[Deployment]
    assignments: list[tuple[str, Token]]
    problems: list[Problem]
    #: credentials whatever their name (Kubernetes Secret values): (key, token, base64-encoded)
    secret_tokens: list[tuple[str, Token, bool]] = field(default_factory=list)
    #: a file of environment alone that no launch reads: its ``VLLM_*`` names, checked on their own
    environment: LoneEnvironment | None = None
