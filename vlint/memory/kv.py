"""KV-cache page math: per-layer specs, vLLM's hybrid grouping, blocks, tokens, concurrency.

Mirrors ``vllm/v1/kv_cache_interface.py`` (page sizes, per-request memory) and
``vllm/v1/core/kv_cache_utils.py`` (grouping, ``num_blocks``, capacity, feasibility, the
``estimate_max_model_len`` binary search) per version. Pure functions; sizes in bytes.
"""

from __future__ import annotations

import math

from vlint.core.memo import BoundedMemo
from vlint.core.record import field, record
from vlint.resolve.model_arch import (
    CACHELESS_ATTENTION,
    CHUNKED,
    FULL,
    LINEAR,
    MAMBA,
    NO_KV,
    SLIDING,
    ModelArch,
    ceil_div,
)

MLA = "mla"

KV_DTYPE_BYTES = {
    "auto": None,
    "float16": 2,
    "bfloat16": 2,
    "half": 2,
    "float32": 4,
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "fp8_inc": 1,
    "fp8_ds_mla": 1,
    "nvfp4_ds_mla": 1,
    "int8_per_token_head": 1,
    "fp8_per_token_head": 1,
}


def kv_elem_bytes(kv_cache_dtype: str | None, model_dtype_bytes: float) -> float:
    """Bytes per KV element: ``auto`` = model dtype; fp8 variants 1 B; packed 4-bit formats are
    given 1 B (their container) as a lower bound (vllm/utils/torch_utils.py:40-66)."""
    if not kv_cache_dtype or kv_cache_dtype == "auto":
        return model_dtype_bytes
    b = KV_DTYPE_BYTES.get(kv_cache_dtype.lower())
    if b is None:
        return 1.0
    return float(b)


@record(frozen=True)
class LayerSpec:
    """One KV-holding layer on a rank."""

    kind: str  # FULL, SLIDING, CHUNKED, MLA, MAMBA (incl. linear attention)
    bytes_per_token: float = 0.0  # attention kinds
    window: int | None = None  # sliding window / attention chunk
    state_bytes: float = 0.0  # Mamba/linear: bytes of one state (one page before padding) per layer
    #: Mamba/linear: pages one request holds (``MambaSpec.max_memory_usage_bytes``: 1 + speculative
    #: blocks in the "none" cache mode, 2 + speculative (+ a prefill checkpoint) in "align"), or, with
    #: ``state_per_block`` (the "all" mode), the pages it holds beyond one per block of its length
    state_pages: int = 1
    state_per_block: bool = False

    @property
    def key(self) -> tuple[str, float, int | None, float, int, bool]:
        return (self.kind, self.bytes_per_token, self.window, self.state_bytes, self.state_pages, self.state_per_block)


def pp_partition(num_layers: int, pp: int) -> list[int]:
    """Layers per PP stage, as ``get_pp_indices`` (vllm/distributed/utils.py:95-140): even split,
    remainder to the stages before the last, starting from the second-to-last."""
    pp = max(1, pp)
    parts = [num_layers // pp] * pp
    rem = num_layers % pp
    for i in range(2, rem + 2):
        parts[-i] += 1
    return parts


def indexer_key_bytes(arch: ModelArch) -> float:
    """Bytes per token of a sparse-attention indexer's key cache: fp8 keys plus one fp32 scale per 128
    (``head_dim + head_dim // 128 * 4`` uint8, [0.19.1] vllm/model_executor/models/deepseek_v2.py:663-670),
    on every TP rank. vLLM puts it in the latent cache's KV group (both MLAAttentionSpec, one page per
    layer each, UniformTypeKVCacheSpecs [0.19.1] vllm/v1/kv_cache_interface.py), so it adds to the
    layer's bytes per token."""
    hd = int(arch.index_head_dim or 0)
    return float(hd + hd // 128 * 4)


@record(frozen=True)
class StateCache:
    """How a release keeps one request's Mamba/linear-attention states (see
    ``vlint.memory.estimate.state_cache``): ``conv_positions`` extra conv positions per state (the
    speculative tokens), ``pages`` pages per request (or, with ``per_block``, pages beyond one per block)."""

    conv_positions: int = 0
    pages: int = 1
    per_block: bool = False


#: layer_specs' answers by their arguments: the same launch is sized on ~11 reference GPUs, with the
#: same layers each time
_SPECS: BoundedMemo[tuple[LayerSpec, ...]] = BoundedMemo()


def layer_specs(
    arch: ModelArch,
    *,
    layer_range: tuple[int, int],
    tp: int,
    kv_bytes: float,
    model_dtype_bytes: float,
    kv_cache_dtype: str | None,
    treat_windowed_as_full: bool,
    indexer_skips: bool = False,
    state: StateCache | None = None,
) -> list[LayerSpec]:
    """KV specs of the layers ``[start, end)`` on one TP rank. ``indexer_skips``: the release builds no
    sparse-attention indexer on the layers an IndexCache config skips (see ``ModelArch.has_indexer``).
    ``state``: how the release keeps Mamba/linear-attention states (default: one page per request, no
    speculative positions). Equal specs are one object, so that sums over layers can compute each distinct
    spec once."""
    st = state or StateCache()

    key = (arch, layer_range, tp, kv_bytes, model_dtype_bytes, kv_cache_dtype, treat_windowed_as_full, indexer_skips)

    def build() -> tuple[LayerSpec, ...]:
        built = _layer_specs(*key, st)
        canon: dict[tuple[str, float, int | None, float, int, bool], LayerSpec] = {}
        return tuple(canon.setdefault(spec.key, spec) for spec in built)

    hit = _SPECS.get((*key, st), build)
    return list(hit)


def _layer_specs(
    arch: ModelArch,
    layer_range: tuple[int, int],
    tp: int,
    kv_bytes: float,
    model_dtype_bytes: float,
    kv_cache_dtype: str | None,
    treat_windowed_as_full: bool,
    indexer_skips: bool,
    st: StateCache,
) -> list[LayerSpec]:
    specs: list[LayerSpec] = []
    start, end = layer_range
    for layer, kind in enumerate(arch.layer_types[start:end], start=start):
        if kind == NO_KV or kind in CACHELESS_ATTENTION:
            continue
        if kind in (MAMBA, LINEAR):
            # the conv state keeps kernel - 1 + num_speculative_tokens positions
            conv = (arch.state_conv_elems + st.conv_positions * arch.state_conv_width) / tp
            ssm = arch.state_ssm_elems / tp
            sb = arch.state_ssm_dtype_bytes or model_dtype_bytes
            specs.append(
                LayerSpec(
                    MAMBA,
                    state_bytes=conv * model_dtype_bytes + ssm * sb,
                    state_pages=st.pages,
                    state_per_block=st.per_block,
                )
            )
            continue
        if arch.is_mla:
            # vllm/model_executor/layers/attention/mla_attention.py:1371-1397: 1 head of
            # kv_lora_rank + qk_rope_head_dim, replicated on every TP rank
            if (kv_cache_dtype or "").lower() == "fp8_ds_mla":
                per_tok = 656.0
            else:
                per_tok = (int(arch.kv_lora_rank or 0) + int(arch.qk_rope_head_dim or 0)) * kv_bytes
            if arch.has_indexer(layer, skipped_layers_drop_it=indexer_skips):
                per_tok += indexer_key_bytes(arch)
            specs.append(LayerSpec(MLA, bytes_per_token=per_tok))
            continue
        kvh = arch.kv_heads_for(kind)
        hd = arch.head_dim_for(kind)
        hdv = arch.head_dim_v or hd
        local_heads = max(1, kvh // tp)  # vllm/config/model.py:1663-1683
        per_tok = local_heads * (hd + hdv) * kv_bytes
        if kind == FULL or treat_windowed_as_full:
            specs.append(LayerSpec(FULL, bytes_per_token=per_tok))
        elif kind == SLIDING:
            specs.append(LayerSpec(SLIDING, bytes_per_token=per_tok, window=arch.sliding_window))
        elif kind == CHUNKED:
            specs.append(LayerSpec(CHUNKED, bytes_per_token=per_tok, window=arch.attention_chunk_size))
    return specs


@record
class KVLayout:
    """How one rank's KV memory is cut into blocks."""

    specs: list[LayerSpec]
    block_size: int
    groups: list[tuple[LayerSpec, int]] = field(default_factory=list)  # (spec, layers in group)
    group_size: int = 0
    page_bytes: float = 0.0  # per layer per block (uniform across groups when hybrid)
    bytes_per_block: float = 0.0
    uniform: bool = True  # one group (all layers share the block table)
    padding_layers: int = 0
    context_parallel: int = 1  # decode × prefill context-parallel ranks the tokens are spread over
    #: per_token_bytes / per_token_by_kind, once computed (a memoized layout serves many estimates)
    _per_token: tuple[float, dict[str, float]] | None = field(default=None, compare=False, repr=False)

    @property
    def num_groups(self) -> int:
        return max(1, len(self.groups))

    def per_token_bytes(self) -> float:
        """KV bytes per token summed over attention layers (what 'full' accounting would use)."""
        return self._per_token_sums()[0]

    def per_token_by_kind(self) -> dict[str, float]:
        """:meth:`per_token_bytes` by layer kind (in the order the kinds first appear; a new dict)."""
        return dict(self._per_token_sums()[1])

    def _per_token_sums(self) -> tuple[float, dict[str, float]]:
        if self._per_token is None:
            by_kind: dict[str, float] = {}
            for s in self.specs:
                by_kind[s.kind] = by_kind.get(s.kind, 0.0) + (s.bytes_per_token or 0.0)
            self._per_token = (sum(s.bytes_per_token for s in self.specs), by_kind)
        return self._per_token


def attention_block_size_for_hybrid(
    specs: list[LayerSpec], block_size: int, alignment: int = 16, *, chunk: int | None = None
) -> int:
    """Attention block size vLLM picks so an attention page holds at least one Mamba page: the smallest
    multiple of ``alignment`` whose page covers the state (``alignment × cdiv(mamba page, alignment × attention
    bytes per token)``); in the "all" Mamba cache mode a multiple of ``lcm(chunk, alignment)`` covering as
    many tokens as the state is worth (``chunk``: the user's mamba_block_size, else the model's Mamba chunk).
    Never below ``block_size`` ([0.19.0] vllm/model_executor/models/config.py:241-289; from 0.20.0
    Platform._align_hybrid_block_size, [0.26.0] vllm/platforms/interface.py:764-909, whose alignment is
    ``max(the backend's smallest kernel block, block_size)``: the caller passes it)."""
    att = [s for s in specs if s.kind != MAMBA]
    mam = [s for s in specs if s.kind == MAMBA]
    if not att or not mam:
        return block_size
    per_tok = max(s.bytes_per_token for s in att)
    mamba_page = max(s.state_bytes for s in mam)
    if per_tok <= 0:
        return block_size
    if chunk:
        step = math.lcm(int(chunk), int(alignment))
        bs = step * ceil_div(ceil_div(int(mamba_page), int(per_tok)), step)
    else:
        bs = alignment * ceil_div(int(mamba_page), int(alignment * per_tok))
    return max(block_size, bs)


#: layouts by (the identities of their specs, block size, hybrid manager, context parallelism): a launch
#: sized on the reference GPUs builds the same layout for most of them (:func:`layer_specs` hands out
#: one object per distinct spec, and the memo keeps each layout's specs alive, so an identity key
#: cannot be reused by other specs)
_LAYOUTS: BoundedMemo[KVLayout] = BoundedMemo(256)


def build_layout(
    specs: list[LayerSpec], block_size: int, *, hybrid_manager: bool, context_parallel: int = 1
) -> KVLayout:
    """Group layers like ``get_kv_cache_groups`` and size one block. With decode/prefill context
    parallelism (``context_parallel`` = dcp × pcp ranks) each rank keeps every cp-th token of a
    full-attention layer. The layout is shared by equal calls: read it, never change it."""
    key = (tuple(map(id, specs)), block_size, hybrid_manager, context_parallel)
    return _LAYOUTS.get(key, lambda: _build_layout(list(specs), block_size, hybrid_manager, context_parallel))


def _build_layout(specs: list[LayerSpec], block_size: int, hybrid_manager: bool, context_parallel: int) -> KVLayout:
    lay = KVLayout(specs=specs, block_size=block_size, context_parallel=max(1, context_parallel))
    if not specs:
        return lay
    kinds = {s.key for s in specs}
    if len(kinds) == 1 or not hybrid_manager:
        # one group; every layer gets its own page per block
        lay.groups = [(specs[0], len(specs))]
        lay.group_size = len(specs)
        lay.uniform = True
        lay.bytes_per_block = sum(_page(s, block_size) for s in specs)
        lay.page_bytes = lay.bytes_per_block / len(specs)
        return lay
    counts: dict[tuple, tuple[LayerSpec, int]] = {}
    for s in specs:
        spec, n = counts.get(s.key, (s, 0))
        counts[s.key] = (spec, n + 1)
    ns = [n for _, n in counts.values()]
    gsize = min(ns)
    if max(ns) < min(ns) * 1.5:
        gsize = max(ns)
    groups: list[tuple[LayerSpec, int]] = []
    pad = 0
    for spec, n in counts.values():
        ng = ceil_div(n, gsize)
        pad += ng * gsize - n
        groups.extend((spec, gsize) for _ in range(ng))
    page = max(_page(spec, block_size) for spec, _ in groups)  # pages unified to the largest
    lay.groups = groups
    lay.group_size = gsize
    lay.page_bytes = page
    lay.bytes_per_block = page * gsize
    lay.uniform = False
    lay.padding_layers = pad
    return lay


def _page(spec: LayerSpec, block_size: int) -> float:
    if spec.kind == MAMBA:
        return spec.state_bytes
    return block_size * spec.bytes_per_token


def spec_max_tokens(spec: LayerSpec, max_model_len: int, in_flight_tokens: int) -> int | None:
    """Tokens one request keeps for a windowed spec (None = full length)."""
    if spec.kind == SLIDING and spec.window:
        return min(spec.window - 1 + in_flight_tokens, max_model_len)
    if spec.kind == CHUNKED and spec.window:
        return min(spec.window + in_flight_tokens, max_model_len)
    return None


def spec_request_bytes(
    spec: LayerSpec,
    max_model_len: int,
    block_size: int,
    in_flight_tokens: int,
    context_parallel: int = 1,
    page: float | None = None,
) -> float:
    """``max_memory_usage_bytes`` of one layer for one request of ``max_model_len``: a
    full-attention layer keeps ``cdiv(max_model_len, dcp × pcp)`` tokens per rank
    ([0.19.1] vllm/v1/kv_cache_interface.py:112-121); a Mamba layer its ``state_pages`` pages of its page
    (``page``: the page it is padded to, the layout's unified page; [0.26.0] vllm/v1/kv_cache_interface.py:709-718)."""
    if spec.kind == MAMBA:
        mpage = max(spec.state_bytes, page or 0.0)
        if spec.state_per_block:
            return (ceil_div(max_model_len, block_size) + spec.state_pages) * mpage
        return spec.state_pages * mpage
    attn_page = block_size * spec.bytes_per_token
    w = spec_max_tokens(spec, max_model_len, in_flight_tokens)
    if w is not None:
        extra = 1 if spec.kind == SLIDING else 0
        return (ceil_div(w, block_size) + extra) * attn_page
    return ceil_div(ceil_div(max_model_len, max(1, context_parallel)), block_size) * attn_page


def _state_page(lay: KVLayout) -> float | None:
    """The page a Mamba state is padded to in ``lay``: the unified page of a hybrid layout."""
    return None if lay.uniform else lay.page_bytes


def request_bytes(lay: KVLayout, max_model_len: int, in_flight_tokens: int) -> float:
    """KV bytes one request of ``max_model_len`` needs on this rank (sum over layers, in layer order;
    each run of the same spec object computed once)."""
    total: float = 0
    last: LayerSpec | None = None
    value = 0.0
    page = _state_page(lay)
    for s in lay.specs:
        if s is not last:
            value = spec_request_bytes(s, max_model_len, lay.block_size, in_flight_tokens, lay.context_parallel, page)
            last = s
        total += value
    return total


def blocks_per_request(lay: KVLayout, max_model_len: int, in_flight_tokens: int) -> int:
    """Blocks (of ``bytes_per_block``) one request needs: Σ over groups (group-aware)."""
    if lay.uniform:
        return ceil_div(max_model_len, lay.block_size)
    total = 0
    for spec, _n in lay.groups:
        need = spec_request_bytes(
            spec, max_model_len, lay.block_size, in_flight_tokens, lay.context_parallel, lay.page_bytes
        )
        total += ceil_div(int(need), int(lay.page_bytes) or 1)
    return total


def max_concurrency(lay: KVLayout, num_blocks: int, max_model_len: int, in_flight_tokens: int) -> float:
    """``get_max_concurrency_for_kv_cache_config`` ([0.19.1] vllm/v1/core/kv_cache_utils.py:802; [0.26.0]
    :937-955): the blocks over ``cdiv(group size × Σ over groups of one spec's max_memory_usage_bytes, page ×
    group size)``, i.e. every group's pages of one request."""
    if lay.bytes_per_block <= 0:
        return 0.0
    if lay.uniform:
        per_req = request_bytes(lay, max_model_len, in_flight_tokens)
        return num_blocks / max(1, ceil_div(int(per_req), int(lay.bytes_per_block)))
    per_layer_sum = sum(
        spec_request_bytes(spec, max_model_len, lay.block_size, in_flight_tokens, lay.context_parallel, lay.page_bytes)
        for spec, _ in lay.groups
    )
    return num_blocks / max(1, ceil_div(int(per_layer_sum), int(lay.page_bytes) or 1))


def kv_tokens(
    lay: KVLayout,
    num_blocks: int,
    max_model_len: int,
    in_flight_tokens: int,
    *,
    group_aware: bool,
    engine: str,
) -> int:
    """The 'GPU KV cache size: N tokens' figure of a version (before the group-aware figure it is
    multiplied by the context-parallel ranks, [0.19.1] vllm/v1/core/kv_cache_utils.py:1307-1316): V0
    blocks × block size; V1 before 0.21 ``num_blocks // num_groups × block_size`` ([0.20.0]
    vllm/v1/core/kv_cache_utils.py:1694); from 0.21 ``int(max_concurrency × max_model_len)`` ([0.26.0]
    vllm/v1/core/kv_cache_utils.py:1819-1829, 2169-2177)."""
    if engine == "V0":
        return num_blocks * lay.block_size
    if lay.uniform and not group_aware:
        return num_blocks * lay.block_size * lay.context_parallel
    if not group_aware:
        # [0.19.1] vllm/v1/core/kv_cache_utils.py:1302-1306
        return num_blocks // lay.num_groups * lay.block_size * lay.context_parallel
    return int(max_concurrency(lay, num_blocks, max_model_len, in_flight_tokens) * max_model_len)


def estimate_max_model_len(lay: KVLayout, available_bytes: float, max_model_len: int, in_flight_tokens: int) -> int:
    """vLLM's binary search for the longest length whose one-request KV fits
    (``estimate_max_model_len``, [0.19.1] vllm/v1/core/kv_cache_utils.py:665-712)."""

    def fits(n: int) -> bool:
        return request_bytes(lay, n, in_flight_tokens) <= available_bytes

    left, right = 1, max_model_len
    if not fits(left):
        return 0
    result = 1
    while left <= right:
        mid = (left + right) // 2
        if fits(mid):
            result = mid
            left = mid + 1
        else:
            right = mid - 1
    return result


__all__ = [
    "MLA",
    "KVLayout",
    "LayerSpec",
    "StateCache",
    "attention_block_size_for_hybrid",
    "blocks_per_request",
    "build_layout",
    "estimate_max_model_len",
    "kv_elem_bytes",
    "kv_tokens",
    "layer_specs",
    "max_concurrency",
    "pp_partition",
    "request_bytes",
]
