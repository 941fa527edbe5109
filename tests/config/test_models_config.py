"""``models`` (and ``model-paths``) in the configuration hierarchy, and ``--model-config`` (issue 12,
item 2): folder values are relative to the config file that states them, a ``per-path`` table maps
for the files it matches, a config inside the lint root names only folders inside it, and
``--model-config`` (the user's own choice) is read wherever it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from userrepo import Repo

LAUNCH = "vllm serve /models/llama --max-model-len 4096\n"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "app")


@pytest.fixture
def tiny(tiny_config: dict) -> str:
    """conftest's small Llama config.json (7 layers: not any catalog model), as text."""
    return json.dumps({**tiny_config, "num_hidden_layers": 7})


def deployments(repo: Repo, *args: str) -> list[dict]:
    res = repo.vlint("explain", "--format", "json", "--gpu", "H100", *args)
    assert res.code == 0, res.err
    doc = res.json
    return [d for f in doc["files"] for d in f["deployments"]] if "files" in doc else doc["deployments"]


def facts_from(dep: dict) -> str:
    """Where the model facts were read (the config.json's folder, or a catalog id)."""
    return str((dep.get("model_facts") or {}).get("source") or "")


def test_models_folder_is_relative_to_the_config_that_states_it(repo: Repo, tiny: str) -> None:
    repo.write("svc/ckpt/config.json", tiny)
    repo.write("svc/.vlint.toml", '[models]\n"/models/llama" = "./ckpt"\n')
    repo.write("svc/deploy/start.sh", LAUNCH)
    (dep,) = deployments(repo, "svc/deploy/start.sh")
    assert dep["memory"] is not None, dep
    assert dep["model_facts"]["origin"] == "mapping", dep["model_facts"]
    assert str(repo.root / "svc" / "ckpt") in facts_from(dep), dep["model_facts"]
    shown = repo.vlint("--show-settings", "svc/deploy/start.sh").out
    assert "models./models/llama" in shown and str(repo.root / "svc" / "ckpt") in shown, shown


def test_per_path_models_apply_to_the_files_they_match(repo: Repo) -> None:
    repo.write(
        ".vlint.toml",
        '[per-path."a/**".models]\n"/models/llama" = "meta-llama/Llama-3.1-8B-Instruct"\n',
    )
    repo.write("a/start.sh", LAUNCH)
    repo.write("b/start.sh", LAUNCH)
    (a,) = deployments(repo, "a/start.sh")
    (b,) = deployments(repo, "b/start.sh")
    assert a["memory"] is not None and a["model_facts"]["origin"] == "mapping"
    assert b["memory"] is None and b.get("memory_unavailable"), b


def test_a_config_inside_the_root_maps_only_to_folders_inside_it(repo: Repo, tmp_path: Path, tiny: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "config.json").write_text(tiny)
    repo.write("start.sh", LAUNCH)
    for text in (f'[models]\n"/models/llama" = "{outside}"\n', '[model-paths]\n"/models/llama" = "../outside"\n'):
        repo.write(".vlint.toml", text)
        res = repo.lint_json(".")
        assert res.code == 2 and "lies outside the lint root" in res.err and "--config" in res.err, res.err
    # trusted with --config: read where it points
    repo.write(".vlint.toml", f'[models]\n"/models/llama" = "{outside}"\n')
    (dep,) = deployments(repo, "--config", ".vlint.toml", "start.sh")
    assert str(outside) in facts_from(dep), dep["model_facts"]


def test_model_config_is_read_wherever_it_is(repo: Repo, tmp_path: Path, tiny: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "config.json").write_text(tiny)
    repo.write("start.sh", LAUNCH)
    (dep,) = deployments(repo, "--model-config", f"/models/llama={outside}", "start.sh")
    assert dep["model_facts"]["origin"] == "--model-config" and str(outside) in facts_from(dep)
    res = repo.vlint("check", "--model-config", str(tmp_path / "missing"), "start.sh")
    assert res.code == 2 and "--model-config" in res.err and "no such file" in res.err, res.err
