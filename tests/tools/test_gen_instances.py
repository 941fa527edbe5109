"""tools/gen_instances.py on hand-made rows in SkyPilot's vms.csv format: what it keeps, what it
leaves out and why (the rows mirror real ones: AWS states GpuInfo memory, Azure does not, GCP lists
accelerators without an instance type)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import gen_instances as gen  # noqa: E402


def info(name: str, count: int, mib: int) -> str:
    """A ``GpuInfo`` cell as SkyPilot's AWS fetcher writes it."""
    gpus = f"[{{'Name': '{name}', 'Manufacturer': 'NVIDIA', 'Count': {count}, 'MemoryInfo': {{'SizeInMiB': {mib}}}}}]"
    return '"' + f"{{'Gpus': {gpus}, 'TotalGpuMemoryInMiB': {count * mib}}}" + '"'


AWS = "\n".join(
    [
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone",
        f"g6.24xlarge,L4,4.0,96.0,384.0,{info('L4', 4, 22888)},9.68103,2.779400,ap-northeast-1,apne1-az1",
        f"g6.24xlarge,L4,4.0,96.0,384.0,{info('L4', 4, 22888)},6.6752,3.205700,us-east-1,use1-az1",
        f"p4d.24xlarge,A100,8.0,96.0,1152.0,{info('A100', 8, 40960)},44.92215,13.481500,ap-northeast-1,apne1-az4",
        f"p9.fake,A100,8.0,96.0,1152.0,{info('A100', 8, 81920)},1,1,us-east-1,use1-az1",
        f"g5g.xlarge,T4g,1.0,4.0,8.0,{info('T4g', 1, 16384)},0.5669,0.165000,ap-northeast-1,apne1-az1",
        "g9.mixed,L4,1.0,4.0,16.0,,1,1,us-east-1,use1-az1",
        "g9.mixed,L4,2.0,4.0,16.0,,1,1,us-west-2,usw2-az1",
        "m5.xlarge,,,4.0,16.0,,0.192,0.05,us-east-1,use1-az1",
    ]
)

AZURE = """\
InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Generation
Standard_NC24ads_A100_v4,A100-80GB,1,24,220,A100-80GB,3.67,0.5,eastus,V2
Standard_ND96asr_v4,A100,8,96,900,A100,27.2,2.7,eastus,V1
Standard_NC40ads_H100_v5,H100,1,40,320,H100,6.98,1.2,eastus,V2
Standard_NV6ads_A10_v5,A10,0.167,6,55,A10,0.45,0.1,eastus,V2
Standard_D4s_v3,,,4,16,,0.19,0.02,eastus,V1
"""

GCP = """\
InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice
a2-highgpu-1g,12.0,85.0,,,,us-central1,us-central1-a,0.73948,0.29576
,,,A100,1,"{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]}",us-central1,us-central1-a,2.93,1.1
"""


def built() -> dict:
    return gen.build(
        {
            "aws": (gen.read_rows(AWS), "o/r@" + "a" * 40 + " catalogs/v5/aws/vms.csv"),
            "azure": (gen.read_rows(AZURE), "o/r@" + "a" * 40 + " catalogs/v5/azure/vms.csv"),
            "gcp": (gen.read_rows(GCP), "o/r@" + "a" * 40 + " catalogs/v5/gcp/vms.csv"),
        }
    )


def test_keeps_gpu_instances_deduplicated_across_regions() -> None:
    inst = built()["instances"]
    assert inst["g6.24xlarge"] == {
        "name": "g6.24xlarge",
        "gpu": "L4",
        "count": 4,
        "accelerator": "L4",
        "source": "o/r@" + "a" * 40 + " catalogs/v5/aws/vms.csv",
    }
    assert inst["p4d.24xlarge"]["gpu"] == "A100-SXM4-40GB"
    assert inst["standard_nc24ads_a100_v4"]["gpu"] == "A100-SXM4-80GB"
    assert inst["standard_nc24ads_a100_v4"]["count"] == 1
    # a bare "A100" is the 40 GB card where the vocabulary names "A100-80GB" apart
    assert inst["standard_nd96asr_v4"]["gpu"] == "A100-SXM4-40GB"
    assert "m5.xlarge" not in inst and "standard_d4s_v3" not in inst  # no accelerator


def test_leaves_out_what_the_catalog_does_not_state_and_counts_it() -> None:
    data = built()
    inst, left = data["instances"], data["left_out"]
    assert left["aws"] == {"conflicting": 1, "memory_disagrees: A100": 1, "not_in_catalog: T4g": 1}
    assert left["azure"] == {"ambiguous_memory: H100": 1, "fractional": 1}
    assert left["gcp"] == {"accelerators listed without an instance type (distinct names)": 1}
    for gone in ("p9.fake", "g5g.xlarge", "g9.mixed", "standard_nc40ads_h100_v5", "standard_nv6ads_a10_v5"):
        assert gone not in inst
    assert not any(k.startswith("a2-") for k in inst)
    assert data["counts"] == {"aws": 2, "azure": 2, "gcp": 0}


def test_writes_sorted_json(tmp_path: Path) -> None:
    for cloud, text in (("aws", AWS), ("azure", AZURE)):
        (tmp_path / f"{cloud}.csv").write_text(text)
    out = tmp_path / "instances.json"
    args = ["--out", str(out)]
    for cloud in ("aws", "azure"):
        args += ["--csv", f"{cloud}={tmp_path / (cloud + '.csv')}", "--cite", f"{cloud}=o/r@{'b' * 40} {cloud}/vms.csv"]
    assert gen.main(args) == 0
    import json

    data = json.loads(out.read_text())
    assert list(data["instances"]) == sorted(data["instances"])
    assert set(data["sources"]) == {"aws", "azure"}
