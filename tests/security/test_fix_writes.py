"""``vlint fix`` writes only linted files inside the lint root, never through a symbolic link, never
splitting hard links, keeping the file's mode."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .leaks import invoke_in, write_tree

ABBREVIATED = "vllm serve m/x --max-model 4096\n"  # VL005: the safe fix spells --max-model-len
FIXED = "vllm serve m/x --max-model-len 4096\n"


def fix(repo: Path, *args: str) -> str:
    return invoke_in(repo, "fix", "--isolated", *args).output


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    return repo


def test_a_plain_file_is_fixed_and_keeps_its_mode(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write_tree(repo, {"serve.sh": ABBREVIATED})
    os.chmod(repo / "serve.sh", 0o751)
    fix(repo, "serve.sh")
    assert (repo / "serve.sh").read_text() == FIXED
    assert stat.S_IMODE(os.stat(repo / "serve.sh").st_mode) == 0o751
    assert not [p for p in repo.iterdir() if p.name.endswith(".vlint")]


def test_a_symlink_inside_the_repo_is_not_replaced(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write_tree(repo, {"real/serve.sh": ABBREVIATED})
    (repo / "serve.sh").symlink_to(repo / "real" / "serve.sh")
    out = fix(repo, "serve.sh")
    assert (repo / "serve.sh").is_symlink()
    assert (repo / "real" / "serve.sh").read_text() == ABBREVIATED
    assert "not fixed" in out and "symbolic link" in out


def test_a_symlink_out_of_the_repo_is_never_written(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write_tree(tmp_path, {"outside/serve.sh": ABBREVIATED})
    (repo / "serve.sh").symlink_to(tmp_path / "outside" / "serve.sh")
    fix(repo, ".")
    assert (repo / "serve.sh").is_symlink()
    assert (tmp_path / "outside" / "serve.sh").read_text() == ABBREVIATED


def test_a_config_file_outside_the_root_is_not_rewritten(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write_tree(tmp_path, {"outside/serve.yaml": "max-model: 4096\n"})
    write_tree(repo, {"serve.sh": "vllm serve m/x --config ../outside/serve.yaml\n"})
    fix(repo, "--unsafe-fixes", "serve.sh")
    assert (tmp_path / "outside" / "serve.yaml").read_text() == "max-model: 4096\n"


def test_a_hard_linked_file_is_not_split(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write_tree(repo, {"serve.sh": ABBREVIATED})
    os.link(repo / "serve.sh", repo / "copy.sh")
    out = fix(repo, "serve.sh")
    assert "hard links" in out
    assert os.stat(repo / "serve.sh").st_ino == os.stat(repo / "copy.sh").st_ino
    assert (repo / "copy.sh").read_text() == ABBREVIATED


def test_diff_shows_the_same_refusals(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write_tree(repo, {"real/serve.sh": ABBREVIATED})
    (repo / "serve.sh").symlink_to(repo / "real" / "serve.sh")
    out = fix(repo, "--diff", "serve.sh")
    assert "+vllm serve" not in out
