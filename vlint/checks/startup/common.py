"""The setting readers every startup check shares."""

from __future__ import annotations

import math
from collections.abc import Mapping

from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.core.unresolved import UNRESOLVED
from vlint.core.version import V

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment


# -- reading settings ------------------------------------------------------------------------------


def _num(v: Any) -> int | float | None:
    if v is None or v is UNRESOLVED or isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return v if not (isinstance(v, float) and not math.isfinite(v)) else None
    return None


def _int(dep: Deployment, dest: str) -> int | None:
    v = _num(dep.value(dest))
    if isinstance(v, int):
        return v
    return int(v) if v is not None and v.is_integer() else None


def _user(dep: Deployment, dest: str) -> Any:
    """What the launch wrote (None when not written or unresolved)."""
    s = dep.setting(dest)
    return None if s is None or s.value is UNRESOLVED else s.value


def _json(dep: Deployment, dest: str) -> Mapping[str, Any] | None:
    v = _user(dep, dest)
    return v if isinstance(v, Mapping) else None


def _since(dep: Deployment, version: str) -> bool:
    return dep.version >= V(version)


def _refuse(message: str) -> str:
    return f"vLLM will not start: {message}"


def _fmt(v: float) -> str:
    return str(v) if isinstance(v, int) or not v.is_integer() else str(int(v))
