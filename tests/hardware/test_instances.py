"""Cloud instance types → (GPU, count) from the generated table (vlint/data/instances.json), and
how a launch gets them: Kubernetes instance-type node labels, SkyPilot ``resources.instance_type``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vlint.core.paths import data_dir
from vlint.hardware.gpus import all_gpus, lookup_gpu
from vlint.hardware.instances import instance, lookup_instance
from vlint.launch.resolver import ResolveOptions, resolve
from vlint.run.lint import LintOptions, Reader
from vlint.sources import skypilot
from vlint.sources.kube import kubernetes

TABLE = json.loads((data_dir() / "instances.json").read_text())


@pytest.mark.parametrize(
    ("name", "gpu", "count"),
    [
        ("g6.24xlarge", "L4", 4),
        ("G6.24XLARGE", "L4", 4),  # instance names ignore case
        ("g5.12xlarge", "A10G", 4),
        ("g6e.48xlarge", "L40S", 8),
        ("g4dn.xlarge", "T4", 1),
        ("p4d.24xlarge", "A100-SXM4-40GB", 8),  # GpuInfo: 40960 MiB
        ("p4de.24xlarge", "A100-SXM4-80GB", 8),
        ("p5.48xlarge", "H100-SXM-80GB", 8),  # GpuInfo: 81920 MiB
        ("p5en.48xlarge", "H200-141GB", 8),
        ("p3dn.24xlarge", "V100-32GB", 8),
        ("Standard_NC24ads_A100_v4", "A100-SXM4-80GB", 1),  # one 80 GB card, not an A100-40GB
        ("standard_nc96ads_a100_v4", "A100-SXM4-80GB", 4),
        ("Standard_ND96asr_v4", "A100-SXM4-40GB", 8),  # "A100" beside "A100-80GB" in the vocabulary
        ("Standard_NC64as_T4_v3", "T4", 4),
        ("Standard_ND96isr_MI300X_v5", "MI300X", 8),
    ],
)
def test_lookup_fires(name: str, gpu: str, count: int) -> None:
    got = lookup_instance(name)
    assert got is not None
    assert (got[0].name, got[1]) == (gpu, count)


@pytest.mark.parametrize(
    "name",
    [
        None,
        "",
        "g7.mega",  # not an instance type of the table
        "m5.xlarge",  # CPU instances are not in the table
        "Standard_D4s_v3",
        "n1-standard-8",
        "a2-highgpu-1g",  # GCP's catalog lists no accelerator for it: nothing is inferred from the name
        "g5g.xlarge",  # T4g: not a GPU of vlint's catalog
        "p2.xlarge",  # K80
        "Standard_NV6ads_A10_v5",  # a sixth of an A10 (fractional vGPU)
        "Standard_NC40ads_H100_v5",  # "H100" without memory: 80 GB SXM or 94 GB NVL, not stated
        "L4",  # a GPU, not an instance type
    ],
)
def test_lookup_does_not_fire(name: str | None) -> None:
    assert lookup_instance(name) is None


def test_instance_types_left_the_gpu_catalog() -> None:
    """One place: an instance type the table lists is not also a GPU alias."""
    aliases = {a.lower() for g in all_gpus() for a in g.aliases}
    assert not aliases & set(TABLE["instances"])
    assert lookup_gpu("g5.xlarge") is None
    assert instance("g5.xlarge") is not None


def test_table_is_current_with_its_sources() -> None:
    """Structure the generator writes (tools/gen_instances.py): sorted lower-case keys, a GPU of
    gpus.json, a whole count, a source naming repository@commit and the CSV path, the per-cloud
    counts and the left-out tally; every entry's source is one of the table's sources."""
    inst = TABLE["instances"]
    assert list(inst) == sorted(inst)
    names = {g.name for g in all_gpus()}
    cite = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40} (catalogs/v5/)?(aws|azure|gcp)/vms\.csv$")
    sources = set(TABLE["sources"].values())
    for key, rec in inst.items():
        assert key == rec["name"].lower()
        assert rec["gpu"] in names
        assert isinstance(rec["count"], int) and rec["count"] >= 1
        assert cite.match(rec["source"]), rec["source"]
        assert rec["source"] in sources
        assert rec["accelerator"]
    per_cloud = {c: sum(1 for r in inst.values() if r["source"] == s) for c, s in TABLE["sources"].items()}
    assert per_cloud == TABLE["counts"]
    assert set(TABLE["left_out"]) == set(TABLE["sources"])
    assert len((data_dir() / "instances.json").read_bytes()) < 64_000


def _read(tmp_path: Path, text: str, name: str):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    reader = Reader(LintOptions(root=tmp_path))
    return reader, reader.read(path)


def k8s(tmp_path: Path, selector: str, limits: str = "") -> object:
    reader, src = _read(
        tmp_path,
        f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: vllm}}
        spec:
          template:
            spec:
              {selector}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.10.2
                  args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "4"]
                  {limits}
        """,
        "deploy.yaml",
    )
    (inv,) = kubernetes.extract(src, reader.read).invocations
    return resolve(inv, ResolveOptions())


def test_kubernetes_instance_type_gives_gpu_and_the_request_the_count(tmp_path: Path) -> None:
    dep = k8s(
        tmp_path,
        "nodeSelector: {node.kubernetes.io/instance-type: g6.24xlarge}",
        "resources: {limits: {nvidia.com/gpu: 4}}",
    )
    assert dep.gpu is not None and dep.gpu.name == "L4"
    assert dep.gpu_count == 4
    assert "4 × L4 (SkyPilot catalog skypilot-org/skypilot-catalog@" in dep.gpu_reason
    assert dep.invocation.facts["instance_gpu_count"].value == 4


def test_kubernetes_request_wins_over_the_instance_count(tmp_path: Path) -> None:
    dep = k8s(
        tmp_path,
        "nodeSelector: {node.kubernetes.io/instance-type: g6.24xlarge}",
        "resources: {limits: {nvidia.com/gpu: 2}}",
    )
    assert dep.gpu is not None and dep.gpu.name == "L4"
    assert dep.gpu_count == 2
    assert "the instance type has 4 GPU(s), the request (2) is used" in dep.gpu_reason


def test_kubernetes_without_a_request_assumes_no_count(tmp_path: Path) -> None:
    dep = k8s(tmp_path, "nodeSelector: {node.kubernetes.io/instance-type: g6.24xlarge}")
    assert dep.gpu is not None and dep.gpu.name == "L4"
    assert dep.gpu_count != 4  # the node has 4; the pod asks for none: nothing is guessed
    assert "no GPU count is assumed" in dep.gpu_reason


def test_karpenter_affinity_same_gpu_different_counts(tmp_path: Path) -> None:
    dep = k8s(
        tmp_path,
        """affinity:
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                      - matchExpressions:
                          - {key: karpenter.k8s.aws/instance-type, operator: In, values: [g6.xlarge, g6.12xlarge]}""",
        "resources: {limits: {nvidia.com/gpu: 1}}",
    )
    assert dep.gpu is not None and dep.gpu.name == "L4"
    assert "instance_gpu_count" not in dep.invocation.facts  # 1 or 4: not one count
    assert dep.gpu_count == 1


@pytest.mark.parametrize("value", ["m5.large", "Standard_NC80adis_H100_v5", "a2-highgpu-1g"])
def test_kubernetes_unknown_instance_is_a_raw_label(tmp_path: Path, value: str) -> None:
    dep = k8s(
        tmp_path,
        f"nodeSelector: {{node.kubernetes.io/instance-type: {value}}}",
        "resources: {limits: {nvidia.com/gpu: 1}}",
    )
    facts = dep.invocation.facts
    assert facts["gpu_label"].value == value
    assert "gpu_type" not in facts and "instance_type" not in facts
    assert dep.gpu is None  # the GPU name inside an instance name is not read loosely


def test_karpenter_instance_family_gives_the_gpu_every_size_carries(tmp_path: Path) -> None:
    dep = k8s(
        tmp_path,
        "nodeSelector: {karpenter.k8s.aws/instance-family: g4dn}",
        "resources: {limits: {nvidia.com/gpu: 1}}",
    )
    assert dep.gpu is not None and dep.gpu.name == "T4" and dep.gpu_count == 1
    fact = dep.invocation.facts["gpu_type"]
    assert "every g4dn instance type (g4dn." in fact.detail and "carries T4 (SkyPilot catalog" in fact.detail
    assert "instance_gpu_count" not in dep.invocation.facts  # 1 to 8 across the sizes: no count said


@pytest.mark.parametrize("family", ["m5", "g4", "g4dn.xlarge", ""])
def test_karpenter_instance_family_not_one_gpu_states_no_gpu(tmp_path: Path, family: str) -> None:
    """A family the table does not list (no GPU, a prefix of another family) or an instance type in
    the family label: no GPU is read from it."""
    dep = k8s(
        tmp_path,
        f"nodeSelector: {{karpenter.k8s.aws/instance-family: '{family}'}}",
        "resources: {limits: {nvidia.com/gpu: 1}}",
    )
    assert "gpu_type" not in dep.invocation.facts and dep.gpu is None


def sky(tmp_path: Path, resources: str):
    reader, src = _read(
        tmp_path,
        f"""\
        resources: {resources}
        run: |
          vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4
        """,
        "task.yaml",
    )
    (inv,) = skypilot.extract(src, reader.read).invocations
    return resolve(inv, ResolveOptions())


def test_skypilot_instance_type_gives_gpu_and_count(tmp_path: Path) -> None:
    dep = sky(tmp_path, "{instance_type: g6.24xlarge}")
    assert dep.gpu is not None and dep.gpu.name == "L4"
    assert dep.gpu_count == 4
    assert dep.invocation.env["SKYPILOT_NUM_GPUS_PER_NODE"].text == "4"


def test_skypilot_accelerators_beside_the_instance_type_win(tmp_path: Path) -> None:
    dep = sky(tmp_path, "{instance_type: g6.24xlarge, accelerators: 'L4:2'}")
    assert dep.gpu is not None and dep.gpu.name == "L4"
    assert dep.gpu_count == 2


def test_skypilot_unknown_instance_type_states_nothing(tmp_path: Path) -> None:
    dep = sky(tmp_path, "{instance_type: m5.xlarge}")
    assert "gpu_count" not in dep.invocation.facts and "gpu_type" not in dep.invocation.facts


def test_table_is_read_only_when_an_instance_type_is_met(tmp_path: Path) -> None:
    (tmp_path / "serve.sh").write_text("vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.9\n")
    code = (
        "import sys; from vlint.cli import main\n"
        "try: main([sys.argv[1], '--isolated', '--quiet'])\n"
        "except SystemExit: pass\n"
        "assert 'vlint.hardware.instances' not in sys.modules, 'instance table loaded'\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "serve.sh")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


KAITO = (Path(__file__).parents[1] / "sources" / "kaito_workspace.yaml").read_text()


def kaito(tmp_path: Path, text: str):
    reader, src = _read(tmp_path, text, "kaito.yaml")
    (inv,) = kubernetes.extract(src, reader.read).invocations
    return inv


def test_kaito_workspace_instance_type_is_one_a100_80gb(tmp_path: Path) -> None:
    inv = kaito(tmp_path, KAITO)
    assert inv.facts["gpu_type"].value == "A100-SXM4-80GB"  # Standard_NC24ads_A100_v4: 1 × A100-80GB
    assert inv.facts["instance_gpu_count"].value == 1
    assert "Workspace resource.instanceType=Standard_NC24ads_A100_v4" in inv.facts["gpu_type"].detail
    dep = resolve(inv, ResolveOptions())
    assert dep.gpu is not None and dep.gpu.total_gib == pytest.approx(79.15)


def test_kaito_placeholder_instance_type_states_nothing(tmp_path: Path) -> None:
    inv = kaito(tmp_path, KAITO.replace('"Standard_NC24ads_A100_v4"', '"<your-vm-sku>"'))
    assert not {"gpu_type", "gpu_label", "instance_gpu_count"} & set(inv.facts)
