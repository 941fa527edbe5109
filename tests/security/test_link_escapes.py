"""``link/../FILE``: the check and the open must resolve the same path (issue 30, item 1).

The kernel walks ``gitrefs/../config`` by following ``gitrefs`` first, so ``..`` climbs from the
link's *target*; a check that folds ``link/..`` away lexically tests one file while the open reads
another. Each case builds a CI workspace whose checkout holds a link into ``.git`` (``.git/config``
holds the token ``actions/checkout`` writes) or out of the checkout (``ci.env`` beside it), and a
file that names ``link/../FILE`` in one of the formats that read linked files. vlint must open
neither file (the audit hook of :mod:`tests.security.opened` sees every open), print the secret in
no output format, report the reference by path (VL060), and still lint the other files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlint.security.lint_root import LintRoot, Refused

from .leaks import invoke_in, leaked, outputs, write_tree
from .opened import escapes, recording

SECRET = "ghs_Q8vKz3LmN7pRt2XwY5aB9cD1eF4gH6jK0sUv"
GIT_CONFIG = f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {SECRET}\n'
CI_ENV = f"VLLM_API_KEY={SECRET}\nMAX_SEQS={SECRET}\n"
OTHER = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --max-model-lenn 1\n"


@pytest.fixture
def ci(tmp_path: Path) -> tuple[Path, Path]:
    """``work/repo`` (the checkout, with ``.git/config``, a link ``gitrefs`` → ``.git/refs`` and a
    link ``out`` → ``work/outside/sub``) and ``work/outside/ci.env`` beside the link's target."""
    work = tmp_path / "work"
    repo = work / "repo"
    write_tree(repo, {"other/run.sh": OTHER, ".git/refs/heads/main": "0" * 40 + "\n", ".git/config": GIT_CONFIG})
    write_tree(work, {"outside/ci.env": CI_ENV, "outside/sub/readme": "x\n"})
    (repo / "gitrefs").symlink_to(repo / ".git" / "refs")
    (repo / "out").symlink_to(work / "outside" / "sub")
    return repo, work


#: (case, files; ``{ref}`` is replaced by the link path to the secret file)
CASES = {
    "systemd EnvironmentFile": {
        "vllm.service": "[Service]\nEnvironmentFile={ref}\n"
        "ExecStart=/usr/bin/vllm serve m/x --max-num-seqs ${{MAX_SEQS}} --api-key ${{VLLM_API_KEY}}\n"
    },
    "compose env_file": {
        "docker-compose.yaml": "services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.2\n"
        '    command: ["m/x", "--max-num-seqs", "${{MAX_SEQS}}"]\n    env_file: {ref}\n'
    },
    "shell --config": {"serve.sh": "vllm serve m/x --config {ref}\n"},
    "shell source": {"serve.sh": ". {ref}\nvllm serve m/x --max-num-seqs $MAX_SEQS\n"},
    "Makefile include": {"Makefile": "include {ref}\nserve:\n\tvllm serve m/x --max-num-seqs $(MAX_SEQS)\n"},
    "Dockerfile COPY": {
        "Dockerfile": "FROM vllm/vllm-openai:v0.10.2\nCOPY {ref} /srv/x.yaml\n"
        'CMD ["--model", "m/x", "--config", "/srv/x.yaml"]\n'
    },
}
#: the secret file, by the link that reaches it
REFS = {"gitrefs/../config": ".git/config", "out/../ci.env": "../outside/ci.env"}


@pytest.mark.parametrize("ref", sorted(REFS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_link_then_dot_dot_is_resolved_before_the_check(ci: tuple[Path, Path], case: str, ref: str) -> None:
    repo, _ = ci
    write_tree(repo, {name: text.format(ref=ref) for name, text in CASES[case].items()})
    with recording() as opened:
        out = outputs(repo, fix=False)
    assert leaked(out, SECRET) == [], case
    written = (*repo.parent.glob("report.*"), repo.parent / "baseline.json")  # what the test reads back
    assert escapes(opened, repo, written) == [], case
    doc = json.loads(invoke_in(repo, "check", "--isolated", "--format", "json", ".").output)
    codes = [(f["code"], f["path"]) for f in doc["findings"]]
    assert any(c == "VL001" and p == "other/run.sh" for c, p in codes), "the other file is still linted"
    assert any(c == "VL060" for c, _ in codes), (case, codes)


def test_the_root_resolves_links_in_the_kernels_order(ci: tuple[Path, Path]) -> None:
    repo, _ = ci
    root = LintRoot(repo.resolve())
    with pytest.raises(Refused, match="version-control folder"):
        root.resolve(repo / "gitrefs" / ".." / "config")
    with pytest.raises(Refused, match="outside the lint root"):
        root.resolve(repo / "out" / ".." / "ci.env")
    assert root.resolve(repo / "other" / ".." / "other" / "run.sh")[0] == (repo / "other" / "run.sh").resolve()
    assert root.read_bytes(repo / "other" / "run.sh", 1 << 20) == OTHER.encode()


def test_a_link_swapped_in_after_the_check_is_not_followed(ci: tuple[Path, Path], tmp_path: Path) -> None:
    """The open walks the checked real path component by component without following links: a link
    that appears between the check and the open (a race) fails the open instead of leading out."""
    from vlint.security.lint_root import open_beneath

    repo, work = ci
    (repo / "cfg").mkdir()
    (repo / "cfg" / "x.yaml").write_text("max-num-seqs: 8\n")
    parts = ("cfg", "x.yaml")
    assert open_beneath(repo.resolve(), parts) > 0
    (repo / "cfg" / "x.yaml").unlink()
    (repo / "cfg" / "x.yaml").symlink_to(work / "outside" / "ci.env")
    with pytest.raises(OSError):
        open_beneath(repo.resolve(), parts)
    (repo / "cfg" / "x.yaml").unlink()
    (repo / "cfg").rmdir()
    (repo / "cfg").symlink_to(work / "outside" / "sub")
    with pytest.raises(OSError):
        open_beneath(repo.resolve(), ("cfg", "readme"))


def test_the_language_server_reads_linked_files_the_same_way(ci: tuple[Path, Path]) -> None:
    """An editor with the repository open: the buffer names ``gitrefs/../config``; the server's
    diagnostics must not carry the secret and the file is not opened."""
    from vlint.server.session import Session

    repo, _ = ci
    text = "vllm serve m/x --config gitrefs/../config\n"
    write_tree(repo, {"serve.sh": text})
    session = Session([repo])
    session.open((repo / "serve.sh").as_uri(), repo / "serve.sh", 1, text)
    with recording() as opened:
        result = session.lint(repo / "serve.sh")
    assert escapes(opened, repo) == []
    assert result.report is not None
    assert "VL060" in [f.code for f in result.report.findings]
    shown = json.dumps([d.message for d in result.diagnostics] + [f.message for f in result.report.findings])
    assert SECRET[4:10] not in shown
