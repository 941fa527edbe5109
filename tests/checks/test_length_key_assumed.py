"""VL204 compares --max-model-len with what vLLM derives from config.json; with no length key vLLM takes
2048. A bundled catalog record that carries no length key (a transcription that left it out) only lets
vlint assume that default: the finding is then a warning that says so. A record or a config.json that has
the key keeps the error, and so does a local config.json without any length key (vLLM really takes 2048)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.resolve.catalog import catalog_record as find_record


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


def vl204(*args: str) -> list[dict]:
    r = CliRunner().invoke(main, ["--format", "json", "--isolated", *args], catch_exceptions=False)
    assert r.exit_code in (0, 1), r.output
    return [f for f in json.loads(r.stdout)["findings"] if f["code"] == "VL204"]


#: a catalog record without any length key, and one with max_position_embeddings 32768
NO_KEY, WITH_KEY = "Qwen/Qwen2.5-Coder-0.5B-Instruct", "Qwen/Qwen2.5-Coder-0.5B"


def test_the_records_are_what_the_cases_need() -> None:
    no_key, with_key = find_record(NO_KEY), find_record(WITH_KEY)
    assert no_key is not None and "max_position_embeddings" not in no_key["config"]
    assert with_key is not None and with_key["config"]["max_position_embeddings"] == 32768


def test_a_record_without_a_length_key_gives_a_warning_that_says_so(work: Path) -> None:
    (work / "s.sh").write_text(f"vllm serve {NO_KEY} --max-model-len 4096\n")
    (f,) = vl204("s.sh")
    assert f["severity"] == "warning", f
    assert "inferred: the catalog record vlint has for it carries none" in f["message"]


def test_a_record_with_the_key_keeps_the_error(work: Path) -> None:
    (work / "s.sh").write_text(f"vllm serve {WITH_KEY} --max-model-len 65536\n")
    (f,) = vl204("s.sh")
    assert f["severity"] == "error" and "inferred" not in f["message"]
    (work / "s.sh").write_text(f"vllm serve {WITH_KEY} --max-model-len 4096\n")
    assert vl204("s.sh") == []


def test_a_local_config_without_a_length_key_keeps_the_error(work: Path) -> None:
    rec = find_record(NO_KEY)
    assert rec is not None
    (work / "m").mkdir()
    (work / "m" / "config.json").write_text(json.dumps(rec["config"]))
    (work / "s.sh").write_text("vllm serve ./m --max-model-len 4096\n")
    (f,) = vl204("s.sh")
    assert f["severity"] == "error" and "inferred" not in f["message"]
