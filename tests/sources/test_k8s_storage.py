"""A Kubernetes launch whose model lives in storage vlint does not read says so, with the reason: a folder
below a Cloud Storage FUSE mount (its bucket), or a ``$(VAR)`` whose value is a placeholder-filled URI."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.launch.memory_status import memory_status
from vlint.run.lint import LintOptions, lint_paths
from vlint.security.lint_root import LintRoot

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    metadata:
      annotations:
        gke-gcsfuse/volumes: "true"
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.2
        command: ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model=MODEL", "--max-model-len=4096"]
        resources:
          limits:
            nvidia.com/gpu: 1
        env:
        - name: MODEL_GCS_URI
          value: gs://${BUCKET_NAME}/private-model
        volumeMounts:
        - name: gcs-fuse-csi-ephemeral
          mountPath: /gcs-mount
      volumes:
      - name: gcs-fuse-csi-ephemeral
        csi:
          driver: gcsfuse.csi.storage.gke.io
          volumeAttributes:
            bucketName: my-bucket
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-l4
"""


def _status(tmp_path: Path, model: str, text: str = DEPLOYMENT):
    (tmp_path / "d.yaml").write_text(text.replace("MODEL", model, 1))
    opts = LintOptions(root=tmp_path, lint_root=LintRoot(tmp_path.resolve()))
    report = lint_paths([tmp_path / "d.yaml"], Engine(load_catalog()), opts)
    (dep,) = report.files[0].deployments
    return memory_status(dep)


def test_a_model_below_a_cloud_storage_fuse_mount_names_its_bucket(tmp_path: Path) -> None:
    status = _status(tmp_path, "/gcs-mount/private-model")
    assert status.kind == "model_not_read"
    assert status.reason == (
        "the model at /gcs-mount/private-model is gs://my-bucket/private-model in Cloud Storage, mounted by "
        "volume gcs-fuse-csi-ephemeral (Cloud Storage FUSE) at /gcs-mount, which vlint does not read"
    )


def test_a_variable_holding_a_placeholder_uri_shows_its_value(tmp_path: Path) -> None:
    status = _status(tmp_path, "$(MODEL_GCS_URI)")
    assert status.kind == "model_unresolved"
    assert (
        status.reason
        == "the model $(MODEL_GCS_URI) is not resolved: MODEL_GCS_URI is gs://${BUCKET_NAME}/private-model"
    )


@pytest.mark.parametrize(
    "change",
    [
        ("driver: gcsfuse.csi.storage.gke.io", "driver: example.com/other"),  # another CSI driver
        ("mountPath: /gcs-mount", "mountPath: /data"),  # the model is not below the mount
    ],
)
def test_no_storage_reason_for_another_driver_or_another_path(tmp_path: Path, change: tuple[str, str]) -> None:
    """Must not: a volume of another driver, or a model folder outside the mount, keeps the folder's reason."""
    status = _status(tmp_path, "/gcs-mount/private-model", DEPLOYMENT.replace(*change))
    assert status.kind == "model_not_read" and "Cloud Storage" not in (status.reason or "")


def test_a_model_below_the_mount_named_like_a_catalog_model_is_answered(tmp_path: Path) -> None:
    """Must not: the folder's name still names the model (an inference, as for any folder)."""
    assert _status(tmp_path, "/gcs-mount/Llama-3.1-8B-Instruct").answer is not None


# -- a container that runs a script of its image -------------------------------------------------------
LAUNCHER = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-l4
spec:
  template:
    spec:
      containers:
      - name: NAME
        image: IMAGE
        command: COMMAND
"""


def _notes(tmp_path: Path, name: str, image: str, command: str) -> tuple[list[str], int]:
    (tmp_path / "d.yaml").write_text(LAUNCHER.replace("NAME", name).replace("IMAGE", image).replace("COMMAND", command))
    opts = LintOptions(root=tmp_path, lint_root=LintRoot(tmp_path.resolve()))
    report = lint_paths([tmp_path / "d.yaml"], Engine(load_catalog()), opts)
    return list(report.files[0].notes), len(report.files[0].deployments)


def test_a_vllm_container_running_a_script_of_its_image_says_it_is_not_read(tmp_path: Path) -> None:
    notes, launches = _notes(
        tmp_path,
        "vllm-l4",
        "example.com/artifact-vllm/vllm-server:0.1",
        '["python3", "/root/scripts/launcher.py", "--model_gcs_uri=gs://b/m"]',
    )
    assert launches == 0
    assert notes == [
        "container vllm-l4 in Deployment/vllm-l4 runs python3 /root/scripts/launcher.py, a file of its image that "
        "vlint cannot read: a vLLM launch it starts is not checked"
    ]


@pytest.mark.parametrize(
    ("name", "image", "command"),
    [
        ("proxy", "nginx:1.27", '["/docker-entrypoint.sh"]'),  # nothing names vLLM
        ("vllm", "vllm/vllm-openai:v0.10.2", '["python3", "-m", "vllm.entrypoints.openai.api_server"]'),  # vLLM
        ("vllm", "example.com/vllm:1", '["python3", "launcher.py"]'),  # a relative path: maybe the repository's
    ],
)
def test_no_script_note_for_other_containers_or_vllm_itself(
    tmp_path: Path, name: str, image: str, command: str
) -> None:
    notes, _ = _notes(tmp_path, name, image, command)
    assert not [n for n in notes if "a file of its image" in n]
