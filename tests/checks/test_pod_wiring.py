"""VL611 (Service variables the kubelet sets) and VL612 (a liveness probe that restarts vLLM before it is
up): the cases the rule files do not show."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from vlint.checks.deployment_pod import _service_hit
from vlint.commands.rule_pages import run_case
from vlint.core.finding import Finding
from vlint.core.rule import RuleCase
from vlint.core.span import Span
from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, lint_paths
from vlint.sources.kube.k8s_common import LineIndex, compose_documents
from vlint.sources.kube.pod_wiring import ServiceEnv, read_service, same_namespace

CATALOG = load_catalog()


def _findings(code: str, text: str) -> list[Finding]:
    rule = next(r for r in CATALOG.rules if r.code == code)
    case = RuleCase("t", "bad", "deploy.yaml", textwrap.dedent(text), ())
    return [f for f in run_case(case, rule) if f.code == code]


def _service(text: str) -> tuple[str, ...] | None:
    text = textwrap.dedent(text)
    node = compose_documents(text, "s.yaml").nodes[0]
    svc = read_service(node, LineIndex("s.yaml", text))  # type: ignore[arg-type]
    return None if svc is None else tuple(n for n, _ in svc.variables)


SERVICE = """\
apiVersion: v1
kind: Service
metadata: {{name: {name}{ns}}}
spec:
  selector: {{app: vllm}}
  ports: [{{port: 8000}}]
"""


def _deploy(
    *,
    service: str = "vllm",
    service_ns: str = "",
    ns: str = "",
    image: str = "vllm/vllm-openai:v0.11.0",
    pod: str = "",
    container: str = "",
    args: str = '"--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"',
) -> str:
    svc = SERVICE.format(name=service, ns=f", namespace: {service_ns}" if service_ns else "")
    meta = f"{{name: llm, namespace: {ns}}}" if ns else "{name: llm}"
    return (
        svc
        + "---\n"
        + textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {meta}
        spec:
          template:
            spec:
              {pod or "hostIPC: false"}
              containers:
                - name: vllm
                  image: {image}
                  args: [{args}]
                  resources: {{limits: {{nvidia.com/gpu: 1}}}}
                  {container or "ports: [{containerPort: 8000}]"}
        """)
    )


def test_service_variables_follow_the_kubelet() -> None:
    names = _service("""\
        apiVersion: v1
        kind: Service
        metadata: {name: vllm-dp-master}
        spec:
          ports: [{name: rpc, port: 13345}, {port: 8000, protocol: UDP}]
        """)
    assert names == (
        "VLLM_DP_MASTER_SERVICE_HOST",
        "VLLM_DP_MASTER_SERVICE_PORT",
        "VLLM_DP_MASTER_SERVICE_PORT_RPC",
        "VLLM_DP_MASTER_PORT",
        "VLLM_DP_MASTER_PORT_13345_TCP",
        "VLLM_DP_MASTER_PORT_13345_TCP_PROTO",
        "VLLM_DP_MASTER_PORT_13345_TCP_PORT",
        "VLLM_DP_MASTER_PORT_13345_TCP_ADDR",
        "VLLM_DP_MASTER_PORT_8000_UDP",
        "VLLM_DP_MASTER_PORT_8000_UDP_PROTO",
        "VLLM_DP_MASTER_PORT_8000_UDP_PORT",
        "VLLM_DP_MASTER_PORT_8000_UDP_ADDR",
    )


@pytest.mark.parametrize(
    "spec",
    ["clusterIP: None\n  ports: [{port: 8000}]", "type: ExternalName\n  externalName: a.example.com", "ports: []"],
)
def test_headless_external_and_portless_services_give_no_variables(spec: str) -> None:
    assert _service(f"apiVersion: v1\nkind: Service\nmetadata: {{name: vllm}}\nspec:\n  {spec}\n") is None


def test_namespaces_unset_count_as_default() -> None:
    assert same_namespace(None, None)
    assert same_namespace(None, "default")
    assert same_namespace("ml", "ml")
    assert not same_namespace("ml", None)
    assert not same_namespace("ml", "serving")


def test_vllm_service_crashes_the_launch() -> None:
    (f,) = _findings("VL611", _deploy())
    assert f.severity == "error"
    assert "appears to be a URI" in f.message
    assert f.data["variable"] == "VLLM_PORT" and f.data["value"] == "tcp://<cluster IP>:8000"


def test_the_finding_is_at_the_services_name_and_names_the_container() -> None:
    """The Service's name is the cause and the fix; the container it breaks is in the message and is the
    finding's context (the related location text, JSON and SARIF carry)."""
    (f,) = _findings("VL611", _deploy())
    assert (f.span.line, f.span.column) == (3, 18)  # metadata: {name: vllm}
    assert f.context.startswith("container vllm in Deployment/llm at line ")
    assert f"in container vllm in Deployment/llm (line {f.data['container_line']})" in f.message
    assert f.data["service_line"] == 3 and f.data["container_line"] > 3


def test_one_service_breaking_two_workloads_gives_a_finding_for_each() -> None:
    text = _deploy() + "---\n" + _deploy().split("---\n", 1)[1].replace("{name: llm}", "{name: llm2}")
    found = _findings("VL611", text)
    assert [f.span.line for f in found] == [3, 3]
    assert {f.context.split(" at line")[0] for f in found} == {
        "container vllm in Deployment/llm",
        "container vllm in Deployment/llm2",
    }


def test_a_service_of_another_file_leaves_the_finding_at_the_container(tmp_path: Path) -> None:
    """A Service the file does not hold (a rendered chart's): no line of the user's to point at."""
    (tmp_path / "deploy.yaml").write_text(_deploy().split("---\n", 1)[1])
    report = lint_paths([tmp_path / "deploy.yaml"], Engine(CATALOG), LintOptions(root=tmp_path))
    (dep,) = report.files[0].deployments
    svc = ServiceEnv("vllm", None, Span("rendered/chart.yaml", 3, 17), (("VLLM_PORT", "tcp://<cluster IP>:8000"),))
    hit = _service_hit(dep, svc)
    assert hit is not None and hit.span == dep.invocation.span
    assert "in this container" in (hit.message or "") and hit.data["service_line"] is None


def test_before_0_9_the_error_is_the_int_conversion() -> None:
    (f,) = _findings("VL611", _deploy(image="vllm/vllm-openai:v0.8.5"))
    assert f.severity == "error"
    assert "invalid literal for int() with base 10: 'tcp://<cluster IP>:8000'" in f.message


@pytest.mark.parametrize(
    "kw",
    [
        {"pod": "enableServiceLinks: false"},
        {"service_ns": "other"},
        {"ns": "ml", "service_ns": "serving"},
        {"service": "llm"},
        {"service": "vllmsvc"},
        {"container": 'env: [{name: VLLM_PORT, value: "29500"}]'},
        # a vllm-… Service whose variables vLLM does not read: vLLM before 0.17.0 ignores them
        {"service": "vllm-leader"},
    ],
)
def test_service_links_that_do_not_reach_vllm(kw: dict[str, str]) -> None:
    assert _findings("VL611", _deploy(**kw)) == []


def test_a_script_that_unsets_vllm_port() -> None:
    args = '"-c", "unset VLLM_PORT && exec vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192"'
    text = _deploy(args=args).replace("args: [", 'command: ["sh", ').replace("]]", "]")
    assert "command:" in text
    assert _findings("VL611", text) == []
    assert len(_findings("VL611", text.replace("unset VLLM_PORT && ", ""))) == 1


def test_same_explicit_namespace_counts() -> None:
    (f,) = _findings("VL611", _deploy(ns="ml", service_ns="ml"))
    assert f.severity == "error"


def test_env_from_might_set_vllm_port() -> None:
    (f,) = _findings("VL611", _deploy(container="envFrom: [{configMapRef: {name: settings}}]"))
    assert f.severity == "warning"
    assert "configmap/settings" in f.message


def test_a_service_that_sets_another_vllm_variable() -> None:
    (f,) = _findings("VL611", _deploy(service="vllm-dp-master"))
    assert f.severity == "warning"
    assert "VLLM_DP_MASTER_PORT=tcp://<cluster IP>:8000" in f.message


def test_unknown_service_variables_from_0_17_are_info() -> None:
    (f,) = _findings("VL611", _deploy(service="vllm-leader", image="vllm/vllm-openai:v0.17.0"))
    assert f.severity == "info"
    assert "Unknown vLLM environment variable detected" in f.message
    assert f.data["verdict"] == "warnings"


def test_vllm_port_set_by_the_container_leaves_only_the_other_variables() -> None:
    text = _deploy(image="vllm/vllm-openai:v0.17.0", container='env: [{name: VLLM_PORT, value: "29500"}]')
    (f,) = _findings("VL611", text)
    assert f.severity == "info"
    assert "VLLM_PORT" not in f.data["variables"]


# -- VL612 --------------------------------------------------------------------------------------
PROBE = "livenessProbe: {{{handler}, initialDelaySeconds: {initial}, periodSeconds: {period}}}"


def _probe(handler: str = "httpGet: {path: /health, port: 8000}", initial: object = 0, period: object = 10) -> str:
    return PROBE.format(handler=handler, initial=initial, period=period)


def test_default_liveness_budget_is_too_short() -> None:
    (f,) = _findings("VL612", _deploy(service="llm", container=_probe()))
    assert f.severity == "warning"
    assert f.data["budget"] == 30
    assert f.data["floor_seconds"] > 30  # 30 s engine start + the 7B model's weights


@pytest.mark.parametrize(
    "kw",
    [
        {"container": _probe(handler="exec: {command: [cat, /tmp/ok]}")},
        {"container": _probe(initial=120)},
        {"container": _probe(period='"{{ .Values.period }}"')},
        {"container": "readinessProbe: {httpGet: {path: /health, port: 8000}}"},
        {
            "container": _probe(),
            "args": '"--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", "--enforce-eager"',
        },
        {"container": _probe(), "image": "vllm/vllm-openai:v0.7.3"},  # V0: no compile step to count on
        {"container": _probe(), "image": "vllm/vllm-tpu:v0.11.0"},  # TPU: no CUDA graphs
    ],
)
def test_liveness_probes_vlint_does_not_report(kw: dict[str, str]) -> None:
    assert _findings("VL612", _deploy(service="llm", **kw)) == []
