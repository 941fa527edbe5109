"""A hostile pull request cannot make vlint read (and print) files outside the lint root or in .git.

Each test builds a CI workspace: ``outside/`` holds what the attacker wants (credentials next to the
checkout, or the checkout's own ``.git/config``), ``repo/`` is the pull request. vlint runs in every
output format; the secret must appear in none, the reference is reported by path (VL060), and the
other files are still linted.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main

from .leaks import invoke_in, leaked, outputs, write_tree

SECRET = "wJalrXUtnFEMIK7MDENGbPxRfiCYzq81Kx9Lmq"
CREDENTIALS = f"[default]\naws_access_key_id=AKIAQ3EGZX7T5LMN2WPA\naws_secret_access_key={SECRET}\n"
CLEAN_SCRIPT = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --max-model-lenn 1\n"


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    repo = tmp_path / "repo"
    write_tree(outside, {"credentials": CREDENTIALS, "x.yaml": f"max-num-seqs: {SECRET}\n"})
    write_tree(repo, {"other/run.sh": CLEAN_SCRIPT})
    (repo / ".git").mkdir()
    (repo / ".git" / "config").write_text(
        f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {SECRET}\n', encoding="utf-8"
    )
    return repo, outside


def _json(repo: Path) -> dict:
    r = invoke_in(repo, "check", "--isolated", "--format", "json", ".")
    return json.loads(r.output)


def _check(repo: Path, expect_refused: str) -> None:
    out = outputs(repo)
    assert leaked(out, SECRET) == []
    doc = _json(repo)
    codes = [(f["code"], f["path"]) for f in doc["findings"]]
    assert any(c == "VL060" for c, _ in codes), codes
    assert any(c == "VL001" and p.endswith("other/run.sh") for c, p in codes), "the other file is still linted"
    messages = " ".join(f["message"] for f in doc["findings"] if f["code"] == "VL060")
    assert expect_refused in messages


def test_compose_env_file_outside(workspace: tuple[Path, Path]) -> None:
    repo, _ = workspace
    write_tree(
        repo,
        {
            "docker-compose.yaml": "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
            '    command: ["m/x", "--max-num-seqs", "${aws_secret_access_key}"]\n'
            "    env_file:\n      - ../outside/credentials\n"
        },
    )
    _check(repo, "env_file ../outside/credentials lies outside the lint root")


def test_compose_env_file_in_git_folder(workspace: tuple[Path, Path]) -> None:
    repo, _ = workspace
    write_tree(
        repo,
        {
            "docker-compose.yaml": "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
            '    command: ["m/x", "--max-num-seqs", "${extraheader}"]\n'
            "    env_file: .git/config\n"
        },
    )
    _check(repo, "is inside a version-control folder (.git/)")


def test_dotenv_symlink_outside(workspace: tuple[Path, Path]) -> None:
    repo, outside = workspace
    write_tree(
        repo,
        {
            "docker-compose.yaml": "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
            '    command: ["m/x", "--max-num-seqs", "${aws_secret_access_key}"]\n'
        },
    )
    (repo / ".env").symlink_to(outside / "credentials")
    _check(repo, "symbolic link to a file outside the lint root")


def test_config_dot_dot(workspace: tuple[Path, Path]) -> None:
    repo, _ = workspace
    write_tree(repo, {"serve.sh": "vllm serve m/x --config ../outside/x.yaml\n"})
    _check(repo, "--config ../outside/x.yaml lies outside the lint root")


def test_config_absolute(workspace: tuple[Path, Path]) -> None:
    repo, outside = workspace
    write_tree(repo, {"serve.sh": f"vllm serve m/x --config {outside / 'x.yaml'}\n"})
    _check(repo, "lies outside the lint root")


def test_dockerfile_copy_outside(workspace: tuple[Path, Path]) -> None:
    repo, _ = workspace
    write_tree(
        repo,
        {
            "Dockerfile": "FROM vllm/vllm-openai:v0.10.2\nCOPY ../outside/x.yaml /srv/x.yaml\n"
            'CMD ["--model", "m/x", "--config", "/srv/x.yaml"]\n'
        },
    )
    _check(repo, "lies outside the lint root")


def test_compose_volume_outside(workspace: tuple[Path, Path]) -> None:
    repo, _ = workspace
    write_tree(
        repo,
        {
            "docker-compose.yaml": "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
            "    volumes:\n      - ../..:/host\n"
            '    command: ["m/x", "--config", "/host/outside/x.yaml"]\n'
        },
    )
    _check(repo, "lies outside the lint root")


def test_walked_symlink_to_outside_file(workspace: tuple[Path, Path]) -> None:
    repo, outside = workspace
    (repo / "serve.yaml").symlink_to(outside / "x.yaml")
    _check(repo, "serve.yaml is a symbolic link to a file outside the lint root")


def test_model_folder_outside(workspace: tuple[Path, Path]) -> None:
    repo, outside = workspace
    write_tree(outside, {"model/config.json": json.dumps({"architectures": [SECRET], "model_type": "llama"})})
    write_tree(repo, {"serve.sh": "vllm serve ../outside/model --max-model-len 4096\n"})
    out = outputs(repo, ["--gpu", "L4", "."], fix=False)
    assert leaked(out, SECRET) == []
    r = invoke_in(repo, "explain", "--format", "json", "serve.sh")
    doc = json.loads(r.output)
    assert "outside the lint root" in doc["deployments"][0]["memory_unavailable"]


def test_named_paths_are_read_as_named(workspace: tuple[Path, Path]) -> None:
    """A file the user names on the command line is read wherever it is (the user's own choice)."""
    repo, outside = workspace
    write_tree(outside, {"mine.sh": "vllm serve m/x --max-model-len 4096 --max-model-lenn 1\n"})
    r = invoke_in(repo, "check", "--isolated", "--format", "json", str(outside / "mine.sh"))
    assert [f["code"] for f in json.loads(r.output)["findings"]] == ["VL001"]


def test_root_option_widens_the_root(workspace: tuple[Path, Path]) -> None:
    repo, outside = workspace
    tmp = repo.parent
    write_tree(outside, {"ok.yaml": "max-num-seqs: 8\n"})
    write_tree(repo, {"serve.sh": "vllm serve m/x --config ../outside/ok.yaml\n"})
    narrow = invoke_in(repo, "check", "--isolated", "--format", "json", "serve.sh")
    wide = invoke_in(repo, "check", "--isolated", "--format", "json", "--root", str(tmp), "serve.sh")
    assert "VL060" in [f["code"] for f in json.loads(narrow.output)["findings"]]
    assert "VL060" not in [f["code"] for f in json.loads(wide.output)["findings"]]


def test_paths_in_different_work_trees_do_not_open_the_folder_between_them(tmp_path: Path) -> None:
    """`vlint repoA/x repoB/y` (pre-commit in a monorepo checkout next to another, or a CI step that
    lints the checkout and a file in /tmp) must not make the common parent — often / — the root:
    each work tree is a folder of the root, and a file may not read between them."""
    from vlint.security.lint_root import find_root

    a, b = tmp_path / "a", tmp_path / "b"
    write_tree(a, {"serve.sh": "vllm serve m/x --config ../secret.yaml\n"})
    write_tree(b, {"serve.sh": "vllm serve m/x\n"})
    (a / ".git").mkdir()
    (b / ".git").mkdir()
    write_tree(tmp_path, {"secret.yaml": f"max-num-seqs: {SECRET}\n"})
    root = find_root([a / "serve.sh", b / "serve.sh"])
    assert set(root.folders) == {a.resolve(), b.resolve()}
    assert root.refusal(tmp_path / "secret.yaml") == "lies outside the lint root"
    assert root.refusal(b / "serve.sh") is None and root.refusal(a / ".git" / "config") is not None
    r = CliRunner().invoke(main, ["check", "--isolated", "--format", "json", str(a / "serve.sh"), str(b / "serve.sh")])
    assert SECRET not in r.output
    assert "VL060" in [f["code"] for f in json.loads(r.output)["findings"]]


def test_folders_without_a_work_tree_share_their_common_folder_but_never_the_machine(tmp_path: Path) -> None:
    from vlint.security.lint_root import find_root

    write_tree(tmp_path, {"x/a.sh": "", "y/b.sh": ""})
    assert find_root([tmp_path / "x" / "a.sh", tmp_path / "y" / "b.sh"]).folders == (tmp_path.resolve(),)
    other = Path(sys.prefix).resolve()  # a folder whose only common parent with tmp_path is /, usually
    if os.path.commonpath([other, tmp_path.resolve()]) != "/" or find_root([other]).how.startswith("the git"):
        pytest.skip("no folder here that shares only / with the temporary folder")
    machine = find_root([tmp_path / "x" / "a.sh", other / "x.sh"])
    assert machine.folders == ((tmp_path / "x").resolve(), other)
    assert machine.refusal(Path("/etc/passwd")) == "lies outside the lint root"
