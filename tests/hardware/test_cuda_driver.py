"""NVIDIA's driver tables (vlint/hardware/cuda_driver.py) and the driver facts GPU feature discovery labels give."""

from __future__ import annotations

from vlint.hardware.cuda_driver import MINOR_COMPAT_FLOOR, TOOLKIT_DRIVER, below, lowest_build, show
from vlint.hardware.image_cuda import releases_with_data
from vlint.sources.kube.k8s_common import Facts, LineIndex, driver_facts, node_selection_facts
from vlint.sources.yaml_nodes import compose_all


def test_below_treats_a_prefix_as_any_continuation() -> None:
    assert below((535,), (575, 57, 8))
    assert not below((575,), (575, 57, 8))  # 575.x may be 575.57.08 or later
    assert below((575, 51, 3), (575, 57, 8))
    assert not below((580, 95, 5), (580, 95, 5))
    assert show((575, 57, 8)) == "575.57.08"


def test_every_image_build_has_a_floor_and_its_lowest_build_a_toolkit_driver() -> None:
    for release, build in releases_with_data().items():
        low = lowest_build(str(build["cuda"]))
        assert low is not None, release
        assert low[0] in MINOR_COMPAT_FLOOR, release
        assert f"{low[0]}.{low[1]}.{low[2]}" in TOOLKIT_DRIVER, release


def _facts(text: str) -> dict[str, object]:
    node = compose_all(text, "pod.yaml")[0]
    out = Facts()
    node_selection_facts(out, node, LineIndex("pod.yaml", text))
    return {k: f.value for k, f in out.facts.items() if k.startswith("node_driver")}


def test_selector_and_affinity_bounds() -> None:
    sel = 'nodeSelector:\n  nvidia.com/cuda.driver.major: "535"\n  nvidia.com/cuda.driver.minor: "104"\n'
    assert _facts(sel) == {"node_driver": "535.104"}
    aff = (
        "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms:\n"
        "        - matchExpressions:\n            - key: nvidia.com/cuda.driver.major\n              operator: {op}\n"
        "              values: [{vals}]\n"
    )
    assert _facts(aff.format(op="In", vals='"535", "550"')) == {"node_driver": "550"}
    assert _facts(aff.format(op="Lt", vals='"550"')) == {"node_driver": "549"}
    assert _facts(aff.format(op="Gt", vals='"535"')) == {}
    runtime = 'nodeSelector:\n  nvidia.com/cuda.runtime-version.full: "12.2"\n'
    assert _facts(runtime) == {"node_driver_cuda": "12.2"}
    assert driver_facts is not None
