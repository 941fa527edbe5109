"""What the pod around a vLLM container does to it (VL611, VL612): the environment variables the kubelet
derives from the namespace's Services, and a liveness probe that restarts vLLM before it has started.
The Kubernetes source collects the facts (``k8s_service_env``, ``liveness_probe``, ``startup_probe``:
:mod:`vlint.sources.kube.pod_wiring`)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.checks.environment import WARNS_SINCE
from vlint.core.finding import Fix
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
    from vlint.sources.kube.pod_wiring import ServiceEnv

#: from this release ``get_vllm_port`` names the cause: "VLLM_PORT '…' appears to be a URI. This may be
#: caused by a Kubernetes service discovery issue" ([0.9.0] vllm/envs.py:152-170, vllm PR #18209); before,
#: ``int(os.getenv('VLLM_PORT', '0'))`` ([0.8.5] vllm/envs.py:216-218) raises "invalid literal for int()"
CLEAR_PORT_ERROR_SINCE = V("0.9.0")


@check("deployment_pod.service_links")
def service_links(ctx: CheckContext) -> Iterator[Hit]:
    """VL611: a Service named ``vllm`` (or ``vllm-…``) in the pod's namespace, with service links on."""
    dep = ctx.dep
    assert dep is not None
    fact = dep.invocation.facts.get("k8s_service_env")
    if fact is None or not isinstance(fact.value, tuple):
        return
    for svc in fact.value:
        hit = _service_hit(dep, svc)
        if hit is not None:
            yield hit


def _service_hit(dep: Deployment, svc: ServiceEnv) -> Hit | None:
    env = dep.invocation.env
    reads = dep.spec.env_vars
    unset = dep.invocation.facts.get("shell_unset")
    gone = set(unset.value) if unset is not None and isinstance(unset.value, tuple) else set()
    given = {n: v for n, v in svc.variables if n.startswith("VLLM_") and n not in env and n not in gone}
    if not given:
        return None
    env_from = dep.invocation.facts.get("env_from")
    maybe = f" (unless {env_from.value} in envFrom sets it)" if env_from is not None else ""
    # a Service of a rendered chart/overlay sits in the tool's output, not in a file the user has: no line
    # (and none in the message, which reads the same for the manifest and for the overlay rendering it)
    line = svc.span.line if svc.span.path == dep.invocation.span.path else None
    where = f"Service/{svc.name}"
    # the Service's name is the cause and the fix (a name that does not start with `vllm`): the finding is
    # there when the file has it; the container it breaks is named in the message and is the finding's
    # context (a rendered Service has no line of the user's: the container then)
    anchor = svc.span if line is not None else dep.invocation.span
    inv = dep.invocation
    target = f"{inv.label} (line {inv.span.line})" if line is not None and inv.label else "this container"
    fix = Fix(
        f"set `enableServiceLinks: false` in the pod spec, or rename {where} to a name that does not start with `vllm`"
    )
    data = {
        "service": svc.name,
        "namespace": svc.namespace or "default",
        "service_line": line,
        "container_line": inv.span.line,
        "variables": sorted(given),
        "vllm_version": str(dep.version),
        "vllm_version_reason": dep.version_reason,
    }
    if "VLLM_PORT" in given and "VLLM_PORT" in reads:
        value = given["VLLM_PORT"]
        said = (
            f"\"ValueError: VLLM_PORT '{value}' appears to be a URI. This may be caused by a Kubernetes service "
            'discovery issue"'
            if dep.version >= CLEAR_PORT_ERROR_SINCE
            else f"\"ValueError: invalid literal for int() with base 10: '{value}'\""
        )
        return Hit(
            anchor,
            {**data, "variable": "VLLM_PORT", "value": value, "verdict": "crash"},
            message=(
                f"{where} makes the kubelet set VLLM_PORT={value} in {target} (service links are on): vLLM "
                f"reads VLLM_PORT as the integer port for its internal communication and stops at startup with "
                f"{said}{maybe}"
            ),
            severity="warning" if env_from is not None else "error",
            fix=fix,
        )
    clashes = sorted(n for n in given if n in reads)
    if clashes:
        shown = ", ".join(f"{n}={given[n]}" for n in clashes)
        return Hit(
            anchor,
            {**data, "variable": clashes[0], "value": given[clashes[0]], "verdict": "overrides"},
            message=(
                f"{where} makes the kubelet set {shown} in {target} (service links are on), and vLLM "
                f"{dep.version} reads {'these variables' if len(clashes) > 1 else 'that variable'} as its own setting"
                f"{maybe}: a port read as an integer fails on a tcp:// address"
            ),
            severity="warning",
            fix=fix,
        )
    if dep.version < WARNS_SINCE:
        return None  # vLLM ignores VLLM_* names it does not read
    names = sorted(given)
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    if dep.value("fail_on_environ_validation") is True:
        return Hit(
            anchor,
            {**data, "variable": names[0], "value": given[names[0]], "verdict": "validation fails"},
            message=(
                f"{where} makes the kubelet set {shown} in {target} (service links are on); with "
                '--fail-on-environ-validation vLLM stops at startup with "ValueError: Unknown vLLM environment '
                f'variable detected: …" on the first of them{maybe}'
            ),
            severity="error" if env_from is None else "warning",
            fix=fix,
        )
    return Hit(
        anchor,
        {**data, "variable": names[0], "value": given[names[0]], "verdict": "warnings"},
        message=(
            f"{where} makes the kubelet set {shown} in {target} (service links are on): from {WARNS_SINCE} "
            f"vLLM logs 'Unknown vLLM environment variable detected' for each of the {len(names)} at startup "
            f"(checked against vLLM {dep.version})"
        ),
        severity="info",
        fix=fix,
    )


# -- liveness probe ------------------------------------------------------------------------------
@check("deployment_pod.liveness_budget")
def liveness_budget(ctx: CheckContext) -> Iterator[Hit]:
    """VL612: a liveness probe without a startup probe that gives up before vLLM can have started."""
    dep = ctx.dep
    assert dep is not None
    facts = dep.invocation.facts
    probe = facts.get("liveness_probe")
    if probe is None or probe.span is None or "startup_probe" in facts or not isinstance(probe.value, dict):
        return
    p = probe.value
    if p.get("handler") not in ("httpGet", "tcpSocket", "grpc"):
        return  # an exec probe may check something else than vLLM's port
    initial, period, failures = p.get("initialDelaySeconds"), p.get("periodSeconds"), p.get("failureThreshold")
    if not all(isinstance(v, int) for v in (initial, period, failures)):
        return
    assert isinstance(initial, int) and isinstance(period, int) and isinstance(failures, int)
    if initial < 0 or period <= 0 or failures <= 0:
        return
    if _no_floor(dep) is not None:
        return
    floor = float(ctx.option("engine-seconds"))
    weights = _weights_gib(dep)
    rate = float(ctx.option("load-gib-per-second"))
    load = weights / rate if weights is not None and rate > 0 else 0.0
    need = floor + load
    budget = initial + failures * period
    if budget >= need:
        return
    load_text = f" + {weights:.1f} GiB of weights per GPU at {rate:g} GiB/s ({load:.0f} s)" if load >= 0.5 else ""
    yield Hit(
        probe.span,
        {
            "budget": budget,
            "initial_delay": initial,
            "period": period,
            "failure_threshold": failures,
            "handler": p.get("handler"),
            "floor_seconds": round(need, 1),
            "engine_seconds": floor,
            "weights_gib": round(weights, 2) if weights is not None else None,
            "vllm_version": str(dep.version),
        },
        message=(
            f"the livenessProbe gives vLLM {budget} s (initialDelaySeconds {initial} + failureThreshold {failures} × "
            f"periodSeconds {period}) and there is no startupProbe; vLLM {dep.version} opens its port only once the "
            f"model is loaded, compiled and its CUDA graphs are captured, at least ~{need:.0f} s here ({floor:g} s "
            f"engine start{load_text}), so the kubelet restarts the container before it is up"
        ),
        fix=Fix(
            "add a startupProbe on the same endpoint (httpGet /health, periodSeconds: 10, failureThreshold: 60 gives "
            "vLLM 10 minutes, as KServe's templates do since kserve#5063), or raise the livenessProbe's "
            f"initialDelaySeconds above {need:.0f}"
        ),
    )


def _no_floor(dep: Deployment) -> str | None:
    """Why vlint has no lower bound for this launch's start (None: it compiles and captures CUDA graphs)."""
    from vlint.launch.gpu_fit import not_a_gpu

    platform = not_a_gpu(dep)
    if platform is not None:
        return f"runs on {platform}"  # TPU/Gaudi/CPU starts differ (XLA warm-up, no CUDA graphs)
    if dep.value("engine") != "V1":
        return "V0 engine"
    if dep.value("enforce_eager") is True:
        return "--enforce-eager"
    if dep.is_set("compilation_config") or dep.is_set("optimization_level"):
        return "compilation set by the launch"
    return None


def _weights_gib(dep: Deployment) -> float | None:
    """GiB of weights one GPU loads: the memory model's on the launch's GPU, else the least over the
    reference GPUs (the same fits VL230 reports); None when the model is unknown."""
    if dep.arch is None:
        return None
    from vlint.launch.gpu_fit import gpu_fit

    m = dep.memory
    if m is not None:
        weights = [m.weights_gib] if m.platform == "cuda" else []
    else:
        weights = [f.memory.weights_gib for f in gpu_fit(dep) or [] if f.memory is not None and f.kind == "GPU"]
    weights = [w for w in weights if isinstance(w, int | float) and w > 0]
    return min(weights) if weights else None
