"""VL033: a relative --chat-template is opened from the folder vLLM runs in ([0.6.6.post1]
vllm/entrypoints/chat_utils.py:608-627). A script runs in the folder it is started from, which the file
does not say: absence from the repository is certain to stop vLLM only where the script moves to a folder
itself (``cd "$(dirname "$0")"``) and writes no such file. Elsewhere it is a warning that says what was
assumed (the script's own folder), and names the file when the repository has it under another folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main

CD_OWN = 'cd "$(dirname "$0")"\n'


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


def launch(work: Path, template: str, before: str = "") -> None:
    (work / "scripts" / "run.sh").write_text(
        f"{before}vllm serve Qwen/Qwen3-8B --max-model-len 8192 --chat-template {template}\n"
    )


def test_a_template_elsewhere_in_the_repository_is_a_warning(work: Path) -> None:
    (work / "templates").mkdir()
    (work / "templates" / "tool.jinja").write_text("{{ messages }}")
    launch(work, "tool.jinja")
    (f,) = vl033(".")
    assert f["severity"] == "warning", f
    assert "the repository has templates/tool.jinja" in f["message"] and "assumed" in f["message"]


def test_a_template_nowhere_from_an_unknown_folder_is_a_warning(work: Path) -> None:
    """corpus shape: a script whose comment says the template must be in the working directory, never
    committed; run from another folder it is found, so vLLM need not refuse."""
    launch(work, "tool.jinja")
    (f,) = vl033(".")
    assert f["severity"] == "warning"
    assert "no scripts/tool.jinja" in f["message"] and "folder it is started from" in f["message"]
    assert f["data"]["working_dir_known"] is False


@pytest.mark.parametrize(
    "cd",
    [
        CD_OWN,
        'cd "$(dirname "${BASH_SOURCE[0]}")" || exit 1\n',
        "cd ${0%/*}\n",
        'HERE="$(cd "$(dirname "$0")" && pwd)"\ncd "$HERE"\n',
        "cd `dirname $0`\n",
    ],
)
def test_a_template_nowhere_after_cd_to_the_scripts_folder_is_an_error(work: Path, cd: str) -> None:
    launch(work, "tool.jinja", before=cd)
    (f,) = vl033(".")
    assert f["severity"] == "error" and "doesn't exist" in f["message"], f
    assert "looked for scripts/tool.jinja" in f["message"] and f["data"]["working_dir_known"] is True


def test_cd_from_the_scripts_folder_is_followed(work: Path) -> None:
    (work / "tpl").mkdir()
    (work / "tpl" / "tool.jinja").write_text("{{ messages }}")
    launch(work, "tpl/tool.jinja", before='cd "$(dirname "$0")"/..\n')
    assert vl033(".") == []
    launch(work, "tpl/tool.jinja", before=CD_OWN + "cd ..\n")
    assert vl033(".") == []
    launch(work, "tpl/tool.jinja", before=CD_OWN)  # scripts/tpl/tool.jinja does not exist
    (f,) = vl033(".")
    assert f["severity"] == "error" and "the repository has it at tpl/tool.jinja" in f["message"]


def test_a_template_the_script_downloads_is_not_reported(work: Path) -> None:
    for fetch in (
        "wget -O tool.jinja https://example.com/t.jinja\n",
        "curl -fsSLO https://example.com/tool.jinja\n",
        "cp ../templates/tool.jinja .\n",
        "cat > tool.jinja <<'EOF'\n{{ messages }}\nEOF\n",
    ):
        launch(work, "tool.jinja", before=CD_OWN + fetch)
        assert vl033(".") == [], fetch


def test_a_folder_the_script_fills_is_a_warning(work: Path) -> None:
    launch(work, "tpls/tool.jinja", before=CD_OWN + "git clone https://example.com/templates.git tpls\n")
    (f,) = vl033(".")
    assert f["severity"] == "warning" and "git clone, line 2" in f["message"]


def test_an_unknown_cd_makes_the_folder_unknown_again(work: Path) -> None:
    launch(work, "tool.jinja", before=CD_OWN + 'cd "$1"\n')
    assert vl033(".")[0]["severity"] == "warning"
    launch(work, "tool.jinja", before=f'if [ -n "$X" ]; then {CD_OWN.strip()}; fi\n')
    assert vl033(".")[0]["severity"] == "warning"  # the cd may not run


def test_a_cd_to_an_absolute_folder_is_not_checked(work: Path) -> None:
    launch(work, "tool.jinja", before="cd /opt/app\n")
    assert vl033(".") == []


def test_another_folder_of_the_same_name_does_not_count(work: Path) -> None:
    (work / "other").mkdir()
    (work / "other" / "tool.jinja").write_text("{{ messages }}")
    launch(work, "chat/tool.jinja", before=CD_OWN)  # vLLM looks for chat/tool.jinja; other/tool.jinja is not it
    (f,) = vl033(".")
    assert f["severity"] == "error"


def test_a_template_next_to_the_script_is_fine(work: Path) -> None:
    (work / "scripts" / "tool.jinja").write_text("{{ messages }}")
    (work / "templates").mkdir()
    (work / "templates" / "tool.jinja").write_text("{{ messages }}")
    launch(work, "tool.jinja")
    assert vl033(".") == []
