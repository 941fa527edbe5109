"""Keys of composite options that are no field of their config class (VL041)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

from vlint.checks import CheckContext, Hit, check
from vlint.checks.startup.common import _json, _refuse
from vlint.core.paths import data_dir
from vlint.core.version import V, Version

#: from 0.16.0 every config class forbids unknown fields (``@config``: ``ConfigDict(extra="forbid")``,
#: [0.16.0] vllm/config/utils.py:54-55): a key that is no field is "Unexpected keyword argument"
FORBID_SINCE = "0.16.0"


@cache
def _releases() -> dict[str, dict[str, Any]]:
    """``vlint/data/config_fields.json`` (tools/gen_config_fields.py, from each release's own classes)."""
    return json.loads((data_dir() / "config_fields.json").read_text())["releases"]


def known_fields(dest: str, version: Version) -> frozenset[str] | None:
    """The fields of ``dest``'s config class in ``version``: that release's own when it was sampled, else
    the union of the nearest sampled releases below and above (a key neither has is no field in between
    either, barring a field that came and went between two samples); None when not bracketed."""
    rows = [(V(r), d[dest]) for r, d in _releases().items() if dest in d and d[dest].get("extra") == "forbid"]
    below = [(v, d) for v, d in rows if v <= version]
    above = [(v, d) for v, d in rows if v >= version]
    if not below or not above:
        return None
    lo, hi = max(below, key=lambda x: x[0]), min(above, key=lambda x: x[0])
    return frozenset(lo[1]["fields"]) | frozenset(hi[1]["fields"])


#: the composite options vlint knows the fields of (tools/gen_config_fields.py CLASSES)
DESTS = (
    "compilation_config",
    "speculative_config",
    "structured_outputs_config",
    "eplb_config",
    "kv_transfer_config",
    "kv_events_config",
    "attention_config",
)


@check("startup.config_unknown_key")
def config_unknown_key(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if dep.version < V(FORBID_SINCE):
        return
    for dest in DESTS:
        obj = _json(dep, dest)
        if not obj:
            continue
        fields = known_fields(dest, dep.version)
        if fields is None:
            continue
        # tensor_parallel_size in --speculative-config has its own message (VL112)
        skip = {"tensor_parallel_size"} if dest == "speculative_config" else set()
        unknown = sorted(k for k in obj if isinstance(k, str) and k not in fields and k not in skip)
        if not unknown:
            continue
        cls = next(d[dest]["class"] for d in _releases().values() if dest in d)
        opt = "--" + dest.replace("_", "-")
        yield Hit(
            dep.span_of(dest),
            {"setting": dest, "keys": unknown},
            message=_refuse(
                f"argument {opt}: validation error for {cls} {', '.join(unknown)}: Unexpected keyword argument "
                f"({'it is' if len(unknown) == 1 else 'they are'} no field of {cls} in vLLM {dep.version}; "
                f"vlint/data/config_fields.json)"
            ),
        )
