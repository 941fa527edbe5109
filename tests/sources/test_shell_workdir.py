"""Where a shell script runs (the ``workdir`` / ``workdir_assumed`` facts) and what it writes before a
launch (``created_paths``): :mod:`vlint.sources.scripts.workdir`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sources.test_shell import one
from vlint.sources.scripts.workdir import Created, created_by, created_match, script_folder_path

SCRIPT_DIR = '$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)'


@pytest.mark.parametrize(
    ("raw", "folder"),
    [
        ('"$(dirname "$0")"', ""),
        ("$(dirname $0)", ""),
        ("`dirname $0`", ""),
        ('"${0%/*}"', ""),
        ('"${BASH_SOURCE[0]%/*}"', ""),
        ('"$(dirname "${BASH_SOURCE[0]}")"/..', ".."),
        (SCRIPT_DIR, ""),
        ('$(cd -P "$(dirname "$0")" >/dev/null 2>&1; pwd -P)', ""),
        ("$(dirname $(readlink -f $0))", ""),
        ('"$(dirname "$(realpath "$0")")/sub/"', "sub"),
        ('"$SCRIPT_DIR/conf"', "conf"),
    ],
)
def test_the_scripts_own_folder_is_recognised(raw: str, folder: str) -> None:
    assert script_folder_path(raw, {"SCRIPT_DIR": SCRIPT_DIR}) == folder


@pytest.mark.parametrize(
    "raw", ["$1", '"$HOME"', '$(dirname "$1")', "$0x", '"$(dirname "$0")"/$SUB', "$(pwd)", '"$OTHER"', "${0}.d"]
)
def test_other_words_are_not_the_scripts_folder(raw: str) -> None:
    assert script_folder_path(raw, {"OTHER": "$(mktemp -d)"}) is None


def _made(*words: str, redirects: tuple[str, ...] = (), cwd: str = "") -> list[tuple[str, bool, str]]:
    return [(c.path, c.folder, c.how) for c in created_by([(w, True) for w in words], list(redirects), cwd, 1)]


def test_downloads_copies_and_redirections_are_written_paths() -> None:
    assert _made("wget", "-q", "-O", "t.jinja", "https://h/x") == [("t.jinja", False, "wget -O")]
    assert _made("wget", "https://h/a/qwen.jinja?raw=1", cwd="sub") == [("sub/qwen.jinja", False, "wget")]
    assert _made("curl", "-L", "-o", "tpl/a.jinja", "https://h/x") == [("tpl/a.jinja", False, "curl -o")]
    assert _made("curl", "-fsSLO", "https://h/b.jinja") == [("b.jinja", False, "curl -O")]
    assert _made("cp", "../t/a.jinja", "b/") == [("b/a.jinja", False, "cp"), ("b", True, "cp")]
    assert _made("sudo", "cp", "-t", "dst", "x.yaml") == [("dst/x.yaml", False, "cp"), ("dst", True, "cp")]
    assert _made("git", "clone", "https://g/r.git") == [("r", True, "git clone")]
    assert _made("tar", "-xzf", "a.tgz", "-C", "out") == [("out", True, "tar -x")]
    assert _made("hf", "download", "m", "--local-dir", "models") == [("models", True, "hf download --local-dir")]
    # a copy's target may be a folder (the file lands inside) or the file itself: both are taken
    assert _made("gsutil", "-m", "cp", "gs://b/t.jinja", "t.jinja") == [
        ("t.jinja/t.jinja", False, "cp"),
        ("t.jinja", False, "cp"),
    ]
    assert _made("echo", "x", redirects=("out.log", "/dev/null")) == [("out.log", False, "an output redirection")]


def test_commands_that_write_nothing_are_not_taken() -> None:
    assert _made("echo", "hi") == []
    assert _made("curl", "https://h/t.jinja") == []  # to stdout
    assert _made("wget", "-O", "-", "https://h/t.jinja") == []
    assert _made("tar", "-czf", "a.tgz", "dir") == []  # creates the archive only through -f: not a folder
    assert _made("cp", "only-one-operand") == []


def test_created_match_finds_the_file_or_a_folder_holding_it() -> None:
    made = [Created("tpls", True, "git clone", 2), Created("a.jinja", False, "wget -O", 3)]
    assert created_match(made, "tpls/x/q.jinja") == made[0]
    assert created_match(made, "./a.jinja") == made[1]
    assert created_match(made, "tplsx/q.jinja") is None and created_match(made, "b.jinja") is None


def test_workdir_facts_of_a_launch() -> None:
    inv = one('cd "$(dirname "$0")"\ncd conf\nvllm serve m\n')
    assert inv.facts["workdir"].value == "conf" and inv.facts["workdir"].span.line == 2
    assert "workdir_assumed" not in inv.facts
    inv = one("cd conf\nvllm serve m\n")  # relative to a folder the file does not name
    assert "workdir" not in inv.facts and inv.facts["workdir_assumed"].value == "conf"
    inv = one("cd /srv/app\nvllm serve m\n")
    assert inv.facts["workdir"].value == "/srv/app"


def test_a_cd_that_may_not_run_or_goes_nowhere_known_unsets_it() -> None:
    for text in (
        'cd "$(dirname "$0")"\ncd "$1"\nvllm serve m\n',
        'cd "$(dirname "$0")"\n[ -d x ] && cd x\nvllm serve m\n',
        'cd "$(dirname "$0")"\npushd x\npopd\nvllm serve m\n',
        'cd "$(dirname "$0")"\ncd\nvllm serve m\n',
    ):
        assert "workdir" not in one(text).facts, text


def test_a_bash_c_body_runs_where_the_outer_script_is() -> None:
    inv = one('cd "$(dirname "$0")"/..\nbash -c "vllm serve m"\n')
    assert inv.facts["workdir"].value == ".."


def test_created_paths_before_the_launch_only() -> None:
    inv = one("wget -O a.jinja https://h/a\nvllm serve m\nwget -O b.jinja https://h/b\n")
    assert [c.path for c in inv.facts["created_paths"].value] == ["a.jinja"]


def test_a_missing_config_is_an_error_only_where_the_folder_is_known(tmp_path: Path) -> None:
    """VL038: vLLM's open() of a relative --config resolves against its working folder ([0.33.0]
    vllm/utils/argparse_utils.py:638-651)."""
    (p,) = one("vllm serve m --config c.yaml\n", tmp_path=tmp_path).problems
    assert (p.code, p.severity) == ("VL038", "warning") and "assumed" in p.message
    (p,) = one('cd "$(dirname "$0")"\nvllm serve m --config c.yaml\n', tmp_path=tmp_path).problems
    assert (p.code, p.severity) == ("VL038", None) and "No such file or directory: 'c.yaml'" in p.message
    (p,) = one(
        'cd "$(dirname "$0")"\nwget -O c.yaml https://h/c\nvllm serve m --config c.yaml\n', tmp_path=tmp_path
    ).problems
    assert p.code == "VL010" and "written by the script (wget -O, line 2)" in p.message
