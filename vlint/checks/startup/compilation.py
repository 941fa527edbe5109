"""CompilationConfig: compilation / optimization level (VL039)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from vlint.checks import CheckContext, Hit, check
from vlint.core.typing_names import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
from vlint.checks.startup.common import _json, _refuse, _since, _user

# -- compilation / optimization level (VL039) ----------------------------------------------------------

#: ``CompilationConfig.mode`` and ``--optimization-level`` are enums 0-3 validated by pydantic from 0.13.0
#: ([0.13.0] vllm/config/compilation.py CompilationMode, vllm/config/vllm.py OptimizationLevel)
LEVELS_VALIDATED_SINCE = "0.13.0"
#: ``CompilationConfig.validate_mode_before`` takes a mode's name in any case (``value.upper()`` in
#: ``CompilationMode.__members__``; [0.11.2] vllm/config/compilation.py:561-579, [0.33.0] :853-870)
MODE_NAMES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")
#: ``--compilation-config 3`` (a bare number after the long option or -cc; -O3 / -O 3 are rewritten by the
#: parser first): 0.6-0.8 took it as the level (``CompilationConfig.from_cli``: ``if cli_value in ["0", "1",
#: "2", "3"]``, [0.8.5.post1] vllm/config.py:3529-3532); from 0.9 the value is validated as JSON for the
#: dataclass, and a number is "Input should be an object" ([0.9.2] vllm/config.py:4165-4169; vLLM's oracle
#: data: refused in 0.10.2, 0.12.0, 0.13.0, 0.17.1, 0.22.1, 0.27.1, 0.33.0)
BARE_NUMBER_REFUSED_SINCE = "0.9.2"
#: ``CUDAGraphMode[value.upper()]`` ([0.10.2] vllm/config/compilation.py:405, [0.33.0] :873-878): any other
#: name is a KeyError (the members: [0.10.2] :40-44)
CUDAGRAPH_MODE_SINCE = "0.10.2"
CUDAGRAPH_MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


def _refusal(dep: Deployment, dest: str, data: dict[str, Any], message: str) -> Hit:
    """vLLM's refusal of the launch's ``dest`` setting, at where it is written."""
    return Hit(dep.span_of(dest), data, message=_refuse(message))


@check("startup.compilation_level_invalid")
def compilation_level_invalid(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    raw = _user(dep, "compilation_config")
    s = dep.setting("compilation_config")
    long_form = s is not None and s.option in ("--compilation-config", "-cc")  # -O3 / -O 3 are the shorthand
    bare = isinstance(raw, int | float) and not isinstance(raw, bool)
    if _since(dep, BARE_NUMBER_REFUSED_SINCE) and bare and long_form:
        yield _refusal(
            dep,
            "compilation_config",
            {"value": raw},
            f"argument --compilation-config/-cc: 1 validation error for CompilationConfig: Input should be an "
            f"object (got {raw!r}; -O{raw} is the shorthand for a level)",
        )
        return
    cc = _json(dep, "compilation_config")
    level = cc.get("level") if cc is not None else None
    if isinstance(level, str) and not level.strip().lstrip("-").isdigit():
        # CompilationConfig.level is an int: a name is refused in every release that has the key ("Input
        # should be a valid integer", 0.9.2; "invalid from_cli value", 0.6.6-0.8.5; vLLM's oracle data)
        yield _refusal(
            dep,
            "compilation_config",
            {"level": level},
            f"argument --compilation-config: 1 validation error for CompilationConfig level: Input should be a "
            f"valid integer (got {level!r}; the mode names belong to 'mode' from 0.11)",
        )
        return
    cg = cc.get("cudagraph_mode") if cc is not None else None
    if _since(dep, CUDAGRAPH_MODE_SINCE) and isinstance(cg, str) and cg.upper() not in CUDAGRAPH_MODES:
        yield _refusal(
            dep,
            "compilation_config",
            {"cudagraph_mode": cg},
            f"KeyError: '{cg.upper()}' (cudagraph_mode {cg!r} is no CUDAGraphMode: {', '.join(CUDAGRAPH_MODES)})",
        )
        return
    if not _since(dep, LEVELS_VALIDATED_SINCE):
        return
    mode = cc.get("mode") if cc is not None else None
    if isinstance(mode, str) and mode.upper() in MODE_NAMES:
        pass  # a CompilationMode name, any case: the "before" validator maps it to the enum
    elif isinstance(mode, str):
        yield _refusal(
            dep,
            "compilation_config",
            {"mode": mode},
            f"1 validation error for CompilationConfig mode: Invalid compilation mode: {mode}. Valid modes "
            f"are: {', '.join(MODE_NAMES)}",
        )
    elif mode is not None and (isinstance(mode, bool) or mode not in (0, 1, 2, 3)):
        yield _refusal(
            dep,
            "compilation_config",
            {"mode": mode},
            f"argument --compilation-config/-cc: 1 validation error for CompilationConfig mode: "
            f"Input should be 0, 1, 2 or 3 (got {mode!r})",
        )
    level = _user(dep, "optimization_level")
    if level is not None and str(level).strip() not in ("0", "1", "2", "3"):
        s = dep.setting("optimization_level")
        written = s.option if s is not None else "--optimization-level"
        yield _refusal(
            dep,
            "optimization_level",
            {"optimization_level": level},
            f"1 validation error for VllmConfig optimization_level: Input should be 0, 1, 2 or 3 "
            f"(got {str(level)!r} from {written})",
        )


# -- CUDA-graph capture sizes (VL042) ---------------------------------------------------------------------

#: VllmConfig's capture-size checks ([0.11.2] vllm/config/vllm.py, [0.22.1] vllm/config/vllm.py:1663-1671,
#: 1727-1735): with CUDA graphs on, the maximum must be >= 1, the list not empty, and a maximum and a list
#: both given must agree
CAPTURE_SIZES_CHECKED_SINCE = "0.11.1"


def _graphs_on(dep: Deployment, cc: Mapping[str, Any] | None) -> bool:
    if dep.value("enforce_eager") is True:
        return False
    if cc is None:
        return True
    mode = cc.get("mode")
    if isinstance(mode, str):
        mode = {"NONE": 0, "STOCK_TORCH_COMPILE": 1, "DYNAMO_TRACE_ONCE": 2, "VLLM_COMPILE": 3}.get(mode.upper())
    cg = cc.get("cudagraph_mode")
    return (mode is None or mode == 3) and not (isinstance(cg, str) and cg.upper() == "NONE")


@check("startup.cudagraph_sizes_invalid")
def cudagraph_sizes_invalid(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if not _since(dep, CAPTURE_SIZES_CHECKED_SINCE):
        return
    cc = _json(dep, "compilation_config")
    if not _graphs_on(dep, cc):
        return
    umax, where_max = _user(dep, "max_cudagraph_capture_size"), "max_cudagraph_capture_size"
    if umax is None and cc is not None:
        umax = cc.get("max_cudagraph_capture_size")
        where_max = "compilation_config"
    sizes, where_sizes = _user(dep, "cudagraph_capture_sizes"), "cudagraph_capture_sizes"
    if sizes is None and cc is not None:
        sizes = cc.get("cudagraph_capture_sizes")
        where_sizes = "compilation_config"
    is_int = isinstance(umax, int) and not isinstance(umax, bool)
    if is_int and umax < 1:
        yield _refusal(
            dep,
            where_max,
            {"max_cudagraph_capture_size": umax},
            f"max_cudagraph_capture_size {umax}: Assertion failed, Maximum cudagraph size should be greater "
            "than or equal to 1 when using cuda graph.",
        )
        return
    if isinstance(sizes, list | tuple) and not sizes:
        yield _refusal(
            dep,
            where_sizes,
            {"cudagraph_capture_sizes": []},
            "Assertion failed, cudagraph_capture_sizes should contain at least one element when using cuda graph.",
        )
        return
    if is_int and isinstance(sizes, list | tuple) and all(isinstance(x, int) for x in sizes) and max(sizes) != umax:
        yield _refusal(
            dep,
            where_max,
            {"max_cudagraph_capture_size": umax, "cudagraph_capture_sizes": list(sizes)},
            f"customized max_cudagraph_capture_size(={umax}) should be consistent with the max value of "
            f"cudagraph_capture_sizes(={max(sizes)})",
        )
