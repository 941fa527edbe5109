"""How a checkpoint's weights are quantized, read from its ``quantization_config``.

:class:`QuantScheme` says, for the linear layers a format quantizes, how many bytes a weight of
``out × in`` elements takes in the checkpoint (packed values plus scales, zero points and index
tensors), and which modules stay in the serving dtype. The byte layouts are the tensors each
format stores, as vLLM's loaders create them (cited per format below); :mod:`vlint.resolve.
weight_sizes` applies them to a model's layers. Pure data handling, no I/O.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from functools import cached_property, lru_cache

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import record, replace
from vlint.core.typing_names import Any

#: formats and the kernels' container layout (for notes)
INT_PACKED = "int_packed"  # AWQ / GPTQ / compressed-tensors pack-quantized: int32-packed ints + group scales
INT8 = "int8"  # compressed-tensors int-quantized (w8a8 int8), one byte per weight + channel/tensor scales
FP8 = "fp8"  # one byte per weight + tensor/channel/block scales
NVFP4 = "nvfp4"  # 4-bit e2m1 + fp8 scale per 16 + fp32 global scale
MXFP4 = "mxfp4"  # 4-bit e2m1 + e8m0 scale per 32
NF4 = "nf4"  # bitsandbytes 4-bit (nf4/fp4), absmax per 64 (double-quantized or fp32)
BNB8 = "bnb_int8"  # bitsandbytes LLM.int8: int8 weight + fp32 row scale (SCB)


@record(frozen=True)
class QuantScheme:
    """Weight quantization of a checkpoint (only what sizes the weights)."""

    method: str  # quant_method as vLLM names it (awq, gptq, fp8, compressed-tensors, modelopt, mxfp4, …)
    fmt: str  # INT_PACKED / INT8 / FP8 / NVFP4 / MXFP4 / NF4 / BNB8
    bits: float
    group_size: int | None = None  # None: per channel / per tensor; > 0: values per scale group
    scale_granularity: str = "group"  # tensor / channel / group / block
    block: tuple[int, int] | None = None  # fp8 block scales (out, in)
    scale_bytes: float = 2.0  # bytes per scale value
    zero_points: bool = False  # a zero point per group is stored
    g_idx: bool = False  # an int32 group index per input channel is stored (GPTQ, CT actorder)
    double_quant: bool = False  # bitsandbytes nested absmax
    ignore: tuple[str, ...] = ()  # module names / patterns kept in the serving dtype
    ignore_style: str = "substring"  # substring (AWQ/bnb/GPTQ modules_to_not_convert) / glob / ct (re: or exact)
    targets: tuple[str, ...] = ()  # compressed-tensors targets (Linear or module patterns); () = every linear
    quantize_lm_head: bool = False
    only_experts: bool = False  # format quantizes only MoE expert weights (gpt-oss mxfp4)
    # an fp16 bias of out_features per quantized linear is stored even where the model has none
    # (AutoGPTQ QuantLinear); vLLM skips loading it ([0.19.0] vllm/model_executor/models/llama.py:480,
    # :492 "Skip loading extra bias for GPTQ models")
    stored_bias: bool = False
    # ModelOpt MIXED_PRECISION: (module pattern, scheme) per quantized_layers entry; a linear matching
    # none of them stays unquantized
    per_module: tuple[tuple[str, QuantScheme], ...] = ()
    source: str = ""

    def linear_bytes(self, out_f: int, in_f: int) -> float:
        """Checkpoint bytes of one quantized ``out_f × in_f`` linear weight."""
        n, k = float(out_f), float(in_f)
        if self.fmt == INT_PACKED:
            g = self.group_size if self.group_size and self.group_size > 0 else in_f
            groups = -(-in_f // g)
            b = n * k * self.bits / 8  # qweight (int32 words of 32/bits values)
            b += groups * n * self.scale_bytes  # scales
            if self.zero_points:
                b += groups * n * self.bits / 8  # qzeros, packed like the weights
            if self.g_idx:
                b += k * 4  # int32 g_idx
            return b
        if self.fmt == INT8:
            scales = 1 if self.scale_granularity == "tensor" else n
            return n * k + scales * self.scale_bytes
        if self.fmt == FP8:
            if self.scale_granularity == "block" and self.block:
                bn, bk = self.block
                scales = -(-out_f // bn) * -(-in_f // bk)
            elif self.scale_granularity == "channel":
                scales = n
            elif self.scale_granularity == "group" and self.group_size:
                scales = n * -(-in_f // self.group_size)  # MXFP8: an e8m0 byte per 32
            else:
                scales = 1
            return n * k + scales * self.scale_bytes
        if self.fmt == NVFP4:
            g = self.group_size or 16
            return n * k / 2 + n * (-(-in_f // g)) * 1 + 8  # e2m1 pairs, fp8 scales, two fp32 globals
        if self.fmt == MXFP4:
            g = self.group_size or 32
            return n * k / 2 + n * (-(-in_f // g))  # e2m1 pairs, e8m0 scales
        if self.fmt == NF4:
            blocks = n * k / 64
            if self.double_quant:
                return n * k / 2 + blocks + blocks / 256 * 4  # uint8 absmax + fp32 nested absmax
            return n * k / 2 + blocks * 4
        if self.fmt == BNB8:
            return n * k + n * 4  # int8 + fp32 SCB per row
        return n * k * self.bits / 8

    @property
    def bytes_per_weight(self) -> float:
        """Average checkpoint bytes per quantized weight of a 4096 × 4096 layer (for notes)."""
        return self.linear_bytes(4096, 4096) / (4096 * 4096)

    # ---- which modules ------------------------------------------------------------------
    @cached_property
    def _ignore_matchers(self) -> tuple[set[str], tuple[re.Pattern[str], ...], tuple[str, ...]]:
        exact: set[str] = set()
        regexes: list[re.Pattern[str]] = []
        subs: list[str] = []
        for pat in self.ignore:
            p = str(pat)
            if self.ignore_style == "ct":
                if p.startswith("re:"):
                    try:
                        regexes.append(re.compile(p[3:]))
                    except re.error:
                        continue
                else:
                    exact.add(p)
                    if "." not in p:
                        subs.append(p)
            elif self.ignore_style == "glob":
                if any(c in p for c in "*?["):
                    regexes.append(re.compile(fnmatch.translate(p)))
                else:
                    exact.add(p)
                    subs.append(p)
            else:
                subs.append(p)
        return exact, tuple(regexes), tuple(subs)

    @cached_property
    def _dotted_subs(self) -> tuple[str, ...]:
        """The glob-style plain patterns with a dot (matched as a suffix after a dot)."""
        return tuple(p for p in self._ignore_matchers[2] if "." in p)

    @cached_property
    def layer_independent(self) -> bool:
        """Whether :meth:`quantizes` and :meth:`for_module` answer the same for a module of every decoder
        layer: no per-layer table, and no ignore entry or target that could single a layer out."""
        return (
            not self.per_module
            and all(_names_no_layer(str(p), self.ignore_style) for p in self.ignore)
            and all(_names_no_layer(t, "ct") for t in self.targets)
        )

    def ignores(self, module: str, cls: str = "Linear") -> bool:
        """Whether ``module`` (a dotted name such as ``model.layers.3.mlp.down_proj``) stays unquantized."""
        exact, regexes, subs = self._ignore_matchers
        if not (exact or regexes or subs):  # most checkpoints: no ignore list (or none usable)
            return False
        return any(self._ignores(name) for name in module_aliases(module))

    def _ignores(self, module: str) -> bool:
        exact, regexes, subs = self._ignore_matchers
        if module in exact:
            return True
        if any(r.fullmatch(module) or (self.ignore_style == "ct" and r.match(module)) for r in regexes):
            return True
        if self.ignore_style == "ct":
            # compressed-tensors: a bare layer-class / short name matches by suffix (e.g. "lm_head"); the
            # bare names have no dot, so matching one is the module's last part being it (exact holds them)
            return module.rpartition(".")[2] in exact
        if self.ignore_style == "glob":
            return module.rpartition(".")[2] in exact or any(module.endswith("." + s) for s in self._dotted_subs)
        # AWQ / GPTQ / bnb modules_to_not_convert: substring of the module name
        return any(s and s in module for s in subs)

    def for_module(self, module: str) -> QuantScheme:
        """The scheme ``module`` is stored with (its quantized_layers entry for ModelOpt mixed precision)."""
        for pattern, sub in self.per_module:
            if _layer_matches(pattern, module):
                return sub
        return self

    def quantizes(self, module: str, *, expert: bool = False) -> bool:
        """Whether the linear ``module`` is stored quantized."""
        if self.per_module:
            # [0.24.0] vllm/model_executor/layers/quantization/modelopt.py:2483-2510: excluded → unquantized;
            # else the algo of its quantized_layers entry (itself or a parent, e.g. mlp.experts); none → unquantized
            return not self.ignores(module) and any(_layer_matches(p, module) for p, _ in self.per_module)
        if module.endswith("lm_head"):
            return self.quantize_lm_head and not self.ignores(module)
        if self.only_experts and not expert:
            return False
        if self.targets and not any(_ct_target(t, module) for t in self.targets):
            return False
        return not self.ignores(module)


@lru_cache(maxsize=4096)
def module_aliases(module: str) -> tuple[str, ...]:
    """``module`` as vlint names it (``model.layers.N.…``) and as multimodal checkpoints do
    (``model.language_model.layers.N.…``, older ``language_model.model.layers.N.…``): vLLM maps the
    ignore lists and layer tables with the model's hf_to_vllm_mapper like the weight names
    ([0.19.0] vllm/model_executor/layers/quantization/modelopt.py:221-239), so either spelling matches."""
    names = [module]
    for generic, family in _MOE_NAMES:  # Mixtral / MiniMax name the MoE block block_sparse_moe
        if generic in module:
            names.append(module.replace(generic, family))
    for m in list(names):  # and the experts' projections w1 (gate) / w3 (up) / w2 (down)
        if ".block_sparse_moe.experts." in m:
            for proj, w in _EXPERT_W:
                if m.endswith(proj):
                    names.append(m[: -len(proj)] + w)
    if module.startswith("model.layers."):
        for m in list(names):
            rest = m[len("model.") :]
            names += ["model.language_model." + rest, "language_model.model." + rest]
    return tuple(names)


#: vlint's MoE module names and the Mixtral-style spelling ([0.19.0] vllm/model_executor/models/mixtral.py
#: block_sparse_moe; minimax_m2.py)
_MOE_NAMES = (
    (".mlp.experts.", ".block_sparse_moe.experts."),
    (".mlp.shared_experts.", ".block_sparse_moe.shared_experts."),
    (".mlp.gate", ".block_sparse_moe.gate"),
)
#: Mixtral-style expert weight names ([0.19.0] vllm/model_executor/models/mixtral.py:370-373)
_EXPERT_W = ((".gate_proj", ".w1"), (".down_proj", ".w2"), (".up_proj", ".w3"))

#: an ignore pattern that names every module of every decoder layer: the catalog's summary of per-layer
#: entries (layer index → ``*``: ``model.layers.1.*`` and ``model.layers.2.*`` become ``model.layers.*.*``)
#: broadened it; applied, it would leave a quantized checkpoint with nothing quantized
_ALL_LAYERS = lazy_compile(r"^(?:model\.|language_model\.model\.|model\.language_model\.)?layers\.\*\.?\*$")


def _usable_ignores(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n for n in names if not _ALL_LAYERS.match(n))


def _layer_matches(pattern: str, module: str) -> bool:
    """A quantized_layers key (wildcards allowed) names ``module`` or a parent of it (FusedMoE experts)."""
    return any(
        fnmatch.fnmatchcase(m, pattern) or fnmatch.fnmatchcase(m, pattern + ".*") for m in module_aliases(module)
    )


#: letter words joined by single dots, optionally anchored at the end: as a regex after ``.*``, it
#: cannot match across a layer's index (that takes a digit or two wildcards in a row)
_LAYER_FREE_TAIL = lazy_compile(r"[A-Za-z_]+(?:\.[A-Za-z_]+)*\$?")


def _names_no_layer(pattern: str, style: str) -> bool:
    """Whether an ignore entry or target matches a module of one decoder layer exactly when it matches
    that module of every layer (``model.layers.N.…`` names differ only in N's digits): a plain name
    or substring without a digit; a glob without ``?``/``[``; a ``re:`` pattern only of the form
    ``.*`` + dotted words (``re:.*mlp.gate$``) — any other regex may pick layers."""
    if any(c.isdigit() for c in pattern):
        return False
    if style == "ct" and pattern.startswith("re:"):
        body = pattern[3:]
        return body.startswith(".*") and _LAYER_FREE_TAIL.fullmatch(body[2:]) is not None
    if style == "glob":
        return not any(c in pattern for c in "?[")
    return True


def _ct_target(target: str, module: str) -> bool:
    if target in ("Linear", "nn.Linear"):
        return True
    if target.startswith("re:"):
        try:
            return re.match(target[3:], module) is not None
        except re.error:
            return False
    return module == target or module.endswith("." + target)


# --------------------------------------------------------------------------------------------
# parsing


def _int(v: Any, default: int | None = None) -> int | None:
    try:
        return int(v)
    except (TypeError, ValueError):
        return default


def _names(v: Any) -> tuple[str, ...]:
    if isinstance(v, str):
        return (v,)
    if isinstance(v, (list, tuple)):
        return tuple(str(x) for x in v if isinstance(x, (str, int)))
    return ()


def _modelopt_nvfp4(group_size: int, ignore: tuple[str, ...] = ()) -> QuantScheme:
    return QuantScheme(
        method="modelopt_fp4",
        fmt=NVFP4,
        bits=4,
        group_size=group_size,
        ignore=ignore,
        ignore_style="glob",
        source="modelopt NVFP4: e2m1 + fp8 scale per 16 + fp32 globals",
    )


def _modelopt_fp8(ignore: tuple[str, ...] = ()) -> QuantScheme:
    return QuantScheme(
        method="modelopt",
        fmt=FP8,
        bits=8,
        scale_granularity="tensor",
        scale_bytes=4,
        ignore=ignore,
        ignore_style="glob",
        source="modelopt FP8: 1 byte + fp32 per-tensor scales",
    )


def _modelopt_mixed(layers: Mapping[str, Any], ignore: tuple[str, ...]) -> QuantScheme:
    """ModelOpt MIXED_PRECISION: each ``quantized_layers`` entry FP8, NVFP4 or W4A16_NVFP4 (the same
    packing as NVFP4, run by Marlin); linears in no entry stay unquantized ([0.24.0] vllm/model_executor/
    layers/quantization/modelopt.py:2268-2510, ModelOptMixedPrecisionConfig)."""
    subs: list[tuple[str, QuantScheme]] = []
    for pattern, info in layers.items():
        algo = str((info or {}).get("quant_algo") or "").upper() if isinstance(info, Mapping) else ""
        if algo in ("NVFP4", "W4A16_NVFP4"):
            subs.append((str(pattern), _modelopt_nvfp4(_int(info.get("group_size"), 16) or 16)))
        elif algo == "FP8":
            subs.append((str(pattern), _modelopt_fp8()))
        elif algo == "MXFP8":  # e4m3 + an e8m0 scale per 32 ([0.33.0] modelopt.py:154-155, mxfp8_utils.py:10-11)
            subs.append(
                (
                    str(pattern),
                    QuantScheme(
                        method="modelopt_mxfp8",
                        fmt=FP8,
                        bits=8,
                        group_size=32,
                        scale_granularity="group",
                        scale_bytes=1,
                        source="modelopt MXFP8: 1 byte + e8m0 scale per 32",
                    ),
                )
            )
    fp4 = any(sub.fmt == NVFP4 for _, sub in subs)
    base = _modelopt_nvfp4(16, ignore) if fp4 else _modelopt_fp8(ignore)
    return replace(
        base,
        method="modelopt_mixed",
        per_module=tuple(subs),
        source="modelopt MIXED_PRECISION: per-layer FP8 / NVFP4 from quantized_layers",
    )


def scheme_from_config(q: Mapping[str, Any] | None, model_dtype_bytes: float = 2.0) -> QuantScheme | None:
    """The :class:`QuantScheme` of a ``quantization_config`` (or ``compression_config``) dict.

    Layouts (checkpoint tensors, as the vLLM loaders declare them; 0.19.0 paths):
    AWQ ``qweight``/``qzeros`` int32 packed + fp16 ``scales`` per group (model_executor/layers/
    quantization/awq.py create_weights); GPTQ the same plus int32 ``g_idx`` (gptq.py create_weights);
    compressed-tensors pack-quantized ``weight_packed`` + ``weight_scale`` per group (+ zero points when
    asymmetric, + ``weight_g_idx`` with actorder; compressed_tensors/schemes/
    compressed_tensors_wNa16.py), int8/fp8 ``weight`` + channel/tensor ``weight_scale``
    (compressed_tensors_w8a8_int8.py, compressed_tensors_w8a8_fp8.py), nvfp4 ``weight_packed`` + fp8
    ``weight_scale`` per 16 + fp32 ``weight_global_scale`` (compressed_tensors_w4a4_nvfp4.py);
    fp8 one byte + fp32 ``weight_scale`` per tensor or ``weight_scale_inv`` per block (fp8.py);
    ModelOpt FP8 / NVFP4 (modelopt.py); MXFP4 e2m1 blocks + e8m0 scales per 32 (mxfp4.py);
    bitsandbytes nf4 packed + absmax per 64 (bitsandbytes.py). Unknown or weight-free methods
    (GGUF sizes come from the file) return None.
    """
    if not isinstance(q, Mapping):
        return None
    method = str(q.get("quant_method") or q.get("quant_algo") or "").lower()
    if not method and q.get("config_groups"):
        method = "compressed-tensors"
    half = 2.0
    skips = _names(q.get("modules_to_not_convert")) + _names(q.get("exclude_modules"))
    if method in ("awq", "awq_marlin"):
        bits = float(q.get("bits") or q.get("w_bit") or 4)
        return QuantScheme(
            method="awq",
            fmt=INT_PACKED,
            bits=bits,
            group_size=_int(q.get("group_size") or q.get("q_group_size"), 128),
            scale_bytes=half,
            zero_points=bool(q.get("zero_point", True)),
            ignore=skips,
            source="awq: qweight/qzeros int32 + fp16 scales per group",
        )
    if method in ("gptq", "gptq_marlin", "auto-round", "auto_round", "autoround"):
        fmt_name = str(q.get("packing_format") or q.get("backend") or "")
        bits = float(q.get("bits") or 4)
        gs = _int(q.get("group_size"), 128)
        if "awq" in fmt_name:
            return QuantScheme(
                method=method,
                fmt=INT_PACKED,
                bits=bits,
                group_size=gs,
                zero_points=True,
                ignore=skips + _auto_round_skips(q),
                source=f"{method} in AWQ packing",
            )
        dyn = q.get("dynamic")
        lm_head = bool(q.get("lm_head")) or (isinstance(dyn, Mapping) and any("lm_head" in str(k) for k in dyn))
        return QuantScheme(
            method=method,
            fmt=INT_PACKED,
            bits=bits,
            group_size=gs,
            scale_bytes=half,
            zero_points=True,  # GPTQ checkpoints store qzeros even when symmetric
            g_idx=True,  # and the int32 g_idx, desc_act or not
            stored_bias=True,
            ignore=skips + _auto_round_skips(q),
            quantize_lm_head=lm_head,
            source=f"{method}: qweight/qzeros int32 + fp16 scales per group + int32 g_idx",
        )
    if method in ("fp8", "fbgemm_fp8", "ptpc_fp8"):
        block = q.get("weight_block_size")
        if isinstance(block, (list, tuple)) and len(block) == 2:
            return QuantScheme(
                method=method,
                fmt=FP8,
                bits=8,
                scale_granularity="block",
                block=(int(block[0]), int(block[1])),
                scale_bytes=4,
                ignore=skips,
                ignore_style="glob",
                source="fp8 block: 1 byte + fp32 weight_scale_inv per block",
            )
        return QuantScheme(
            method=method,
            fmt=FP8,
            bits=8,
            scale_granularity="channel" if method in ("fbgemm_fp8", "ptpc_fp8") else "tensor",
            scale_bytes=4,
            ignore=skips,
            ignore_style="glob",
            source="fp8: 1 byte + fp32 scale",
        )
    if method in ("modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed"):
        inner = q.get("quantization") or {}
        algo = str(q.get("quant_algo") or inner.get("quant_algo") or "").upper()
        # config.json form names the excluded modules "ignore", hf_quant_config.json "exclude_modules"
        # ([0.19.0] vllm/model_executor/layers/quantization/modelopt.py:295-313)
        excl = _usable_ignores(skips + _names(q.get("ignore")) + _names(inner.get("exclude_modules")))
        if algo == "MIXED_PRECISION" or method == "modelopt_mixed":
            return _modelopt_mixed(q.get("quantized_layers") or inner.get("quantized_layers") or {}, excl)
        if "FP4" in algo or method == "modelopt_fp4":
            return _modelopt_nvfp4(_int(q.get("group_size") or inner.get("group_size"), 16) or 16, excl)
        return _modelopt_fp8(excl)
    if method in ("mxfp4", "gpt_oss_mxfp4"):
        return QuantScheme(
            method="mxfp4",
            fmt=MXFP4,
            bits=4,
            group_size=32,
            ignore=skips,
            ignore_style="glob",
            only_experts=True,
            source="mxfp4: e2m1 blocks + e8m0 scale per 32 (MoE experts only)",
        )
    if method == "bitsandbytes":
        four = bool(q.get("load_in_4bit") or q.get("_load_in_4bit"))
        skip = _names(q.get("llm_int8_skip_modules"))
        if four:
            return QuantScheme(
                method=method,
                fmt=NF4,
                bits=4,
                group_size=64,
                double_quant=bool(q.get("bnb_4bit_use_double_quant")),
                ignore=skip,
                source="bitsandbytes 4-bit: packed nf4/fp4 + absmax per 64",
            )
        return QuantScheme(method=method, fmt=BNB8, bits=8, ignore=skip, source="bitsandbytes int8 + fp32 SCB")
    if method == "compressed-tensors":
        return _compressed_tensors(q, model_dtype_bytes)
    return None


def _auto_round_skips(q: Mapping[str, Any]) -> tuple[str, ...]:
    # AutoRound lists unquantized layers in extra_config {name: {"bits": 16}} (or block_name_to_quantize)
    extra = q.get("extra_config")
    out: list[str] = []
    if isinstance(extra, Mapping):
        for name, v in extra.items():
            if isinstance(v, Mapping) and (_int(v.get("bits"), 16) or 16) >= 16:
                out.append(str(name))
    return tuple(out)


def _ct_byte(
    fmt: str, strategy: str, model_dtype_bytes: float, ignore: tuple[str, ...], targets: tuple[str, ...]
) -> QuantScheme:
    """compressed-tensors one-byte weights (fp8 / int8) with per-channel or per-tensor scales."""
    channel = strategy == "channel"
    return QuantScheme(
        method="compressed-tensors",
        fmt=fmt,
        bits=8,
        scale_granularity="channel" if channel else "tensor",
        scale_bytes=model_dtype_bytes if channel else 4,
        ignore=ignore,
        ignore_style="ct",
        targets=targets,
        source=f"compressed-tensors {fmt} per {strategy}",
    )


def _compressed_tensors(q: Mapping[str, Any], model_dtype_bytes: float) -> QuantScheme | None:
    groups = q.get("config_groups") or {}
    fmt_name = str(q.get("format") or "")
    ignore = _names(q.get("ignore"))
    for g in groups.values() if isinstance(groups, Mapping) else []:
        w = g.get("weights") if isinstance(g, Mapping) else None
        if not isinstance(w, Mapping) or not w.get("num_bits"):
            continue
        bits = float(w["num_bits"])
        strategy = str(w.get("strategy") or "tensor").lower()
        wtype = str(w.get("type") or "int").lower()
        gs = _int(w.get("group_size"))
        targets = _names(g.get("targets")) or ("Linear",)
        sym = bool(w.get("symmetric", True))
        actorder = w.get("actorder")
        gfmt = str(g.get("format") or fmt_name)
        if wtype == "float" and bits == 4:
            return QuantScheme(
                method="compressed-tensors",
                fmt=NVFP4,
                bits=4,
                group_size=gs or 16,
                ignore=ignore,
                ignore_style="ct",
                targets=targets,
                source="compressed-tensors nvfp4: packed e2m1 + fp8 scale per 16 + fp32 global",
            )
        if wtype == "float" and bits == 8:
            block = w.get("block_structure")
            if strategy == "block" and isinstance(block, (list, tuple)) and len(block) == 2:
                return QuantScheme(
                    method="compressed-tensors",
                    fmt=FP8,
                    bits=8,
                    scale_granularity="block",
                    block=(int(block[0]), int(block[1])),
                    scale_bytes=model_dtype_bytes,
                    ignore=ignore,
                    ignore_style="ct",
                    targets=targets,
                    source="compressed-tensors fp8 block",
                )
            return _ct_byte(FP8, strategy, model_dtype_bytes, ignore, targets)
        if bits == 8 and ("pack" not in gfmt):
            return _ct_byte(INT8, strategy, model_dtype_bytes, ignore, targets)
        return QuantScheme(
            method="compressed-tensors",
            fmt=INT_PACKED,
            bits=bits,
            group_size=gs if strategy == "group" and gs and gs > 0 else None,
            scale_bytes=model_dtype_bytes,
            zero_points=not sym,
            g_idx=bool(actorder) and str(actorder).lower() not in ("false", "none", "static"),
            ignore=ignore,
            ignore_style="ct",
            targets=targets,
            source=f"compressed-tensors {gfmt or 'pack-quantized'} w{int(bits)} per {strategy}",
        )
    return None


__all__ = ["QuantScheme", "scheme_from_config"]
