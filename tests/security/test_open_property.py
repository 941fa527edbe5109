"""Property: for random trees of files, folders and symbolic links (``..`` through links included),
every path vlint opens on its own resolves inside the lint root and outside ``.git/`` (issue 30).

Each example builds a workspace — a checkout ``repo/`` with a ``.git`` folder, a sibling ``outside/``
folder — adds random folders and links (to folders and files inside, outside and in ``.git``, and
chains of links), then writes files of several formats that name random paths through those links
(``a/../b``, ``link/../x``, ``link/link2/../../y``). vlint lints the checkout in process; the audit
hook of :mod:`tests.security.opened` records every open, and none may resolve outside ``repo/`` or
into ``repo/.git``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, lint_paths
from vlint.security.lint_root import find_root

from .opened import escapes, recording

NAMES = ("a", "b", "c", "cfg", "env")
#: places a link may point to, relative to the workspace (inside, outside, the git folder, itself)
TARGETS = ("repo", "repo/a", "repo/b/c", "repo/.git", "repo/.git/refs", "outside", "outside/deep", "..", "/etc", "/")
#: files that name another file, one per format that reads linked files ({ref}: the path named)
NAMERS = {
    "serve.sh": "vllm serve m/x --config {ref}\n",
    "run.sh": ". {ref}\nvllm serve m/x --max-num-seqs $N\n",
    "docker-compose.yaml": "services:\n  v:\n    image: vllm/vllm-openai:v0.10.2\n"
    '    command: ["m/x", "--max-num-seqs", "${{N}}"]\n    env_file: {ref}\n',
    "vllm.service": "[Service]\nEnvironmentFile={ref}\nExecStart=/usr/bin/vllm serve m/x --max-num-seqs ${{N}}\n",
    "Makefile": "include {ref}\nserve:\n\tvllm serve m/x --max-num-seqs $(N)\n",
}

segment = st.sampled_from((*NAMES, "..", ".", "link0", "link1", "link2", ".git", "config", "x.yaml", "deep"))
#: what follows the link: mostly a way to a file that exists beside or below some target, else anything
tail = st.one_of(
    st.sampled_from((("..", "config"), ("config",), ("x.yaml",), ("..", "deep", "x.yaml"), ("..", "..", "config"))),
    st.lists(st.sampled_from(("..", "config", "x.yaml", "deep", "refs", ".git", "link0")), min_size=1, max_size=3),
)
link = st.tuples(st.sampled_from(("repo", "repo/a", "repo/b")), st.sampled_from(TARGETS))


@st.composite
def tree(draw: st.DrawFn) -> dict:
    """Folders, links, and files naming paths — most of them through one of the links (from the
    naming file's folder ``repo/dK`` up to the link, then ``..`` and on), the rest any path."""
    links = draw(st.lists(link, min_size=1, max_size=3))
    refs = []
    for _ in range(draw(st.integers(1, 4))):
        namer = draw(st.sampled_from(sorted(NAMERS)))
        if draw(st.booleans()) or draw(st.booleans()):
            k = draw(st.integers(0, len(links) - 1))
            up = "/".join(["..", *links[k][0].split("/")[1:]])
            ref = "/".join((up, f"link{k}", *draw(tail)))
        else:
            ref = "/".join(draw(st.lists(segment, min_size=1, max_size=5)))
        refs.append((namer, ref))
    folders = draw(st.lists(st.sampled_from(("repo/a", "repo/b/c", "repo/cfg", "outside/deep")), max_size=4))
    return {"folders": folders, "links": links, "refs": refs}


ENGINE = Engine(load_catalog())


def _build(work: Path, spec: dict) -> Path:
    repo = work / "repo"
    for rel in ("repo/.git/refs", "outside/deep", *spec["folders"]):
        (work / rel).mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "config").write_text("[core]\n\tN = secret\n")
    (work / "outside" / "config").write_text("N=secret\n")
    (work / "outside" / "deep" / "x.yaml").write_text("max-num-seqs: 1\n")
    for k, (where, target) in enumerate(spec["links"]):
        folder = work / where
        folder.mkdir(parents=True, exist_ok=True)
        dest = Path(target) if target.startswith("/") else os.path.relpath(work / target, folder)
        name = folder / f"link{k}"
        if not os.path.lexists(name):
            name.symlink_to(dest)
    for k, (namer, ref) in enumerate(spec["refs"]):
        (repo / f"d{k}").mkdir(exist_ok=True)
        (repo / f"d{k}" / namer).write_text(NAMERS[namer].format(ref=ref))
    return repo


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree())
def test_every_open_resolves_inside_the_root_and_outside_git(spec: dict) -> None:
    work = Path(tempfile.mkdtemp(prefix="vlint-prop-"))
    try:
        repo = _build(work, spec)
        root = find_root([repo])
        opts = LintOptions(root=repo, lint_root=root, render=False, jobs=1)
        with recording() as opened:
            lint_paths([repo], ENGINE, opts)
        assert escapes(opened, repo) == [], spec
    finally:
        shutil.rmtree(work, ignore_errors=True)
