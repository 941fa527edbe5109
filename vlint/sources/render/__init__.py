"""Rendering with the real tools: kustomize overlays and Helm charts become the manifests they stand
for, and those are linted like any other file, with findings mapped back to the line that set the value.

- :mod:`vlint.sources.render.tools` runs the outside tools (the only module that does);
- :mod:`vlint.sources.render.kustomize` and :mod:`vlint.sources.render.helm` check what a tool would read before it
  runs (inside the lint root, nothing remote, no plugins) and turn its output into launches;
- :mod:`vlint.sources.render.mapping` maps spans in the rendered text back to the source files.

A run decides once whether rendering is on (``--no-render`` turns it off) and which folder is the lint
root; the sources read it here (:func:`settings`), since their signature is the same for every format.

Imports vlint.sources' readers and below.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from vlint.core.record import field, record
from vlint.security.lint_root import LintRoot

NO_RENDER = "rendering is off (--no-render)"
#: seconds one render may run
TIMEOUT = 30.0
#: seconds all the renders of one run may take together
RUN_BUDGET = 120.0


@record(slots=True)
class Budget:
    """The seconds left for the renders of one run (:data:`RUN_BUDGET`)."""

    left: float = field(default_factory=lambda: RUN_BUDGET)

    def take(self) -> float:
        """The timeout of the next render: :data:`TIMEOUT`, or what is left when that is less."""
        return min(TIMEOUT, self.left)

    def spend(self, seconds: float) -> None:
        self.left = max(0.0, self.left - seconds)

    @property
    def used_up(self) -> bool:
        return self.left < 1.0


@record(frozen=True, slots=True)
class RenderSettings:
    #: run kubectl/kustomize/helm when present (False: ``--no-render``)
    enabled: bool = True
    #: the lint root: tools run only on folders inside it
    root: LintRoot | None = None
    #: why rendering is off, for the VL630 note
    off_reason: str = NO_RENDER
    #: the run's rendering time, shared by every render of the run
    budget: Budget = field(default_factory=Budget)

    @property
    def tool_folders_refused(self) -> tuple:
        """Folders a tool found on PATH may not lie in (the lint root's)."""
        return self.root.folders if self.root is not None else ()


_SETTINGS: ContextVar[RenderSettings | None] = ContextVar("vlint_render", default=None)


def settings() -> RenderSettings:
    """The run's settings; outside a run (a source called on its own) the defaults, with a budget of
    their own."""
    return _SETTINGS.get() or RenderSettings()


@contextmanager
def configured(enabled: bool, root: LintRoot | None, off_reason: str = "") -> Iterator[None]:
    token = _SETTINGS.set(RenderSettings(enabled, root, off_reason or NO_RENDER))
    try:
        yield
    finally:
        _SETTINGS.reset(token)
