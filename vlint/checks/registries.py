"""Values vLLM checks against its own registries (VL017-VL026), and model architectures (VL025).

Each registry is read per release from vLLM's code by ``tools/gen_vllm_schema.py``
(``vlint.argspec.registries``). A value is judged only where that release's registry was read and
its argument has no argparse ``choices`` (those are VL004, reported while parsing).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from vlint.argspec.registries import Registry, registry
from vlint.checks import CheckContext, Hit, check
from vlint.core.finding import Fix
from vlint.core.record import record
from vlint.core.unresolved import UNRESOLVED
from vlint.core.version import V
from vlint.launch.deployment import Deployment


@record(frozen=True, slots=True)
class RegistryValue:
    """One argument whose value must name an entry of a registry."""

    registry: str
    dest: str
    what: str
    #: compare ignoring case (vLLM lowercases the value first) — a case-only difference is never judged
    fold_case: bool = True


def _unknown(dep: Deployment, rv: RegistryValue) -> tuple[Hit, Registry] | None:
    """A hit when the launch sets ``rv.dest`` to a value the target release's registry lacks."""
    s = dep.setting(rv.dest)
    if s is None or s.value is UNRESOLVED or not isinstance(s.value, str) or not s.value.strip():
        return None
    arg = dep.spec.by_dest.get(rv.dest)
    if arg is None or arg.choices:  # no such option (VL001/VL003) or argparse checks it (VL004)
        return None
    reg = registry(rv.registry)
    if reg is None or not reg.known_at(dep.version):
        return None
    value = s.value.strip()
    have = reg.values_at(dep.version)
    if value in have or (rv.fold_case and value.lower() in {h.lower() for h in have}):
        return None
    best = reg.suggest(value, dep.version)
    data = {
        "value": value,
        "option": s.option,
        "what": rv.what,
        "vllm_version": str(dep.version),
        "note": reg.history_note(value, dep.version),
        "hint": f"; did you mean {best!r}?" if best else "",
        "known": ", ".join(have[:12]) + (" …" if len(have) > 12 else ""),
    }
    fix = Fix(f"use {s.option} {best}") if best else None
    return Hit(s.full_span, data, fix=fix), reg


def _value_check(name: str, rv: RegistryValue) -> None:
    @check(f"registries.{name}")
    def _check(ctx: CheckContext) -> Iterator[Hit]:
        dep = ctx.dep
        assert dep is not None
        found = _unknown(dep, rv)
        if found is not None:
            yield found[0]


for _name, _rv in {
    "quantization": RegistryValue("quantization_methods", "quantization", "quantization method"),
    "load_format": RegistryValue("load_formats", "load_format", "load format"),
    "kv_cache_dtype": RegistryValue("kv_cache_dtypes", "kv_cache_dtype", "KV-cache dtype"),
    "attention_backend": RegistryValue("attention_backends", "attention_backend", "attention backend"),
    "guided_decoding_backend": RegistryValue(
        "guided_decoding_backends", "guided_decoding_backend", "guided-decoding backend"
    ),
}.items():
    _value_check(_name, _rv)
# --task / --runner / --convert have argparse choices in every bundled release (a bad value is VL004);
# their registries are still recorded for the history.


@check("registries.tool_call_parser")
def tool_call_parser(ctx: CheckContext) -> Iterator[Hit]:
    """vLLM refuses an unregistered parser at startup when --enable-auto-tool-choice is on
    (``validate_api_server_args``); a --tool-parser-plugin may register more, so then nothing is judged."""
    dep = ctx.dep
    assert dep is not None
    if dep.is_set("tool_parser_plugin"):
        return
    found = _unknown(dep, RegistryValue("tool_call_parsers", "tool_call_parser", "tool-call parser", False))
    if found is None:
        return
    hit, _reg = found
    if dep.user_value("enable_auto_tool_choice") is not True:
        hit.severity = "warning"
        hit.data["hint"] += " (without --enable-auto-tool-choice vLLM does not check it at startup)"
    yield hit


def _unknown_so_reasoning_parser(dep: Deployment) -> tuple[Hit, Registry] | None:
    """``--structured-outputs-config``'s ``reasoning_parser`` (from 0.11.1), which ``validate_api_server_args``
    looks up before the engine ("invalid reasoning parser: nope (chose from {...})", [0.13.0]
    vllm/entrypoints/openai/api_server.py:1337-1344; vLLM's oracle data 0.13.0-0.31.0)."""
    obj = dep.value("structured_outputs_config")
    value = obj.get("reasoning_parser") if isinstance(obj, Mapping) else None
    if dep.version < V("0.11.1") or not isinstance(value, str) or not value.strip():
        return None
    reg = registry("reasoning_parsers")
    if reg is None or not reg.known_at(dep.version):
        return None
    have = reg.values_at(dep.version)
    if value.strip() in have:
        return None
    best = reg.suggest(value.strip(), dep.version)
    s = dep.setting("structured_outputs_config")
    data = {
        "value": value.strip(),
        "option": "--structured-outputs-config reasoning_parser",
        "what": "reasoning parser",
        "vllm_version": str(dep.version),
        "note": reg.history_note(value.strip(), dep.version),
        "hint": f"; did you mean {best!r}?" if best else "",
        "known": ", ".join(have[:12]) + (" …" if len(have) > 12 else ""),
    }
    span = s.full_span if s is not None else dep.invocation.span
    return Hit(span, data), reg


@check("registries.reasoning_parser")
def reasoning_parser(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if dep.is_set("reasoning_parser_plugin"):
        return
    found = _unknown(dep, RegistryValue("reasoning_parsers", "reasoning_parser", "reasoning parser", False))
    if found is None:
        found = _unknown_so_reasoning_parser(dep)
    if found is None:
        return
    hit, _reg = found
    if dep.spec.by_dest.get("enable_reasoning") is not None and dep.user_value("enable_reasoning") is not True:
        # 0.7.x checks the parser only with --enable-reasoning ([0.7.3] vllm/entrypoints/openai/api_server.py:924-929)
        # and otherwise never builds it (vllm/entrypoints/openai/serving_chat.py:84): vLLM oracle data
        hit.severity = "warning"
        hit.data["hint"] += " (without --enable-reasoning vLLM does not use or check it)"
    yield hit


@check("registries.env_value")
def env_value(ctx: CheckContext) -> Iterator[Hit]:
    """A ``VLLM_*`` variable the release validates against a fixed list (``env_with_choices``), set
    to another value: vLLM raises ``ValueError`` when it reads it."""
    dep = ctx.dep
    assert dep is not None
    table = dep.spec.meta.get("env_var_choices") or {}
    for name, tok in dep.invocation.env.items():
        spec = table.get(name)
        if tok.unresolved or not spec or not spec.get("values"):
            continue
        values = [str(v) for v in spec["values"]]
        text = tok.text.strip()
        if not text:
            continue
        case_sensitive = spec.get("case_sensitive", True)
        if "list" not in spec and "," in text:
            continue  # a record from before the list flag: a list variable would be misjudged
        words = [w.strip() for w in text.split(",")] if spec.get("list") else [text]
        for word in words:
            ok = word in values if case_sensitive else word.lower() in {v.lower() for v in values}
            if ok:
                continue
            import difflib

            close = difflib.get_close_matches(word, values, n=1, cutoff=0.6)
            yield Hit(
                tok.span,
                {
                    "name": name,
                    "value": word,
                    "vllm_version": str(dep.version),
                    "known": ", ".join(values[:12]) + (" …" if len(values) > 12 else ""),
                    "hint": f"; did you mean {close[0]!r}?" if close else "",
                },
            )


@check("registries.attention_backend_env")
def attention_backend_env(ctx: CheckContext) -> Iterator[Hit]:
    """``VLLM_ATTENTION_BACKEND`` naming no backend of a release that does not validate it
    (``backend_name_to_enum`` returns None, vLLM 0.8.5 vllm/attention/selector.py:19-30): the
    variable is ignored and the platform's default backend is used. Releases that validate it are
    VL026; releases without the variable are VL014."""
    dep = ctx.dep
    assert dep is not None
    tok = dep.invocation.env.get("VLLM_ATTENTION_BACKEND")
    if tok is None or tok.unresolved or not tok.text.strip():
        return
    if "VLLM_ATTENTION_BACKEND" not in dep.spec.env_vars:
        return
    if "VLLM_ATTENTION_BACKEND" in (dep.spec.meta.get("env_var_choices") or {}):
        return
    reg = registry("attention_backends")
    if reg is None or not reg.known_at(dep.version):
        return
    value = tok.text.strip()
    have = reg.values_at(dep.version)
    if value in have:
        return
    best = reg.suggest(value, dep.version)
    yield Hit(
        tok.span,
        {
            "value": value,
            "option": "VLLM_ATTENTION_BACKEND",
            "what": "attention backend",
            "vllm_version": str(dep.version),
            "note": reg.history_note(value, dep.version),
            "hint": f"; did you mean {best!r}?" if best else "",
            "known": ", ".join(have[:12]) + (" …" if len(have) > 12 else ""),
        },
    )


@check("registries.architecture")
def architecture(ctx: CheckContext) -> Iterator[Hit]:
    """The model's ``architectures`` (config.json) are all missing from the release's model registry.

    vLLM tries each listed architecture and fails with "Model architectures [...] are not supported
    for now" when none is registered. Releases with ``--model-impl`` may instead run the model through
    the Transformers backend (``model_impl=auto``), which works only for Transformers classes that
    support it: there it is a warning; with ``--model-impl vllm`` or before that option, an error.
    """
    dep = ctx.dep
    assert dep is not None
    arch = dep.arch
    if arch is None or not arch.architectures or dep.is_set("hf_overrides"):
        return
    reg = registry("architectures")
    if reg is None or not reg.known_at(dep.version):
        return
    have = set(reg.values_at(dep.version))
    names = [a for a in arch.architectures if isinstance(a, str)]
    if not names or any(a in have for a in names):
        return
    impl = dep.user_value("model_impl")
    if impl == "transformers" or impl is UNRESOLVED:
        return
    fallback = "model_impl" in dep.spec.by_dest and impl != "vllm"
    first = names[0]
    present = reg.present_in(first)
    later = [v for v in present if v > dep.version]
    earlier = [v for v in present if v < dep.version]
    if later:
        note = f"{first} is not supported before vLLM {later[0]}"
    elif earlier:
        gone = next((v for v in reg.versions if v > earlier[-1] and v not in present), dep.version)
        note = f"{first} is not supported since vLLM {gone} (last in {earlier[-1]})"
    else:
        note = f"{first} is in no vLLM release vlint knows (a plugin or --trust-remote-code model)"
    effect = (
        "vLLM will try its Transformers backend (model_impl=auto), which only works when the model's "
        "Transformers class supports it"
        if fallback
        else 'vLLM fails with "Model architectures … are not supported for now"'
    )
    span = dep.setting("model").span if dep.setting("model") is not None else dep.invocation.span
    yield Hit(
        span,
        {
            "architecture": first,
            "model": dep.model or "",
            "vllm_version": str(dep.version),
            "note": note,
            "effect": effect,
            "arch_source": arch.source,
        },
        severity="warning" if fallback else None,
        fix=Fix(f"deploy vLLM {later[0]} or later") if later else None,
    )
