"""KubeAIRunway ModelDeployment (airunway.ai/v1alpha1): a launch only when spec.engine.type is vllm."""

from __future__ import annotations

import textwrap
from pathlib import Path

from vlint.run.lint import LintOptions, Reader
from vlint.sources.kube import kubernetes

DEPLOYMENT = """
apiVersion: airunway.ai/v1alpha1
kind: ModelDeployment
metadata:
  name: qwen
spec:
  model:
    id: "Qwen/Qwen3-0.6B"
    source: huggingface
  engine:
    type: ENGINE
    contextLength: 32768
    trustRemoteCode: true
  resources:
    gpu:
      count: 2
"""


def _launches(tmp_path: Path, text: str):
    path = tmp_path / "md.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    reader = Reader(LintOptions(root=tmp_path))
    src = reader.read(path)
    if not kubernetes.sniff(src):
        return []
    result = kubernetes.extract(src, reader.read)
    assert result.error is None
    return result.invocations


def test_vllm_engine(tmp_path: Path) -> None:
    (inv,) = _launches(tmp_path, DEPLOYMENT.replace("ENGINE", "vllm"))
    assert [t.text for t in inv.args] == ["Qwen/Qwen3-0.6B", "--max-model-len", "32768", "--trust-remote-code"]
    assert inv.span.line == 7 and inv.opaque_args  # the model setting; the provider writes the rest
    assert inv.facts["gpu_count"].value == 2


def test_other_or_auto_selected_engine_is_no_launch(tmp_path: Path) -> None:
    assert _launches(tmp_path, DEPLOYMENT.replace("ENGINE", "sglang")) == []
    auto = DEPLOYMENT.replace("    type: ENGINE\n", "")
    assert _launches(tmp_path, auto) == []
    custom = "apiVersion: airunway.ai/v1alpha1\nkind: ModelDeployment\nmetadata: {name: a}\n"
    custom += "spec:\n  model: {source: custom}\n  image: ghcr.io/kaito-project/aikit/llama3.2:1b\n"
    assert _launches(tmp_path, custom) == []
