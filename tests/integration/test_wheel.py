"""Build the wheel, install it into a fresh virtual environment, run ``vlint examples/`` from there.

Catches what a source-tree run cannot: rules/ and schemas/ missing from the wheel (they are
force-included as ``vlint/_bundled/``), a broken console script, an undeclared dependency.
Skipped, with the reason, when the build requirements and dependencies cannot be downloaded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ["hatchling>=1.18", "click>=8.1", "PyYAML>=6.0", "jsonschema>=4.18"]


def _env() -> dict[str, str]:
    """The environment without anything that points back at the source tree."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(cmd: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` folder of a fresh venv with the freshly built wheel installed."""
    work = tmp_path_factory.mktemp("wheel")
    probe = _run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(work / "probe"), *REQUIREMENTS], work)
    if probe.returncode != 0:
        pytest.skip(f"cannot download the build requirements and dependencies (no network?): {probe.stderr[-300:]}")
    dist = work / "dist"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dist), str(ROOT)], work)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = dist.glob("vlint-*.whl")
    env_dir = work / "venv"
    # a venv without pip of its own (ensurepip takes seconds): this pip installs into it (--python)
    venv.EnvBuilder(with_pip=False, clear=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    install = _run([sys.executable, "-m", "pip", "--python", str(python), "install", str(wheel)], work)
    if install.returncode != 0 and "--python" in install.stderr:  # a pip older than 22.3: the venv's own pip
        venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
        install = _run([str(python), "-m", "pip", "install", str(wheel)], work)
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    return bindir


def _vlint(bindir: Path) -> str:
    return str(bindir / ("vlint.exe" if os.name == "nt" else "vlint"))


def test_the_installed_package_is_not_the_source_tree(installed: Path, tmp_path: Path) -> None:
    python = installed / ("python.exe" if os.name == "nt" else "python")
    p = _run(
        [str(python), "-c", "import vlint, vlint.core.paths as p; print(vlint.__file__); print(p.rules_dir())"],
        tmp_path,
    )
    assert p.returncode == 0, p.stderr
    module, rules = p.stdout.split()
    assert not Path(module).is_relative_to(ROOT)
    assert Path(rules).is_relative_to(Path(module).parent) and Path(rules).is_dir()


def test_vlint_examples_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    p = _run([_vlint(installed), "--format", "json", "examples/"], tmp_path)
    assert p.returncode == 1, p.stdout[-2000:] + p.stderr[-2000:]
    doc = json.loads(p.stdout)
    got = {(f["code"], f["path"], f["line"], f["column"]) for f in doc["findings"]}
    # the README's sample output
    assert ("VL101", "examples/start.sh", 11, 3) in got
    assert ("VL011", "examples/serve.yaml", 7, 1) in got
    assert all(f["error"] is None for f in doc["files"])
    # the same findings as the source tree gives
    from click.testing import CliRunner

    from vlint.cli import main

    here = os.getcwd()
    try:
        os.chdir(tmp_path)
        source = json.loads(CliRunner().invoke(main, ["--format", "json", "examples/"]).stdout)
    finally:
        os.chdir(here)
    assert got == {(f["code"], f["path"], f["line"], f["column"]) for f in source["findings"]}


def test_text_output_and_rules_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    p = _run([_vlint(installed), "--no-color", "examples/start.sh"], tmp_path)
    assert p.returncode == 1
    assert "examples/start.sh:11:3: VL101 [warning]" in p.stdout
    rules = _run([_vlint(installed), "rules", "--format", "json"], tmp_path)
    assert rules.returncode == 0
    shipped = {r["code"] for r in json.loads(rules.stdout)}
    in_tree = {p.name.split("-", 1)[0] for p in (ROOT / "rules").glob("VL*.yaml")}
    assert shipped == in_tree
    page = _run([_vlint(installed), "rule", "VL101"], tmp_path)
    assert page.returncode == 0 and "VL101" in page.stdout
    version = _run([_vlint(installed), "--vllm-version", "0.33.0", "-q", "examples/serve.yaml"], tmp_path)
    assert version.returncode == 1 and "Target vLLM 0.33.0" in version.stdout
