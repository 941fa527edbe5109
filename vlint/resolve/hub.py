"""Optional Hugging Face Hub look-up (``--online``): ``config.json`` and safetensors metadata only.

``huggingface_hub`` is an optional dependency (``pip install 'vlint[online]'``), imported lazily
here. Only small files are fetched — the config, the safetensors index or, for single-file
checkpoints, the header through the hub's metadata API — never tensor data, into the hub's own cache.

A run without a network must not hang: the whole run has one time budget (:data:`RUN_BUDGET_S`
seconds, each request at most :data:`REQUEST_TIMEOUT_S`), the first connection failure stops every
later look-up, a file's size is checked (:data:`MAX_FILE_BYTES`) before it is downloaded, and each
outcome says what could not be fetched and why (:class:`HubResult`).
"""

from __future__ import annotations

import os
import time
from functools import cache
from pathlib import Path

from vlint.core.record import record
from vlint.core.typing_names import Any
from vlint.resolve.model_arch import ModelArch, model_arch_from_config

#: seconds a single request may take
REQUEST_TIMEOUT_S = 5.0
#: seconds all hub requests of one run may take together
RUN_BUDGET_S = 15.0
#: a config.json or safetensors index larger than this is not downloaded (real ones are kilobytes)
MAX_FILE_BYTES = 4 * 2**20


@record(frozen=True, slots=True)
class HubResult:
    arch: ModelArch | None
    #: why nothing was found (not installed, not reachable, not on the hub, too large…)
    note: str = ""


class _Run:
    """The hub's state for one process run: when the budget ends, and the first connection failure."""

    def __init__(self) -> None:
        self.deadline: float | None = None
        self.unreachable = ""

    def remaining(self) -> float:
        now = time.monotonic()
        if self.deadline is None:
            self.deadline = now + RUN_BUDGET_S
        return self.deadline - now


_RUN = _Run()


def reset() -> None:
    """Start a new budget (tests, the language server between requests)."""
    global _RUN
    _RUN = _Run()
    fetch_model_arch.cache_clear()


class _Skip(Exception):
    pass


@cache
def fetch_model_arch(repo_id: str) -> HubResult:
    try:
        import huggingface_hub  # type: ignore[import-not-found]
    except ImportError:
        return HubResult(None, f"--online needs huggingface_hub to fetch {repo_id} (pip install 'vlint[online]')")
    if _RUN.unreachable:
        why = _RUN.unreachable
        return HubResult(None, f"{repo_id} was not fetched: the Hugging Face Hub was not reachable ({why})")
    repo, _, revision = repo_id.partition("@")
    rev = revision or None
    try:
        config_path = _download(huggingface_hub, repo, "config.json", rev)
        config = _read_json(config_path)
    except _Skip as e:
        return HubResult(None, f"{repo_id}: {e}")
    if not isinstance(config, dict):
        return HubResult(None, f"{repo_id}: the hub's config.json is not a JSON object")
    weight_bytes, source = _weight_bytes(huggingface_hub, repo, rev)
    return HubResult(model_arch_from_config(config, name=repo_id, weight_bytes=weight_bytes, source=source))


def _timeout() -> float:
    left = _RUN.remaining()
    if left <= 0:
        raise _Skip(f"not fetched: the --online time budget of {RUN_BUDGET_S:.0f} s for this run is spent")
    return min(REQUEST_TIMEOUT_S, left)


def _download(hf: Any, repo: str, filename: str, rev: str | None) -> str:
    """Download one small file: its size is asked first (failing fast without a network)."""
    from huggingface_hub.utils import EntryNotFoundError, GatedRepoError, RepositoryNotFoundError

    try:
        meta = hf.get_hf_file_metadata(hf.hf_hub_url(repo, filename, revision=rev), timeout=_timeout())
        size = getattr(meta, "size", None)
        if isinstance(size, int) and size > MAX_FILE_BYTES:
            raise _Skip(f"{filename} on the hub is {size / 2**20:.1f} MiB, over the {MAX_FILE_BYTES // 2**20} MiB cap")
        return str(hf.hf_hub_download(repo, filename, revision=rev, etag_timeout=_timeout()))
    except (RepositoryNotFoundError, GatedRepoError):
        raise _Skip("not found on the Hugging Face Hub (or gated: set HF_TOKEN)") from None
    except EntryNotFoundError:
        raise _Skip(f"the hub repository has no {filename}") from None
    except _Skip:
        raise
    except Exception as e:  # a connection error, a timeout, a proxy: nothing later will get through either
        _RUN.unreachable = f"{type(e).__name__} talking to {_endpoint()}"
        raise _Skip(f"not fetched: the Hugging Face Hub was not reachable ({_RUN.unreachable})") from None


def _endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co")


def _read_json(path: str) -> Any:
    from vlint.resolve.model_files import ModelFileError, read_json_file

    try:
        return read_json_file(Path(path), limit=MAX_FILE_BYTES)
    except (OSError, ValueError, ModelFileError) as e:
        raise _Skip(f"the downloaded {Path(path).name} cannot be read: {e}") from None


def _weight_bytes(hf: Any, repo: str, rev: str | None) -> tuple[int | None, str]:
    try:
        index = _read_json(_download(hf, repo, "model.safetensors.index.json", rev))
        return int(index["metadata"]["total_size"]), "hub model.safetensors.index.json"
    except (_Skip, KeyError, TypeError, ValueError):
        pass
    if _RUN.unreachable:
        return None, "hub"
    try:
        meta = hf.get_safetensors_metadata(repo, revision=rev)
        total = 0
        for fm in meta.files_metadata.values():
            for t in fm.tensors.values():
                n = 1
                for s in t.shape:
                    n *= s
                total += n * _DT.get(t.dtype, 2)
        return total, "hub safetensors metadata"
    except Exception:
        return None, "hub"


_DT = {"F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "I8": 1, "U8": 1, "I32": 4, "I64": 8}
