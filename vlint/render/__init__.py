"""Rendering with the real tools: kustomize overlays and Helm charts become the manifests they stand
for, and those are linted like any other file, with findings mapped back to the line that set the value.

- :mod:`vlint.render.tools` runs the outside tools (the only module that does);
- :mod:`vlint.render.kustomize` and :mod:`vlint.render.helm` check what a tool would read before it
  runs (inside the lint root, nothing remote, no plugins) and turn its output into launches;
- :mod:`vlint.render.mapping` maps spans in the rendered text back to the source files.

A run decides once whether rendering is on (``--no-render`` turns it off) and which folder is the lint
root; the sources read it here (:func:`settings`), since their signature is the same for every format.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from vlint.lint_root import LintRoot

NO_RENDER = "rendering is off (--no-render)"


@dataclass(frozen=True, slots=True)
class RenderSettings:
    #: run kubectl/kustomize/helm when present (False: ``--no-render``)
    enabled: bool = True
    #: the lint root: tools run only on folders inside it
    root: LintRoot | None = None
    #: why rendering is off, for the VL630 note
    off_reason: str = NO_RENDER


_SETTINGS: ContextVar[RenderSettings | None] = ContextVar("vlint_render", default=None)
_DEFAULT = RenderSettings()


def settings() -> RenderSettings:
    return _SETTINGS.get() or _DEFAULT


@contextmanager
def configured(enabled: bool, root: LintRoot | None, off_reason: str = "") -> Iterator[None]:
    token = _SETTINGS.set(RenderSettings(enabled, root, off_reason or NO_RENDER))
    try:
        yield
    finally:
        _SETTINGS.reset(token)
