"""Generate ``vlint/data/image_cuda.json``: the CUDA version and ``TORCH_CUDA_ARCH_LIST`` each bundled vLLM
release's official ``vllm/vllm-openai`` image was built with, read from vLLM's own Dockerfile of that release.

The file is ``docker/Dockerfile`` (``Dockerfile`` at the root before vLLM moved it). Two inputs give it:

- ``--git-dir DIR``: a vLLM git directory; the release ``X.Y.Z`` is read at tag ``vX.Y.Z``
  (``git show vX.Y.Z:docker/Dockerfile``);
- ``--sdist-dir DIR``: ``DIR/<release>/`` holds the files of the PyPI source distribution
  ``vllm-<release>.tar.gz`` (built from that tag by vLLM's release pipeline), as unpacked by
  ``pip download --no-binary :all: --no-clean vllm==<release>``.

The values read are the Dockerfile's defaults: ``ARG CUDA_VERSION=…`` (the first, global one) and
``ARG torch_cuda_arch_list='…'`` (``ENV TORCH_CUDA_ARCH_LIST=${torch_cuda_arch_list}``), or a literal
``ENV TORCH_CUDA_ARCH_LIST=…``. Where the release pipeline (``.buildkite/release-pipeline.yaml``, when
the input has it) passes its own ``torch_cuda_arch_list`` or ``CUDA_VERSION`` to the image builds
(``--target vllm-openai``), its value (a literal, or a variable the pipeline sets) wins; a release whose
image builds pass a variable with no literal value is listed under ``missing``; where the image builds differ
(x86 and aarch64, CUDA variants) the entry keeps every CUDA version and the union of the arch lists, so a GPU
is reported only when no build of that release has code for it. A release whose Dockerfile cannot be read or
has neither value is listed under ``missing`` too: vlint says nothing of those images.

    python tools/gen_image_cuda.py --sdist-dir /tmp/sd/out            # writes vlint/data/image_cuda.json
    python tools/gen_image_cuda.py --git-dir /path/to/vllm.git
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "vlint" / "data" / "image_cuda.json"
INDEX = ROOT / "schemas" / "vllm" / "index.json"
DOCKERFILES = ("docker/Dockerfile", "Dockerfile")
PIPELINE = ".buildkite/release-pipeline.yaml"

_CUDA = re.compile(r"^\s*ARG\s+CUDA_VERSION\s*=\s*[\"']?([0-9][0-9.]*)[\"']?\s*$")
_ARCH_ARG = re.compile(r"^\s*ARG\s+torch_cuda_arch_list\s*=\s*([\"'])(.*?)\1\s*$")
_ARCH_ENV = re.compile(r"^\s*ENV\s+TORCH_CUDA_ARCH_LIST\s*=?\s*([\"']?)([^$\"']+?)\1\s*$")
_ARCH_ENTRY = re.compile(r"^\d+\.\d+a?(\+PTX)?$")


def parse_dockerfile(text: str) -> dict[str, object] | str:
    """``{"cuda", "cuda_line", "arch_list", "arch_line"}`` from a Dockerfile's text, or why not (a string)."""
    cuda = arch = None
    cuda_line = arch_line = 0
    for n, line in enumerate(text.splitlines(), 1):
        if cuda is None and (m := _CUDA.match(line)):
            cuda, cuda_line = m.group(1), n
        if arch is None and ((m := _ARCH_ARG.match(line)) or (m := _ARCH_ENV.match(line))):
            arch, arch_line = m.group(2).strip(), n
    if cuda is None:
        return "no ARG CUDA_VERSION default"
    if arch is None:
        return "no torch_cuda_arch_list / TORCH_CUDA_ARCH_LIST default"
    entries = arch.replace(";", " ").split()
    if not entries or not all(_ARCH_ENTRY.match(e) for e in entries):
        return f"arch list {arch!r} not of the form 'X.Y X.Y+PTX'"
    return {"cuda": cuda, "cuda_line": cuda_line, "arch_list": entries, "arch_line": arch_line}


def _resolve(value: str, text: str) -> str | None:
    """``${CUDA_ARCH_X86}`` → the pipeline's ``CUDA_ARCH_X86: "…"``; None when a variable has no literal value."""

    def var(m: re.Match[str]) -> str:
        d = re.search(rf"^\s*{re.escape(m.group(1))}\s*:\s*[\"']([^\"'$]*)[\"']\s*$", text, re.MULTILINE)
        return d.group(1) if d else "\0"

    out = re.sub(r"\$\{?(\w+)\}?", var, value)
    return None if "\0" in out else out


def image_builds(text: str, cuda: str, arch: list[str]) -> list[tuple[str, list[str]]] | str:
    """(CUDA version, arch list) of every image build (``--target vllm-openai``) of the release pipeline, the
    Dockerfile's defaults where a build passes none; why not (a string) when a value cannot be resolved. A
    command may span lines ending in ``\\``."""
    joined = re.sub(r"\\\s*\n\s*", " ", text)
    builds: list[tuple[str, list[str]]] = []
    for line in joined.splitlines():
        if "build" not in line or "--target vllm-openai" not in line:
            continue
        got = {"CUDA_VERSION": cuda, "torch_cuda_arch_list": " ".join(arch)}
        for m in re.finditer(r"--build-arg (torch_cuda_arch_list|CUDA_VERSION)=(\"[^\"]*\"|'[^']*'|\S+)", line):
            value = _resolve(m.group(2).strip("\\\"'"), text)
            if value is None:
                return f"{PIPELINE}: {m.group(0)} names a variable with no literal value"
            got[m.group(1)] = value
        builds.append((got["CUDA_VERSION"], got["torch_cuda_arch_list"].replace(";", " ").split()))
    return builds


def apply_pipeline(parsed: dict[str, object], pipeline: str) -> str | None:
    """Where the release pipeline's image builds pass their own values, the table keeps every build's: the
    CUDA versions (``12.9.1 / 13.0.2``) and the union of the arch lists (a GPU is reported only when no build of
    the release has code for it). Why not (a string) when a value cannot be read."""
    builds = image_builds(pipeline, str(parsed["cuda"]), list(parsed["arch_list"]))  # type: ignore[call-overload]
    if isinstance(builds, str):
        return builds
    if not builds:
        return None
    cudas = sorted({c for c, _ in builds})
    union: list[str] = []
    for _, arch in builds:
        union += [e for e in arch if e not in union]
    if cudas != [parsed["cuda"]]:
        parsed["cuda"], parsed["cuda_line"] = " / ".join(cudas), PIPELINE
    if union != parsed["arch_list"]:
        parsed["arch_list"], parsed["arch_line"] = union, PIPELINE
    return None


def _git_show(git_dir: Path, ref: str) -> str | None:
    r = subprocess.run(["git", "--git-dir", str(git_dir), "show", ref], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def read_release(release: str, git_dir: Path | None, sdist_dir: Path | None) -> tuple[str, str, str | None] | str:
    """(Dockerfile path, its text, the release pipeline's text or None), or why it cannot be read."""
    for path in DOCKERFILES:
        if git_dir is not None:
            text = _git_show(git_dir, f"v{release}:{path}")
            if text is not None:
                return path, text, _git_show(git_dir, f"v{release}:{PIPELINE}")
        elif sdist_dir is not None:
            f = sdist_dir / release / path
            if f.is_file():
                p = sdist_dir / release / PIPELINE
                return path, f.read_text(), p.read_text() if p.is_file() else None
    where = f"tag v{release}" if git_dir is not None else f"the sdist vllm-{release}.tar.gz"
    if sdist_dir is not None and not (sdist_dir / release / "PKG-INFO").is_file():
        return f"the sdist vllm-{release}.tar.gz was not read (not downloaded or not unpacked)"
    return f"no {' or '.join(DOCKERFILES)} in {where}"


def _cite(release: str, path: str, line: object) -> str:
    if line == PIPELINE:
        return f"vllm-project/vllm@v{release} {PIPELINE} (the image builds' arguments)"
    return f"vllm-project/vllm@v{release} {path}:{line}"


def generate(releases: list[str], git_dir: Path | None, sdist_dir: Path | None) -> dict[str, object]:
    table: dict[str, object] = {}
    missing: dict[str, str] = {}
    via = "git tag" if git_dir is not None else "PyPI sdist vllm-<release>.tar.gz (pip download --no-binary :all:)"
    for release in releases:
        got = read_release(release, git_dir, sdist_dir)
        if isinstance(got, str):
            missing[release] = got
            continue
        path, text, pipeline = got
        parsed = parse_dockerfile(text)
        if isinstance(parsed, str):
            missing[release] = f"{path}: {parsed}"
            continue
        why = apply_pipeline(parsed, pipeline) if pipeline else None
        if why is not None:
            missing[release] = why
            continue
        table[release] = {
            "cuda": parsed["cuda"],
            "arch_list": parsed["arch_list"],
            "source": _cite(release, path, parsed["arch_line"]),
            "cuda_source": _cite(release, path, parsed["cuda_line"]),
        }
    return {
        "about": (
            "CUDA version and TORCH_CUDA_ARCH_LIST of the official vllm/vllm-openai image of each release: the "
            "defaults of vLLM's Dockerfile at that release (tools/gen_image_cuda.py; read from: " + via + ")"
        ),
        "releases": table,
        "missing": missing,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--git-dir", type=Path)
    src.add_argument("--sdist-dir", type=Path)
    ap.add_argument("--out", type=Path, default=OUT)
    ns = ap.parse_args(argv)
    releases = json.loads(INDEX.read_text())["versions"]
    data = generate(releases, ns.git_dir, ns.sdist_dir)
    ns.out.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    print(f"{len(data['releases'])} releases with data, {len(data['missing'])} missing -> {ns.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
