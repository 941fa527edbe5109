"""vLLM's memory accounting on platforms other than CUDA/ROCm GPUs: the CPU backend, TPUs
(tpu-inference) and Intel Gaudi (vllm-gaudi). On each, the KV cache gets a space the platform decides
in its own way (below); blocks, tokens, concurrency and vLLM's startup check then follow from the
model's KV bytes per token exactly as on a GPU (:mod:`vlint.memory.kv`), in :func:`estimate_fixed`.

**CPU.** The worker does not profile: ``determine_available_memory`` returns
``cache_config.cpu_kvcache_space_bytes`` ([0.19.1] vllm/v1/worker/cpu_worker.py:146-147), which
``CpuPlatform`` sets from ``VLLM_CPU_KVCACHE_SPACE`` (GiB) — per release (:func:`cpu_kv_space`):

* up to 0.9.x the variable defaults to ``0``, which means 4 GiB (``"… is not set, using 4 by
  default"``); a negative value is refused ([0.9.2] vllm/platforms/cpu.py:126-139, envs.py:431-432);
* 0.10.0-0.12.x: unset means 4 GiB, a value means that many GiB ([0.10.2] vllm/platforms/cpu.py:
  111-120, envs.py:492-494);
* from 0.13.0: unset means half the host's memory per NUMA node (``DEFAULT_CPU_MEM_UTILIZATION =
  0.5``, [0.13.0] vllm/platforms/cpu.py:144-164) — which vlint cannot know.

The space is exact, so the verdict has no uncertainty band. The weights live in host memory beside the
KV cache; vlint does not know the host's size, so it reports them, it does not judge them.

**TPU** (tpu-inference, the TPU backend of the ``vllm/vllm-tpu`` images): ``determine_available_memory``
takes ``bytes_limit × gpu_memory_utilization − bytes_in_use`` after the weights are loaded, summed over
the worker's devices, and refuses a non-positive result (vllm-project/tpu-inference@b8692ff0
tpu_inference/worker/tpu_worker.py:511-567): :func:`tpu_kv_space`.

**Intel Gaudi** (vllm-gaudi): the free device memory after the weights and a profile run, times
``gpu_memory_utilization``, minus ``VLLM_GRAPH_RESERVED_MEM`` (0.1; 0 with ``--enforce-eager``) for
HPU graphs, minus one dummy block (vllm-project/vllm-gaudi@091bbadd vllm_gaudi/v1/worker/hpu_worker.py:
319-425); the plugin's own memory calculator takes 2 GiB of the device as unavailable
(``UNAVAILABLE_MEM_ABS``, .cd/server/settings_vllm.csv, .cd/server/vllm_autocalc_rules.py:51-53):
:func:`hpu_kv_space`.

No startup log of either calibrates these here, so their verdicts carry a wide band
(``platform_uncertainty`` in the memory constants): inside it, "too close to call".
"""

from __future__ import annotations

import math

from vlint.core.record import record
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V, Version
from vlint.memory.constants import constants, switches
from vlint.memory.estimate import GIB, MemoryEstimate, StageEstimate, _in_flight_tokens, context_parallel, stage_specs
from vlint.memory.estimate import _serving_dtype as serving_dtype
from vlint.memory.inputs import MemoryInputs
from vlint.memory.kv import (
    build_layout,
    estimate_max_model_len,
    kv_elem_bytes,
    kv_tokens,
    max_concurrency,
    pp_partition,
    request_bytes,
)
from vlint.memory.weights import WeightEstimate, loaded_weights, moe_split
from vlint.resolve.model_arch import dtype_bytes

if TYPE_CHECKING:
    from vlint.hardware.accelerators import Accelerator

#: ``VLLM_CPU_KVCACHE_SPACE`` unset (or 0 up to 0.9.x): 4 GiB, until 0.13.0 made it half the host memory
DEFAULT_SPACE_GIB = 4
HALF_HOST_SINCE = V("0.13.0")
ZERO_MEANS_DEFAULT_UNTIL = V("0.10.0")
#: the CPU platform's block size when --block-size is not given: 128 from 0.11.1 ([0.11.1]
#: vllm/platforms/cpu.py:184-185); before, 128 with intel_extension_for_pytorch and 16 without
#: ([0.11.0] vllm/platforms/cpu.py:147-148) — vlint assumes the official CPU images' 128 there too
BLOCK_SIZE = 128
#: vllm-gaudi's block size ([vllm-gaudi@091bbadd] vllm_gaudi/platform.py:156-166); TPU pages are sized by
#: the Pallas backend per launch: token counts there are rounded to vLLM's own 16
HPU_BLOCK_SIZE = 128
TPU_BLOCK_SIZE = 16
#: the CPU backend runs vLLM's V1 engine by default from 0.9.0 on x86 ([0.9.2] vllm/platforms/cpu.py:
#: 269-281) and only V1 from 0.10.0 ([0.10.2] vllm/platforms/cpu.py:102-103)
V1_SINCE = V("0.9.0")


@record(frozen=True, slots=True)
class KvSpace:
    """The KV cache space a platform gives each device rank at startup."""

    #: ``cpu``, ``tpu`` or ``hpu`` (:attr:`vlint.memory.MemoryEstimate.platform`)
    platform: str
    #: bytes per rank, or None when the platform decides it from something vlint cannot know
    bytes: int | None
    #: where the figure comes from, with the release's or plugin's rule
    why: str
    #: vLLM refuses before any KV check (a negative CPU space, weights over the device memory)
    refusal: str | None = None
    #: what the refusal compares: (needed GiB, available GiB)
    refusal_need: tuple[float, float] | None = None
    #: about 2σ of the space (0: exact)
    uncertainty_gib: float = 0.0
    #: blocks the plugin holds back from the space (vllm-gaudi's dummy block)
    reserved_blocks: int = 0
    #: the device (``TPU-v6e``, ``Gaudi3``, ``CPU``) and its memory in GiB (0 for the CPU)
    device: str = "CPU"
    device_gib: float = 0.0


def cpu_kv_space(version: Version, value: str | None) -> KvSpace:
    """``VLLM_CPU_KVCACHE_SPACE`` as ``version`` reads it (``value`` None: not set)."""
    if value is not None:
        try:
            gib = int(value.strip())
        except ValueError:
            return KvSpace("cpu", None, f"VLLM_CPU_KVCACHE_SPACE={value} is not an integer (vLLM fails reading it)")
        if gib < 0 and version < ZERO_MEANS_DEFAULT_UNTIL:
            return KvSpace(
                "cpu",
                0,
                f"VLLM_CPU_KVCACHE_SPACE={value}",
                f"RuntimeError: Invalid environment variable VLLM_CPU_KVCACHE_SPACE {gib}, expect a positive "
                "integer value.",
            )
        if gib == 0 and version < ZERO_MEANS_DEFAULT_UNTIL:
            why = f"VLLM_CPU_KVCACHE_SPACE=0: {DEFAULT_SPACE_GIB} GiB by default (vLLM {version})"
            return KvSpace("cpu", DEFAULT_SPACE_GIB * 2**30, why)
        return KvSpace("cpu", max(gib, 0) * 2**30, f"VLLM_CPU_KVCACHE_SPACE={gib} GiB")
    if version >= HALF_HOST_SINCE:
        return KvSpace(
            "cpu",
            None,
            f"VLLM_CPU_KVCACHE_SPACE is not set: vLLM {version} takes half the host's memory per NUMA node "
            "(vllm/platforms/cpu.py, DEFAULT_CPU_MEM_UTILIZATION = 0.5)",
        )
    why = f"VLLM_CPU_KVCACHE_SPACE is not set: {DEFAULT_SPACE_GIB} GiB by default (vLLM {version})"
    return KvSpace("cpu", DEFAULT_SPACE_GIB * 2**30, why)


def cpu_engine(version: Version) -> str:
    return "V1" if version >= V1_SINCE else "V0"


def _band(platform: str, weights_gib: float, version: Version) -> float:
    c = constants("platform_uncertainty", version).get(platform, {})
    return 2 * math.hypot(float(c.get("abs_gib", 0.0)), float(c.get("weights_rel", 0.0)) * weights_gib)


def tpu_kv_space(acc: Accelerator, gmu: float, weights_bytes: float, version: Version) -> KvSpace:
    """tpu-inference's ``bytes_limit × gmu − bytes_in_use`` per device, ``bytes_in_use`` being the
    weights it loaded (plus runtime buffers the band covers)."""
    cap = acc.hbm_gib * gmu
    w = weights_bytes / GIB
    band = _band("tpu", w, version)
    why = f"{acc.name}: {acc.hbm_gib:.2f} GiB × gpu_memory_utilization {gmu} − {w:.2f} GiB of weights (tpu-inference)"
    if w >= cap:
        msg = (
            f"ValueError: total_hbm_used_gb={w:.2f}GiB exceeds total_hbm_limit_cap_gb={cap:.2f}GiB by "
            f"{w - cap:.2f}GiB. Please consider increasing --gpu-memory-utilization from {gmu} to a larger value."
        )
        return KvSpace("tpu", 0, why, msg, (w, cap), band, device=acc.name, device_gib=acc.hbm_gib)
    return KvSpace("tpu", int((cap - w) * GIB), why, uncertainty_gib=band, device=acc.name, device_gib=acc.hbm_gib)


#: vllm-gaudi's memory calculator: device memory the runtime keeps (UNAVAILABLE_MEM_ABS, GiB)
HPU_UNAVAILABLE_GIB = 2.0


def hpu_kv_space(
    acc: Accelerator, gmu: float, weights_bytes: float, version: Version, graph_reserved: float
) -> KvSpace:
    """vllm-gaudi: (device − unavailable − weights) × gmu × (1 − VLLM_GRAPH_RESERVED_MEM)."""
    w = weights_bytes / GIB
    free = acc.hbm_gib - HPU_UNAVAILABLE_GIB - w
    band = _band("hpu", w, version)
    why = (
        f"{acc.name}: ({acc.hbm_gib:.0f} − {HPU_UNAVAILABLE_GIB:.0f} GiB unavailable − {w:.2f} GiB of weights) × "
        f"gpu_memory_utilization {gmu} × (1 − VLLM_GRAPH_RESERVED_MEM {graph_reserved:g}) (vllm-gaudi)"
    )
    if free <= 0:
        msg = (
            f"the weights ({w:.2f} GiB per device) do not fit in the {acc.hbm_gib - HPU_UNAVAILABLE_GIB:.2f} GiB "
            f"{acc.name} has beside its runtime: loading them fails with the HPU's out-of-memory error"
        )
        return KvSpace(
            "hpu", 0, why, msg, (w, acc.hbm_gib - HPU_UNAVAILABLE_GIB), band, device=acc.name, device_gib=acc.hbm_gib
        )
    space = free * gmu * (1 - graph_reserved)
    return KvSpace(
        "hpu", int(space * GIB), why, uncertainty_gib=band, reserved_blocks=1, device=acc.name, device_gib=acc.hbm_gib
    )


def device_memory_needed(m: MemoryEstimate, platform: str, gmu: float, graph_reserved: float) -> float:
    """Device memory (GiB) at which the plugin's KV space just holds one request of max_model_len."""
    if platform == "TPU":
        return (m.weights_gib + m.request_kv_gib) / gmu if gmu > 0 else float("inf")
    scale = gmu * (1 - graph_reserved)
    return HPU_UNAVAILABLE_GIB + m.weights_gib + (m.request_kv_gib / scale if scale > 0 else float("inf"))


def rank_weights(inp: MemoryInputs) -> WeightEstimate:
    """Weight bytes on one rank of each pipeline stage (the device, or host memory on the CPU)."""
    return loaded_weights(
        inp.arch,
        serving_dtype=serving_dtype(inp),
        version=inp.version,
        gpu=None,
        tp=max(1, inp.tensor_parallel_size),
        parts=pp_partition(inp.arch.num_layers, max(1, inp.pipeline_parallel_size)),
        quantization=inp.quantization,
        moe=moe_split(inp),
    )


def estimate_fixed(inp: MemoryInputs, space: KvSpace, west: WeightEstimate | None = None) -> MemoryEstimate:
    """What vLLM allocates and decides at startup when the platform gives each rank ``space.bytes``
    of KV cache (``inp.block_size`` and ``inp.engine`` are the platform's)."""
    a, ver, engine = inp.arch, inp.version, inp.engine
    assert space.bytes is not None
    sw = switches(ver)
    pp = max(1, inp.pipeline_parallel_size)
    sd = serving_dtype(inp)
    model_b = dtype_bytes(sd)
    kv_b = kv_elem_bytes(inp.kv_cache_dtype, model_b)
    cpu = space.platform == "cpu"
    notes = [f"{space.device if not cpu else 'CPU backend'}: KV cache space {space.bytes / GIB:.2f} GiB ({space.why})"]
    if cpu and inp.kv_cache_dtype not in (None, "auto") and ver >= V("0.13.0"):
        # "CPU backend doesn't support KV cache quantization fallback to auto." ([0.19.1] vllm/platforms/cpu.py)
        kv_b = model_b
        notes.append("the CPU backend serves an fp8 KV cache as the model dtype")
    parts = pp_partition(a.num_layers, pp)
    west = west or rank_weights(inp)
    hybrid = bool(sw.get("hybrid_kv_manager")) and engine == "V1" and not inp.disable_hybrid_kv_cache_manager
    stages: list[StageEstimate] = []
    layouts = []
    start = 0
    for i, n in enumerate(parts):
        specs = stage_specs(inp, (start, start + n), kv_b, model_b, hybrid, None)
        lay = build_layout(specs, inp.block_size, hybrid_manager=hybrid, context_parallel=context_parallel(inp))
        start += n
        layouts.append(lay)
        avail = space.bytes - space.reserved_blocks * lay.bytes_per_block
        nb = int(avail // lay.bytes_per_block) if lay.bytes_per_block > 0 and avail > 0 else 0
        w = west.per_stage[i] / GIB
        stages.append(StageEstimate(i, n, w, 0.0, 0.0, 0.0, max(avail, 0) / GIB, nb, lay.bytes_per_block))
    tight = min(range(len(stages)), key=lambda j: stages[j].num_blocks if layouts[j].bytes_per_block else 1 << 62)
    lay, num_blocks = layouts[tight], stages[tight].num_blocks
    avail = stages[tight].available_kv_gib * GIB
    inflight = _in_flight_tokens(inp, sw)
    mml = int(inp.max_model_len)
    aware = bool(sw.get("kv_tokens_group_aware"))
    tokens = kv_tokens(lay, num_blocks, mml, inflight, group_aware=aware, engine=engine)
    conc = (tokens / mml if engine == "V0" else max_concurrency(lay, num_blocks, mml, inflight)) if mml else 0.0
    needed = request_bytes(lay, mml, inflight) if lay.bytes_per_block else 0.0
    cap = avail - (lay.bytes_per_block if engine == "V1" and sw.get("null_block_reserved") else 0.0)
    knob = "`VLLM_CPU_KVCACHE_SPACE`" if cpu else "`gpu_memory_utilization`"
    failure = stage = None
    est_len: int | None = None
    need_g, left_g = needed / GIB, cap / GIB
    if space.refusal is not None:
        failure, stage = space.refusal, "weights"
        need_g, left_g = space.refusal_need or (0.0, 0.0)
    elif engine == "V0":
        # CPUWorker._validate_num_cpu_blocks ([0.8.5] vllm/worker/cpu_worker.py:291-309)
        if num_blocks <= 0:
            failure = (
                f"ValueError: No available memory for the cache blocks. Try increasing {knob} when initializing "
                "the engine."
            )
            stage = "no_kv_memory"
        elif mml > num_blocks * lay.block_size:
            est_len = num_blocks * lay.block_size
            failure = (
                f"ValueError: The model's max seq len ({mml}) is larger than the maximum number of tokens that "
                f"can be stored in KV cache ({est_len}). Try increasing {knob} or decreasing "
                "`max_model_len` when initializing the engine."
            )
            stage = "kv_cache_check"
            need_g, left_g = mml * lay.per_token_bytes() / GIB, est_len * lay.per_token_bytes() / GIB
    elif avail <= 0:
        failure = (
            "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
            "when initializing the engine."
        )
        stage = "no_kv_memory"
        need_g, left_g = lay.bytes_per_block / GIB, avail / GIB
    elif needed > cap:
        # check_enough_kv_cache_memory ([0.19.1] vllm/v1/core/kv_cache_utils.py): the same check as on a GPU
        est_len = estimate_max_model_len(lay, cap, mml, inflight)
        est = f"Based on the available memory, the estimated maximum model length is {est_len}. " if est_len > 0 else ""
        failure = (
            f"ValueError: To serve at least one request with the models's max seq len ({mml}), "
            f"({needed / GIB:.2f} GiB KV cache is needed, which is larger than the available KV cache "
            f"memory ({cap / GIB:.2f} GiB). {est}Try increasing `gpu_memory_utilization` or decreasing "
            "`max_model_len` when initializing the engine."
        )
        stage = "kv_cache_check"
    by_kind: dict[str, float] = {}
    for s in layouts[0].specs:
        by_kind[s.kind] = by_kind.get(s.kind, 0.0) + (s.bytes_per_token or 0.0)
    total = space.device_gib if not cpu else space.bytes / GIB
    close = space.uncertainty_gib > 0 and abs(left_g - need_g) <= space.uncertainty_gib
    return MemoryEstimate(
        engine=engine,
        total_gib=total,
        budget_gib=total * (inp.gpu_memory_utilization if not cpu else 1.0),
        weights_gib=stages[0].weights_gib,
        activation_gib=0.0,
        non_torch_gib=0.0,
        cuda_graph_gib=0.0,
        cuda_graph_in_budget=False,
        kv_cache_gib=stages[0].available_kv_gib,
        kv_cache_gib_min=min(s.available_kv_gib for s in stages),
        kv_bytes_per_token=layouts[0].per_token_bytes(),
        kv_bytes_per_token_by_kind=by_kind,
        block_size=lay.block_size,
        num_blocks=num_blocks,
        num_kv_groups=lay.num_groups,
        kv_cache_tokens=max(0, tokens) if failure is None or stage != "weights" else 0,
        max_concurrency=max(0.0, conc),
        request_kv_gib=needed / GIB,
        starts=failure is None,
        failure=failure,
        failure_stage=stage,
        estimated_max_model_len=est_len,
        free_at_start_gib=total,
        headroom_outside_budget_gib=0.0,
        stages=stages,
        assumptions=[
            *west.notes,
            *(["weights live in host memory beside the KV cache (host size not checked)"] if cpu else []),
        ],
        notes=notes,
        risks=[],
        max_gmu_free=1.0,
        need_gib=need_g,
        left_gib=left_g,
        uncertainty_gib=space.uncertainty_gib,
        too_close_to_call=close,
        platform=space.platform,
        device=space.device,
    )
