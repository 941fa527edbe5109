"""A Kubernetes manifest a script writes from a here-document and applies (``kubectl apply -f``) is
read by the Kubernetes source as part of the script, at the script's own lines."""

from __future__ import annotations

from pathlib import Path

from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, lint_paths

MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.2
          args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "4096"]
"""


def _lint(tmp_path: Path, script: str):
    (tmp_path / "install.sh").write_text(script)
    report = lint_paths([tmp_path / "install.sh"], Engine(load_catalog()), LintOptions(root=tmp_path))
    (fr,) = report.files
    assert fr.error is None
    return fr, report.findings


def test_written_then_applied(tmp_path: Path) -> None:
    fr, _ = _lint(tmp_path, f"cat <<EOF > m.yaml\n{MANIFEST}EOF\nkubectl apply -f m.yaml\n")
    (dep,) = fr.deployments
    assert dep.model == "Qwen/Qwen3-8B"
    assert dep.invocation.path == "install.sh" and dep.invocation.span.line == 11  # the manifest's image line


def test_piped_into_kubectl(tmp_path: Path) -> None:
    fr, _ = _lint(tmp_path, f"cat <<'EOF' | kubectl apply -f -\n{MANIFEST}EOF\n")
    (dep,) = fr.deployments
    assert dep.model == "Qwen/Qwen3-8B" and dep.invocation.span.line == 11


def test_not_applied_or_not_kubernetes(tmp_path: Path) -> None:
    # written but never applied
    fr, _ = _lint(tmp_path, f"cat <<EOF > m.yaml\n{MANIFEST}EOF\necho done\n")
    assert fr.deployments == []
    # applied, but another file than the one written
    fr, _ = _lint(tmp_path, f"cat <<EOF > m.yaml\n{MANIFEST}EOF\nkubectl apply -f other.yaml\n")
    assert fr.deployments == []
    # kubectl get is not an apply
    fr, _ = _lint(tmp_path, f"cat <<'EOF' | kubectl get -f -\n{MANIFEST}EOF\n")
    assert fr.deployments == []
