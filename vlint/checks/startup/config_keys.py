"""Keys of composite options that are no field of their config class (VL041)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache

from vlint.checks import CheckContext, Hit, check
from vlint.checks.startup.common import _json, _refuse
from vlint.checks.startup.speculative import SPEC_METHODS_ANY
from vlint.core.paths import data_dir
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.core.version import V, Version

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment

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


def known_literal(dest: str, key: str, version: Version) -> frozenset[str] | None:
    """The string values a ``Literal`` field ``key`` of ``dest``'s pydantic config class takes in
    ``version`` (the release's own, or the union of the sampled neighbours below and above, both pydantic
    with the field a Literal); None when not known."""
    rows = [(V(r), d[dest]) for r, d in _releases().items() if dest in d and d[dest].get("pydantic")]
    below = [(v, d) for v, d in rows if v <= version]
    above = [(v, d) for v, d in rows if v >= version]
    if not below or not above:
        return None
    lo, hi = max(below, key=lambda x: x[0])[1], min(above, key=lambda x: x[0])[1]
    a, b = lo.get("literals", {}).get(key), hi.get("literals", {}).get(key)
    if a is None or b is None:
        return None
    return frozenset(a) | frozenset(b)


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
    yield from _literal_values(dep)
    yield from _kv_connector(dep)
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


def _literal_values(dep: Deployment) -> Iterator[Hit]:
    """A string value outside a pydantic ``Literal`` field's values (``--speculative-config``'s ``method``,
    ``--structured-outputs-config``'s ``backend``, ``--kv-transfer-config``'s ``kv_role``…): pydantic refuses
    it ("Input should be 'ngram', 'eagle' or …")."""
    for dest in DESTS:
        obj = _json(dep, dest)
        if not obj:
            continue
        for key, value in obj.items():
            if not isinstance(key, str) or not isinstance(value, str):
                continue
            if dest == "speculative_config" and key == "method" and value not in SPEC_METHODS_ANY:
                continue  # VL111 names it (no release has that method)
            allowed = known_literal(dest, key, dep.version)
            if allowed is None or value in allowed:
                continue
            cls = next(d[dest]["class"] for d in _releases().values() if dest in d)
            shown = ", ".join(repr(a) for a in sorted(allowed))
            yield Hit(
                dep.span_of(dest),
                {"setting": dest, "key": key, "value": value},
                message=_refuse(
                    f"argument --{dest.replace('_', '-')}: 1 validation error for {cls} {key}: Input should be one "
                    f"of {shown} (got {value!r}; "
                    f"vLLM {dep.version}, vlint/data/config_fields.json)"
                ),
            )


#: from 0.17.1 VllmConfig builds the KV connector while validating: an unregistered name is refused
#: ("Unsupported connector type", vllm/distributed/kv_transfer/kv_connector/factory.py; vLLM's oracle data:
#: 0.13.0 accepts an unknown name, 0.17.1-0.33.0 refuse it)
KV_CONNECTOR_CHECKED_SINCE = "0.17.1"


def known_connectors(version: Version) -> frozenset[str] | None:
    """The KV connectors ``version`` registers (tools/gen_config_fields.py reads each release's factory.py):
    its own, or the union of the sampled neighbours; None when not bracketed."""
    data = json.loads((data_dir() / "config_fields.json").read_text()).get("kv_connectors", {})
    rows = [(V(r), names) for r, names in data.items()]
    below = [x for x in rows if x[0] <= version]
    above = [x for x in rows if x[0] >= version]
    if not below or not above:
        return None
    lo, hi = max(below, key=lambda x: x[0])[1], min(above, key=lambda x: x[0])[1]
    return frozenset(lo) | frozenset(hi)


def _kv_connector(dep: Deployment) -> Iterator[Hit]:
    if dep.version < V(KV_CONNECTOR_CHECKED_SINCE):
        return
    obj = _json(dep, "kv_transfer_config")
    name = obj.get("kv_connector") if obj else None
    if not isinstance(name, str) or not name or (obj and obj.get("kv_connector_module_path")):
        return
    known = known_connectors(dep.version)
    if known is None or name in known:
        return
    yield Hit(
        dep.span_of("kv_transfer_config"),
        {"kv_connector": name},
        message=_refuse(
            f"Unsupported connector type: {name} (vLLM {dep.version} registers {', '.join(sorted(known))}; "
            "a connector of your own needs kv_connector_module_path)"
        ),
    )
