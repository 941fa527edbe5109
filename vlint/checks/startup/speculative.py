"""SpeculativeConfig (VL111-VL115)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

from vlint.checks import CheckContext, Hit, check
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.core.version import V

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
from vlint.checks.startup.common import _fmt, _json, _num, _refuse, _since, _user

# -- speculative decoding (VL111-VL115) ---------------------------------------------------------------

#: SpeculativeConfig validates with pydantic from 0.11.1 (num_speculative_tokens gt=0, prompt_lookup_* ge=1,
#: [0.11.1] vllm/config/speculative.py:61,107,110); before, ``__post_init__``/``_verify_args`` raise ValueErrors
#: ([0.8.5.post1] vllm/config.py:2303-2338, 2543-2549)
SPEC_PYDANTIC_SINCE = "0.11.1"
#: the --speculative-config JSON option exists from 0.8.0 (0.6/0.7 have --speculative-model & co.)
SPEC_JSON_SINCE = "0.8.0"
#: methods that draft with a model of their own (an MTP method drafts with the target's own layers)
_DRAFT_MODEL_METHODS = ("eagle", "eagle3", "medusa", "mlp_speculator", "draft_model")
_SPEC_NO_MODEL_METHODS = ("ngram", "[ngram]", "ngram_gpu", "suffix", "extract_hidden_states", "mtp")


#: from 0.10.0 SpeculativeConfig is a pydantic dataclass and ``method`` a Literal of the release's methods
#: ([0.10.0] vllm/config.py SpeculativeMethod; [0.10.2] vllm/config/__init__.py; vllm/config/speculative.py from
#: 0.11.0); every value any release's SpeculativeMethod/EagleModelTypes/MTPModelTypes Literal holds, 0.10.0-0.33.0.
#: A method outside all of them is refused by every release; one that only some releases have is not judged.
SPEC_METHOD_LITERAL_SINCE = "0.10.0"
SPEC_METHODS_ANY = frozenset(
    [
        "bailing_hybrid_mtp",
        "bailing_hybrid_v3_mtp",
        "custom_class",
        "deepseek_mtp",
        "dflash",
        "dots3_note_mtp",
        "draft_model",
        "dspark",
        "eagle",
        "eagle3",
        "ernie_mtp",
        "exaone4_5_mtp",
        "exaone_moe_mtp",
        "extract_hidden_states",
        "fly",
        "gemma4_mtp",
        "glm4_moe_lite_mtp",
        "glm4_moe_mtp",
        "glm5_next_mtp",
        "glm_ocr_mtp",
        "hy_v3_mtp",
        "hy_v4_mtp",
        "inkling_mtp",
        "kimi_k3_mtp",
        "longcat_flash_mtp",
        "medusa",
        "mimo_mtp",
        "mimo_v2_mtp",
        "minimax_m3_mtp",
        "mlp_speculator",
        "mtp",
        "nemotron_h_mtp",
        "ngram",
        "ngram_gpu",
        "pangu_ultra_moe_mtp",
        "qwen3_5_mtp",
        "qwen3_next_mtp",
        "qwen4_exp_mtp",
        "step3p5_mtp",
        "step5_mtp",
        "suffix",
    ]
)


#: model types that have no multi-token-prediction layers (the MTP methods draft with the target's own):
#: vLLM refuses an MTP method on them ("Unsupported speculative method: 'mtp'", [0.33.0]
#: vllm/config/speculative.py:1499; before 0.10 the method sets no draft model: "num_speculative_tokens was
#: provided without speculative model"; vLLM's oracle data on Llama-3.1-8B, 0.8.2-0.33.0)
_NO_MTP_MODEL_TYPES = frozenset({"llama", "mistral", "mixtral", "qwen2", "gemma", "gemma2"})


def no_mtp_layers(dep: Deployment) -> bool:
    a = dep.arch
    return a is not None and a.num_nextn_predict_layers == 0 and a.model_type in _NO_MTP_MODEL_TYPES


def is_mtp_method(method: object) -> bool:
    return isinstance(method, str) and (method == "mtp" or method.endswith("_mtp"))


def _spec(dep: Deployment) -> Mapping[str, Any] | None:
    if not _since(dep, SPEC_JSON_SINCE):
        return None
    spec = _json(dep, "speculative_config")
    raw = _user(dep, "speculative_config")
    if spec is None and isinstance(raw, str) and raw.strip().startswith("{"):
        # a str option in 0.8.0-0.8.2: EngineArgs.create_speculative_config json-loads it
        # ([0.8.2] vllm/engine/arg_utils.py; vLLM's oracle data refuses its contents like the JSON form)
        try:
            obj = json.loads(raw)
        except ValueError:
            return None
        return obj if isinstance(obj, dict) else None
    return spec


def _integral(n: object, pydantic: bool) -> bool:
    """Whether a num_speculative_tokens that is not an int is one to vLLM: pydantic's lax mode takes a
    string of an integer ("2") and a float without a fraction (2.0); the older dataclass compares the value
    as given, which a float survives."""
    if isinstance(n, float):
        return n.is_integer() or not pydantic
    if isinstance(n, str) and pydantic:
        try:
            int(n.strip())
        except ValueError:
            return False
        return True
    return False


@check("startup.speculative_config_invalid")
def speculative_config_invalid(ctx: CheckContext) -> Iterator[Hit]:
    """The checks SpeculativeConfig runs on its own fields (no draft model needed)."""
    dep = ctx.dep
    assert dep is not None
    if not _since(dep, SPEC_JSON_SINCE):
        yield from _v0_speculative_flags_invalid(dep)
        return
    if dep.setting("speculative_model") is not None or dep.setting("num_speculative_tokens") is not None:
        # 0.8.0-0.8.4 still have the V0 flags; they fill the same SpeculativeConfig (vLLM's oracle data, 0.8.2:
        # "num_speculative_tokens was provided without speculative model", "prompt_lookup_min=0 must be > 0")
        yield from _v0_speculative_flags_invalid(dep)
    spec = _spec(dep)
    if spec is None:
        return
    span = dep.span_of("speculative_config")
    pyd = _since(dep, SPEC_PYDANTIC_SINCE)
    method, model = spec.get("method"), spec.get("model")
    n = spec.get("num_speculative_tokens")
    n_ok = isinstance(n, int) and not isinstance(n, bool)

    def hit(msg: str, **data: Any) -> Hit:
        return Hit(span, {"speculative_config": dict(spec), **data}, message=_refuse(msg))

    if n is not None and not n_ok and not isinstance(n, bool) and not _integral(n, pyd):
        if pyd:  # num_speculative_tokens: int = Field(gt=0) ([0.12.0] vllm/config/speculative.py:60)
            why = "unable to parse string as an integer"
            if not isinstance(n, str):
                why = "got a number with a fractional part"
            yield hit(f"num_speculative_tokens {n!r}: Input should be a valid integer, {why} (SpeculativeConfig)")
        else:  # SkipValidation[int]: `num_speculative_tokens <= 0` raises ([0.10.2] vllm/config/__init__.py:2358)
            yield hit(
                f"num_speculative_tokens {n!r} is not a number: SpeculativeConfig compares it with 0 and fails "
                f"('<=' not supported between instances of '{type(n).__name__}' and 'int')"
            )
        return
    if n_ok and n <= 0:
        if pyd:
            yield hit(f"num_speculative_tokens {n}: Input should be greater than 0 (SpeculativeConfig)")
        else:  # [0.8.5.post1] vllm/config.py SpeculativeConfig._verify_args
            yield hit(f"Expected num_speculative_tokens to be greater than zero ({n}).")
        return
    if dep.version >= V(SPEC_METHOD_LITERAL_SINCE) and isinstance(method, str) and method not in SPEC_METHODS_ANY:
        yield hit(
            f"method {method!r}: Input should be one of the release's speculative methods ('ngram', 'eagle', "
            f"'eagle3', 'draft_model', 'suffix', 'mtp', ...); {method!r} is not a method of any vLLM release "
            f"{SPEC_METHOD_LITERAL_SINCE}-0.33.0"
        )
        return
    known = method in _SPEC_NO_MODEL_METHODS or method in ("eagle", "eagle3", "medusa", "mlp_speculator", "draft_model")
    if dep.version < V("0.10.0") and model is None and n is not None and method is not None and not known:
        # before 0.10 an unknown method sets no model: the same refusal as no method at all (from 0.10 the
        # method is a pydantic Literal of the release's methods)
        yield hit("num_speculative_tokens was provided without speculative model.")
        return
    if not spec:
        yield hit(
            "num_speculative_tokens must be provided with speculative model unless the draft model config contains "
            "an n_predict parameter. (--speculative-config {})"
        )
        return
    if model is None and is_mtp_method(method) and no_mtp_layers(dep):
        yield hit(
            f"Unsupported speculative method: 'mtp' ({method!r} drafts with the target's MTP layers, which a "
            f"{dep.arch.model_type if dep.arch else ''} model has none of: num_speculative_tokens was provided "
            "without speculative model)"
        )
        return
    if model is None and method in _DRAFT_MODEL_METHODS and n is not None:
        # these methods draft with a separate model: without one there is nothing to draft with (vLLM's oracle
        # data: refused in 0.8.5.post1, 0.12.0, 0.19.1, 0.27.1, 0.30.0)
        yield hit(f"num_speculative_tokens was provided without speculative model (method {method!r} needs 'model').")
        return
    if model is None and method is None and n is not None:
        new = "was provided but without speculative model." if pyd else "was provided without speculative model."
        yield hit(f"num_speculative_tokens {new} (set 'method' or 'model' in --speculative-config)")
        return
    is_ngram = method in ("ngram", "[ngram]", "ngram_gpu") or (method is None and model in ("ngram", "[ngram]"))
    if is_ngram:
        lo, hi = spec.get("prompt_lookup_min"), spec.get("prompt_lookup_max")
        for name, v in (("prompt_lookup_min", lo), ("prompt_lookup_max", hi)):
            if isinstance(v, int) and not isinstance(v, bool) and v < 1:
                text = f"{name} {v}: Input should be greater than or equal to 1" if pyd else f"{name}={v} must be > 0"
                yield hit(text)
                return
        if lo is not None and hi is None:
            hi = lo
        if hi is not None and lo is None:
            lo = hi
        if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
            yield hit(f"prompt_lookup_min={lo} must be <= prompt_lookup_max={hi}")
            return
        if n is None:
            yield hit(
                "num_speculative_tokens must be provided with speculative model unless the draft model config "
                "contains an n_predict parameter."
            )
            return


def _v0_speculative_flags_invalid(dep: Deployment) -> Iterator[Hit]:
    """0.6/0.7's flags: SpeculativeConfig.maybe_create_spec_config ([0.6.6.post1] vllm/config.py:1650-1678,
    [0.7.3] vllm/config.py:1818-1830): tokens without a model; the ngram lookup window."""
    model = _user(dep, "speculative_model")
    if model is None:
        if _num(_user(dep, "num_speculative_tokens")) is not None:
            yield Hit(
                dep.span_of("num_speculative_tokens"),
                {},
                message=_refuse("num_speculative_tokens was provided without speculative_model."),
            )
        return
    if _num(_user(dep, "num_speculative_tokens")) is None and _since(dep, SPEC_JSON_SINCE):
        # 0.8.x builds the new SpeculativeConfig from the flags (0.6/0.7 check the ngram window first)
        yield Hit(
            dep.span_of("speculative_model"),
            {},
            message=_refuse(
                "num_speculative_tokens must be provided with speculative model unless the draft model config "
                "contains an n_predict parameter."
            ),
        )
        return
    if model != "[ngram]":
        return
    lo, hi = _num(_user(dep, "ngram_prompt_lookup_min")), _num(_user(dep, "ngram_prompt_lookup_max"))
    lo = 1 if lo is None else lo
    text = None
    if hi is None or hi < 1:
        text = f"ngram_prompt_lookup_max={None if hi is None else _fmt(hi)} must be > 0"
    elif lo < 1:
        text = f"ngram_prompt_lookup_min={_fmt(lo)} must be > 0"
    elif lo > hi:
        text = f"ngram_prompt_lookup_min={_fmt(lo)} cannot be larger than ngram_prompt_lookup_max={_fmt(hi)}"
    if text is not None:
        dest = "ngram_prompt_lookup_max" if dep.setting("ngram_prompt_lookup_max") is not None else "speculative_model"
        yield Hit(dep.span_of(dest), {}, message=_refuse(f"{text} (--speculative-model [ngram], vLLM {dep.version})"))


#: 'tensor_parallel_size' inside --speculative-config is refused with a pointer to draft_tensor_parallel_size
#: from 0.15.1 ([0.15.1] vllm/config/speculative.py:643); the 0.8-0.9 dataclass refuses any unknown key
#: (TypeError); 0.9.2-0.14 accept it (vLLM's oracle data: 0.8.5.post1 refuses, 0.9.2 accepts)
SPEC_TP_KEY_SINCE = "0.15.1"
SPEC_DATACLASS_UNTIL = "0.9.0"


@check("startup.speculative_tensor_parallel_key")
def speculative_tensor_parallel_key(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    spec = _spec(dep)
    if spec is None or "tensor_parallel_size" not in spec:
        return
    if _since(dep, SPEC_TP_KEY_SINCE):
        text = (
            "'tensor_parallel_size' is not a valid argument in the speculative_config. "
            "Please pass 'draft_tensor_parallel_size' instead."
        )
    elif dep.version < V(SPEC_DATACLASS_UNTIL):
        text = "TypeError: SpeculativeConfig.__init__() got an unexpected keyword argument 'tensor_parallel_size'"
    else:
        return
    yield Hit(dep.span_of("speculative_config"), {}, message=_refuse(text))


@check("startup.speculative_ngram_async")
def speculative_ngram_async(ctx: CheckContext) -> Iterator[Hit]:
    """Async scheduling with ngram speculative decoding: refused from 0.10.0 ([0.10.0]
    vllm/engine/arg_utils.py:1142 "Async scheduling is not supported with ..."; [0.33.0] vllm/config/vllm.py
    "… by the V1 model runner with ngram-based speculative decoding")."""
    dep = ctx.dep
    assert dep is not None
    spec = _spec(dep)
    if spec is None or _user(dep, "async_scheduling") is not True or not _since(dep, "0.10.0"):
        return
    method = spec.get("method") or spec.get("model")
    if method not in ("ngram", "[ngram]"):
        return
    if dep.version < V("0.11.1"):  # [0.10.2] vllm/engine/arg_utils.py:1295-1300
        text = "Currently, speculative decoding is not supported with async scheduling."
    elif dep.version < V("0.33.0"):  # [0.11.1]/[0.19.1]/[0.30.0] vllm/config/vllm.py (the list grows per release)
        text = (
            "Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU kind of "
            "speculative decoding"
        )
    else:
        text = "Async scheduling is not supported by the V1 model runner with ngram-based speculative decoding."
    yield Hit(dep.span_of("async_scheduling"), {"method": method}, message=_refuse(text))
