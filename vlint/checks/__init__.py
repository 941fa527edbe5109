"""The Python functions rules name (``check: module.function``): each reads a deployment or a file
and yields hits; the engine turns them into findings. Imports vlint.launch and below.

A check receives a :class:`CheckContext` and yields :class:`Hit` objects; the engine turns hits into
findings with the rule's code, severity and message template. Checks never format output.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable

from vlint.core.finding import Fix
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.core.typing_names import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.core.rule import Rule
    from vlint.launch.deployment import Deployment
    from vlint.launch.file_context import FileContext


@record(slots=True)
class Hit:
    span: Span
    data: dict[str, Any] = field(default_factory=dict)
    #: replaces the rule's message template (for checks whose wording varies per case)
    message: str | None = None
    #: overrides the rule's severity for this hit (e.g. an error when it cannot start)
    severity: str | None = None
    #: the fix, or a function that computes it (a fix that sizes the launch again and again, like the
    #: memory model's: computed only when the finding is made for a report that shows fixes)
    fix: Fix | Callable[[], Fix | None] | None = None


@record(slots=True)
class CheckContext:
    rule: Rule
    dep: Deployment | None = None
    file: FileContext | None = None
    #: the rule's options (``options:`` in its YAML, as configured in ``[tool.vlint.rules.CODE]``)
    options: dict[str, Any] = field(default_factory=dict)
    #: another rule's message with this data (``message_of("VL210", data)``), from the engine that runs
    #: the check: a check words a finding as another rule does without reading the catalog itself
    message_of: Callable[[str, dict[str, Any]], str | None] = lambda code, data: None

    def option(self, name: str) -> Any:
        """One option's value (the rule's default when none is configured)."""
        if name in self.options:
            return self.options[name]
        return self.rule.options[name].get("default")


CheckFn = Callable[[CheckContext], Iterable[Hit]]

_REGISTRY: dict[str, CheckFn] = {}
#: deployment checks that also read a file's environment no launch reads (:attr:`FileContext.environment`)
_ENVIRONMENT_FILES: set[str] = set()
#: modules holding checks, imported on first lookup
_MODULES = (
    "prefill",
    "memory_settings",
    "memory_model",
    "reference_gpus",
    "security",
    "hygiene",
    "environment",
    "deployment_k8s",
    "deployment_wiring",
    "deployment_pod",
    "versions",
    "registries",
    "startup",
    "image_cuda",
)


def check(name: str, *, environment_files: bool = False) -> Callable[[CheckFn], CheckFn]:
    """Register a check under ``name`` (``prefill.chunking_disabled``). ``environment_files``: the check
    of a deployment rule also runs on a file of environment alone that no launch reads (a ``.env``:
    ``ctx.file.environment``, ``ctx.dep`` None), so that the rule says what it says of a launch's variables
    about that file's too."""

    def deco(fn: CheckFn) -> CheckFn:
        if name in _REGISTRY:
            raise ValueError(f"check {name} registered twice")
        _REGISTRY[name] = fn
        if environment_files:
            _ENVIRONMENT_FILES.add(name)
        return fn

    return deco


def reads_environment_files(name: str) -> bool:
    """Whether the check ``name`` also runs on a file's environment no launch reads (:func:`check`)."""
    if name not in _REGISTRY:
        all_checks()
    return name in _ENVIRONMENT_FILES


def get_check(name: str) -> CheckFn | None:
    if name not in _REGISTRY:
        all_checks()
    return _REGISTRY.get(name)


def all_checks() -> dict[str, CheckFn]:
    for m in _MODULES:
        importlib.import_module(f"vlint.checks.{m}")
    return dict(_REGISTRY)
