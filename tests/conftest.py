"""Shared fixtures. Tests that read ../shared (corpus, calibration) skip with a reason when it is absent."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """The hypothesis profiles (tests/budgets.py): ``ci`` unless ``$VLINT_HYPOTHESIS_PROFILE`` names
    another; ``--hypothesis-profile=long`` is loaded after this by hypothesis's own plugin. And the
    session's temporary files in RAM where that is possible (:func:`ram_temp_root`)."""
    import budgets

    budgets.register()
    ram = ram_temp_root()
    if ram is not None:
        import tempfile

        tempfile.tempdir = ram
        os.environ["TMPDIR"] = ram  # the child processes the tests start (vlint, pip, git, pre-commit)


#: free space a RAM folder needs to hold the session's temporary files (the largest tests write ~10 MB)
RAM_TEMP_MIN_FREE = 1 << 30


def ram_temp_root() -> str | None:
    """``/dev/shm`` when no ``TMPDIR`` is set and it is a writable tmpfs with 1 GiB free, else None (the
    system's temporary folder). The tests make thousands of scratch folders (``tmp_path``, and the oracle
    replay one per recorded launch, through ``tempfile``); on a disk file system mounted with ``discard``
    each ``rmdir`` costs milliseconds (2.6 ms measured on the CI machine: ~15 s of the oracle replay alone),
    on tmpfs microseconds. What the tests check does not depend on where the folders are."""
    if os.environ.get("TMPDIR") or os.environ.get("VLINT_TEST_DISK_TMP"):
        return None
    root = "/dev/shm"
    try:
        with open("/proc/mounts", encoding="utf-8") as f:
            mounts = {line.split()[1]: line.split()[2] for line in f if len(line.split()) > 2}
        st = os.statvfs(root)
    except OSError:
        return None
    if mounts.get(root) != "tmpfs" or not os.access(root, os.W_OK | os.X_OK):
        return None
    if st.f_bavail * st.f_frsize < RAM_TEMP_MIN_FREE:
        return None
    return root


def shared_folders() -> list[Path]:
    """Where the shared data (corpus, calibration; not shipped) may be: $VLINT_SHARED, then the folder
    ``shared`` beside the checkout. Nothing else: the project does not know where a machine keeps it."""
    env = os.environ.get("VLINT_SHARED")
    return ([Path(env)] if env else []) + [ROOT.parent / "shared"]


SHARED_MISSING = "shared data not found: set VLINT_SHARED to its folder or put it beside the checkout (../shared)"


def shared_dir() -> Path | None:
    """The shared data folder that holds corpus/, or None."""
    return next((cand for cand in shared_folders() if (cand / "corpus").is_dir()), None)


@pytest.fixture
def shared() -> Path:
    d = shared_dir()
    if d is None:
        pytest.skip(SHARED_MISSING)
    return d


@pytest.fixture(autouse=True)
def _no_user_hf_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Model look-ups read the local Hugging Face cache: the developer's own must not change results
    (tests that need one build a fake cache and point HF_HUB_CACHE at it)."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path_factory.getbasetemp() / "no-hf-cache"))


@pytest.fixture
def tiny_config() -> dict:
    """A small Llama-shaped config.json, for tests that need a model vlint does not bundle."""
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 1024,
        "intermediate_size": 2816,
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
        "num_hidden_layers": 8,
        "vocab_size": 32000,
        "max_position_embeddings": 4096,
        "torch_dtype": "bfloat16",
    }


def load_script(name: str, relpath: str) -> ModuleType:
    """A script of the repository (``tools/gen_docs.py``, ``bench/accuracy.py``) loaded as module ``name``,
    once per session (the tests that use it share the one module)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parent.parent / relpath)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
