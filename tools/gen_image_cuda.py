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
(``--target vllm-openai``), its literal value wins; a release whose image builds pass a variable or disagree
(x86 and aarch64 arch lists) is listed under ``missing``, as is any release whose Dockerfile cannot be read or
has neither value: vlint says nothing of those images.

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


def pipeline_args(text: str) -> dict[str, set[str]]:
    """``torch_cuda_arch_list`` / ``CUDA_VERSION`` build arguments the image builds (``--target vllm-openai``)
    of the release pipeline pass: name → the values seen (a command may span lines ending in ``\\``)."""
    joined = re.sub(r"\\\s*\n\s*", " ", text)
    seen: dict[str, set[str]] = {}
    for line in joined.splitlines():
        if "build" not in line or "--target vllm-openai" not in line:
            continue
        for m in re.finditer(r"--build-arg (torch_cuda_arch_list|CUDA_VERSION)=(\"[^\"]*\"|'[^']*'|\S+)", line):
            seen.setdefault(m.group(1), set()).add(m.group(2).strip("\"'"))
    return seen


def apply_pipeline(parsed: dict[str, object], pipeline: str) -> str | None:
    """Replace the Dockerfile's defaults by the release pipeline's literal build arguments; why not (a string)
    when the image builds disagree or pass a variable."""
    for key, values in pipeline_args(pipeline).items():
        if len(values) != 1 or any("$" in v for v in values):
            return f"{PIPELINE}: the image builds pass {key}={' / '.join(sorted(values))}"
        (value,) = values
        if key == "CUDA_VERSION":
            parsed["cuda"], parsed["cuda_line"] = value, PIPELINE
        else:
            parsed["arch_list"], parsed["arch_line"] = value.replace(";", " ").split(), PIPELINE
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
    return f"no {' or '.join(DOCKERFILES)} in {where}"


def _cite(release: str, path: str, line: object) -> str:
    if line == PIPELINE:
        return f"vllm-project/vllm@v{release} {PIPELINE} (image build argument)"
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
