"""Where a launch's model facts come from: local folder, --model-config, [tool.vlint] models, the
Hugging Face cache (read only, confined), the catalog — in that order."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest

from vlint.resolve.hf_cache import hub_cache_dir, repo_folder, snapshot, valid_repo_id
from vlint.resolve.model_files import local_weight_bytes
from vlint.resolve.model_sources import find_model
from vlint.security.lint_root import LintRoot

REV = "0123456789abcdef0123456789abcdef01234567"


def fake_cache(root: Path, repo_id: str, config: dict, *, ref: str = "main", rev: str = REV) -> Path:
    """A hub cache laid out as huggingface_hub writes it: blobs, refs/<ref>, snapshots/<rev>/ links."""
    folder = root / ("models--" + repo_id.replace("/", "--"))
    (folder / "blobs").mkdir(parents=True)
    (folder / "refs").mkdir()
    (folder / "refs" / ref).write_text(rev)
    snap = folder / "snapshots" / rev
    snap.mkdir(parents=True)
    blob = folder / "blobs" / "c0ffee"
    blob.write_text(json.dumps(config))
    os.symlink(os.path.relpath(blob, snap), snap / "config.json")
    return snap


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "hub"
    root.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    return root


def test_cache_dir_follows_huggingface_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"HOME": "/h"}
    assert hub_cache_dir({**env, "HF_HUB_CACHE": "/c"}) == Path("/c")
    assert hub_cache_dir({**env, "HUGGINGFACE_HUB_CACHE": "/legacy"}) == Path("/legacy")
    assert hub_cache_dir({**env, "HF_HOME": "/hf"}) == Path("/hf/hub")
    assert hub_cache_dir({**env, "XDG_CACHE_HOME": "/x"}) == Path("/x/huggingface/hub")
    monkeypatch.setenv("HOME", "/home/u")
    assert hub_cache_dir({}) == Path("/home/u/.cache/huggingface/hub")


@pytest.mark.parametrize(
    "ref",
    ["../etc", "a/../../b", "/abs/path", "a/b/c", "a--b/c", "org/na..me", "x.git", ".hidden/x", "", "a/", "é/x"],
)
def test_ids_that_could_escape_build_no_path(ref: str, cache: Path) -> None:
    assert not valid_repo_id(ref)
    assert repo_folder(ref) is None and snapshot(ref) is None


def test_cache_lookup(cache: Path, tiny_config: dict) -> None:
    fake_cache(cache, "acme/tiny-llama", tiny_config)
    assert valid_repo_id("acme/tiny-llama") and valid_repo_id("gpt2")
    found = find_model("acme/tiny-llama")
    assert found.origin == "HF cache" and found.arch is not None
    assert found.arch.num_layers == 8 and found.arch.hidden_size == 1024
    assert "Hugging Face cache" in found.arch.source and REV in found.via


def test_cache_revision_ref_and_hash(cache: Path, tiny_config: dict) -> None:
    fake_cache(cache, "acme/tiny-llama", tiny_config, ref="v1", rev="f" * 40)
    assert find_model("acme/tiny-llama").arch is None  # no refs/main: never another snapshot
    assert find_model("acme/tiny-llama", revision="v1").origin == "HF cache"
    assert find_model("acme/tiny-llama", revision="f" * 40).origin == "HF cache"
    assert find_model("acme/tiny-llama", revision="../../x").arch is None


def test_cache_link_out_of_the_model_folder_is_not_read(cache: Path, tmp_path: Path, tiny_config: dict) -> None:
    snap = fake_cache(cache, "acme/tiny-llama", tiny_config)
    outside = tmp_path / "secret.json"
    outside.write_text(json.dumps(tiny_config))
    (snap / "config.json").unlink()
    os.symlink(outside, snap / "config.json")
    assert find_model("acme/tiny-llama").arch is None


def test_cache_ref_pointing_outside_is_refused(cache: Path, tiny_config: dict) -> None:
    fake_cache(cache, "acme/tiny-llama", tiny_config)
    (cache / "models--acme--tiny-llama" / "refs" / "main").write_text("../../../etc")
    assert snapshot("acme/tiny-llama") is None


def test_cache_comes_before_catalog(cache: Path, tiny_config: dict) -> None:
    fake_cache(cache, "meta-llama/Llama-3.1-8B-Instruct", tiny_config)
    assert find_model("meta-llama/Llama-3.1-8B-Instruct").origin == "HF cache"
    assert find_model("meta-llama/Llama-3.1-8B").origin == "catalog"


def _safetensors(path: Path, nbytes: int) -> None:
    header = json.dumps({"w": {"dtype": "BF16", "shape": [nbytes // 2], "data_offsets": [0, nbytes]}}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header)


def test_half_downloaded_shards_are_not_summed(tmp_path: Path) -> None:
    d = tmp_path / "m"
    d.mkdir()
    _safetensors(d / "model-00001-of-00002.safetensors", 100)
    assert local_weight_bytes(d) == (None, None)
    _safetensors(d / "model-00002-of-00002.safetensors", 50)
    _safetensors(d / "consolidated.safetensors", 150)  # Mistral ships both layouts
    assert local_weight_bytes(d) == (150, "safetensors headers of 2 file(s)")


def test_models_mapping_to_catalog_cache_and_folder(cache: Path, tmp_path: Path, tiny_config: dict) -> None:
    fake_cache(cache, "acme/tiny-llama", tiny_config)
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({**tiny_config, "num_hidden_layers": 3}))
    models = {
        "/models/llama": "meta-llama/Llama-3.1-8B-Instruct",
        "/models/tiny/": "acme/tiny-llama",
        "my-served-name": str(folder),
    }
    root = LintRoot(tmp_path / "repo")
    a = find_model("/models/llama", models=models, root=root)
    assert a.origin == "mapping" and a.arch is not None and a.arch.num_layers == 32
    assert "catalog" in a.via and "/models/llama" in a.via
    b = find_model("/models/tiny", models=models, root=root)
    assert b.origin == "mapping" and b.arch is not None and b.arch.num_layers == 8 and "HF cache" in b.via
    c = find_model("/mnt/other", models=models, names=["my-served-name"], root=root)
    assert c.origin == "mapping" and c.arch is not None and c.arch.num_layers == 3
    miss = find_model("/models/none", models={"/models/none": "nobody/nothing"}, root=root)
    assert miss.arch is None and "nobody/nothing" in miss.note and "outside the lint root" in miss.note


def test_model_config_wins_over_mapping_and_catalog(tmp_path: Path, tiny_config: dict) -> None:
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({**tiny_config, "num_hidden_layers": 5}))
    every = {"": str(cfg)}
    a = find_model("meta-llama/Llama-3.1-8B-Instruct", model_configs=every, models={"x": "y"})
    assert a.origin == "--model-config" and a.arch is not None and a.arch.num_layers == 5
    assert find_model("", model_configs=every).arch is not None  # `vllm serve $MODEL`
    named = {"acme/x": str(cfg)}
    assert find_model("acme/x", model_configs=named).origin == "--model-config"
    assert find_model("meta-llama/Llama-3.1-8B-Instruct", model_configs=named).origin == "catalog"
    bad = tmp_path / "nope.json"
    bad.write_text("[1, 2]")
    r = find_model("acme/x", model_configs={"": str(bad)})
    assert r.arch is None and "--model-config" in r.note


def test_local_folder_outside_the_root_is_never_read(tmp_path: Path, tiny_config: dict) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "config.json").write_text(json.dumps(tiny_config))
    root = LintRoot(tmp_path / "repo")
    r = find_model(str(outside), root=root)
    assert r.arch is None and "outside the lint root" in r.note


def test_a_folder_served_under_its_own_hugging_face_id(tmp_path: Path) -> None:
    """``vllm serve /root/.cache/Llama-3.2-1B-Instruct --served-model-name meta-llama/Llama-3.2-1B-Instruct``:
    the launch says which model the folder holds; a name that is not the folder's is no evidence."""
    from vlint.resolve.model_sources import served_id_of_folder

    root = LintRoot(tmp_path / "repo")
    folder = "/root/.cache/Llama-3.2-1B-Instruct"
    served = ["meta-llama/Llama-3.2-1B-Instruct"]
    r = find_model(folder, names=served, root=root)
    assert r.origin == "served name" and r.arch is not None and r.arch.num_layers == 16
    assert "outside the lint root" in r.note and "--served-model-name meta-llama/Llama-3.2-1B-Instruct" in r.via
    assert served_id_of_folder(folder + "/", served) == served[0]
    # no statement: not the served-name evidence; a folder named like a catalog model is only an
    # inference from its name (origin "name", low confidence: vlint.resolve.model_names)
    for names in ([], ["qwen3-8B"]):
        guess = find_model("/models/Qwen3-8B", names=names, root=root)
        assert guess.origin == "name" and guess.arch is not None and guess.arch.confidence == "low"
        assert guess.arch.inferred_from_name.startswith("Qwen3-8B taken for Qwen/Qwen3-8B")
    assert find_model("/models", names=["gpt-3.5-turbo"], root=root).arch is None
    assert served_id_of_folder("/models/llama", ["meta-llama/Llama-3.2-1B-Instruct"]) is None
    assert served_id_of_folder("Llama-3.2-1B-Instruct", served) is None
    assert served_id_of_folder("/m/Llama-3.2-1B-Instruct", ["../Llama-3.2-1B-Instruct"]) is None
    # an unknown Hugging Face id is its own name: a served name never replaces it
    quant = "neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8"
    assert served_id_of_folder(quant, ["meta-llama/Meta-Llama-3.1-405B-Instruct-FP8"]) is None
