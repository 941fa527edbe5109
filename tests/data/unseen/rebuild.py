"""Re-create ``files/`` of the unseen set (issue 29) from local git snapshots.

Usage::

    python tests/data/unseen/rebuild.py MIRROR_DIR [--only-missing]

``MIRROR_DIR`` holds one git directory per repository, named ``<owner>+<name>/repo``
(the layout the snapshot tool writes) or ``<owner>+<name>`` / ``<owner>__<name>`` (a bare
or ordinary clone). For every ``MANIFEST.json`` entry the blob ``<commit>:<path>`` is written
to ``files/<file>`` with ``git show`` and its sha256 compared with the manifest. Entries
whose repository or commit is not in the mirror are reported (``via: read_file`` entries
need the code index's stored text instead; write it exactly, then run this script again
to check the hash). Nothing from a snapshot is executed.

Exit status 0 when every file is present with the recorded hash, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def git_dir(mirror: Path, repo: str) -> Path | None:
    owner, name = repo.split("/", 1)
    for cand in (
        mirror / f"{owner}+{name}" / "repo",
        mirror / f"{owner}+{name}",
        mirror / f"{owner}__{name}",
    ):
        if (cand / "HEAD").is_file() or (cand / ".git").exists():
            return cand
    return None


def show(gdir: Path, commit: str, path: str) -> bytes | None:
    args = ["git", f"--git-dir={gdir}"] if (gdir / "HEAD").is_file() else ["git", "-C", str(gdir)]
    proc = subprocess.run([*args, "show", f"{commit}:{path}"], capture_output=True, check=False)
    return proc.stdout if proc.returncode == 0 else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mirror", type=Path)
    ap.add_argument("--only-missing", action="store_true", help="keep files already present with the right hash")
    ns = ap.parse_args(argv)
    manifest = json.loads((HERE / "MANIFEST.json").read_text(encoding="utf-8"))
    problems: list[str] = []
    written = 0
    for e in manifest:
        out = HERE / "files" / e["file"]
        present_ok = out.is_file() and hashlib.sha256(out.read_bytes()).hexdigest() == e["sha256"]
        if present_ok and (ns.only_missing or e["via"] != "fetch"):
            continue
        if e["via"] != "fetch":
            problems.append(f"{e['file']}: via {e['via']}, take its stored text at {e['commit']} and write it exactly")
            continue
        gdir = git_dir(ns.mirror, e["repo"])
        if gdir is None:
            problems.append(f"{e['file']}: no snapshot of {e['repo']} under {ns.mirror}")
            continue
        data = show(gdir, e["commit"], e["path"])
        if data is None:
            problems.append(f"{e['file']}: {e['commit']}:{e['path']} not in the snapshot of {e['repo']}")
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest != e["sha256"]:
            problems.append(f"{e['file']}: sha256 {digest} differs from the manifest's {e['sha256']}")
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        written += 1
    present = sum(
        1
        for e in manifest
        if (HERE / "files" / e["file"]).is_file()
        and hashlib.sha256((HERE / "files" / e["file"]).read_bytes()).hexdigest() == e["sha256"]
    )
    for p in problems:
        print("MISSING", p)
    print(f"{written} written, {present}/{len(manifest)} present with the manifest's sha256")
    return 0 if present == len(manifest) else 1


if __name__ == "__main__":
    sys.exit(main())
