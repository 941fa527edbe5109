"""VL033: a relative --chat-template is looked for next to the launch script (the working directory vLLM
starts in is inferred to be the script's folder). When the repository has the file under another folder,
the launch most likely runs from there: a warning that says so, not an error. Nowhere in the repository
(or only a file of that name under other folders than the path asks for) stays an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / "scripts").mkdir()
    return tmp_path


def vl033(*args: str) -> list[dict]:
    r = CliRunner().invoke(main, ["--format", "json", "--isolated", *args], catch_exceptions=False)
    assert r.exit_code in (0, 1), r.output
    return [f for f in json.loads(r.stdout)["findings"] if f["code"] == "VL033"]


def launch(work: Path, template: str) -> None:
    (work / "scripts" / "run.sh").write_text(
        f"vllm serve Qwen/Qwen3-8B --max-model-len 8192 --chat-template {template}\n"
    )


def test_a_template_elsewhere_in_the_repository_is_a_warning(work: Path) -> None:
    (work / "templates").mkdir()
    (work / "templates" / "tool.jinja").write_text("{{ messages }}")
    launch(work, "tool.jinja")
    (f,) = vl033(".")
    assert f["severity"] == "warning", f
    assert "the repository has templates/tool.jinja" in f["message"] and "inferred" in f["message"]


def test_a_template_nowhere_stays_an_error(work: Path) -> None:
    launch(work, "tool.jinja")
    (f,) = vl033(".")
    assert f["severity"] == "error" and "doesn't exist" in f["message"]


def test_another_folder_of_the_same_name_does_not_count(work: Path) -> None:
    (work / "other").mkdir()
    (work / "other" / "tool.jinja").write_text("{{ messages }}")
    launch(work, "chat/tool.jinja")  # vLLM looks for chat/tool.jinja; other/tool.jinja is not it
    (f,) = vl033(".")
    assert f["severity"] == "error"


def test_a_template_next_to_the_script_is_fine(work: Path) -> None:
    (work / "scripts" / "tool.jinja").write_text("{{ messages }}")
    (work / "templates").mkdir()
    (work / "templates" / "tool.jinja").write_text("{{ messages }}")
    launch(work, "tool.jinja")
    assert vl033(".") == []
