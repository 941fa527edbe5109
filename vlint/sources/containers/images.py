"""Container images: what vLLM version a tag names, and what the image runs by default.

Only tags that name a vLLM release unambiguously are trusted (``vllm/vllm-openai:v0.10.2``, also
behind a registry host or mirror path and with a suffix: ``registry.corp/mirror/vllm/vllm-openai:v0.10.2-cu124``;
``rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521``), an image named after vLLM whose tag is a vLLM release vlint
knows followed by a build suffix (``aibrix/vllm-openai-aibrix-kvcache-nixl:v0.10.2-nixl-0.7.1``: a custom build
of vLLM 0.10.2, the suffix ignored and said so), plus the images of other vendors whose release notes
state the vLLM they ship (:data:`VENDOR_RELEASES`, each with its evidence). ``lmcache/vllm-openai:v0.3.1``
is an LMCache version, ``vllm/vllm-openai:latest`` and a ``@sha256`` digest are whatever was pushed:
none names a vLLM version, and the report says "version unknown" with the release assumed.
"""

from __future__ import annotations

import re

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import record
from vlint.core.version import Version

_OFFICIAL_REPOS = {
    "vllm/vllm-openai",
    "vllm/vllm-openai-rocm",
    "vllm/vllm-tpu",
    "vllm/vllm-cpu",
    "vllm/vllm-xpu",
    "vllm/vllm-omni",
    "vllm/vllm-openai-cpu",
}
#: the last path components of the official images (a mirror keeps them: ``mirror/vllm/vllm-openai``)
_OFFICIAL_NAMES = {r.rsplit("/", 1)[-1] for r in _OFFICIAL_REPOS}
_VERSION_TAG = lazy_compile(r"^v?(\d+\.\d+\.\d+(?:\.post\d+|\.\d+)?)(?:$|[-_+].*)")
#: ``v0.10.2-nixl-0.7.1``: a release, a dash, then a build suffix (of a custom image named after vLLM)
_SUFFIXED_TAG = lazy_compile(r"^v?(\d+\.\d+\.\d+(?:\.post\d+)?)-([A-Za-z0-9][\w.+-]*)$")
_EMBEDDED = lazy_compile(r"vllm[-_]?v?(\d+\.\d+\.\d+(?:\.post\d+)?)", re.IGNORECASE)
_FLOATING = {"latest", "nightly", "main", "dev", "edge", "stable", "latest-nightly"}
_FLOATING_TAG = lazy_compile(r"(^|[-_.])(latest|nightly|main|master|dev|edge|stable|head)([-_.]|$)", re.IGNORECASE)


def unpinned_why(ref: ImageRef) -> str | None:
    """Why the image is not pinned (VL603: ``latest``, a nightly or branch tag, no tag), or None when it
    is (a digest, a release tag) or is a one-word local build name (``docker build -t vllm .``)."""
    if ref.digest or ("/" not in ref.repository and not ref.registry):
        return None
    tag = ref.tag
    if tag and ref.pinned and not _FLOATING_TAG.search(tag):
        return None
    return "no tag, so `latest`" if not tag else f"`{tag}` moves to a new build"


@record(frozen=True, slots=True)
class ImageRef:
    raw: str
    registry: str
    repository: str  # without registry, e.g. "vllm/vllm-openai"
    tag: str  # "" when absent (means latest)
    digest: str

    @property
    def name(self) -> str:
        """The last path component: ``vllm-openai``."""
        return self.repository.rsplit("/", 1)[-1]

    @property
    def pinned(self) -> bool:
        """True when a digest is given or the tag is not a floating one."""
        if self.digest:
            return True
        tag = self.tag.lower()
        return bool(tag) and tag not in _FLOATING and "nightly" not in tag and not tag.startswith("latest")

    @property
    def is_vllm(self) -> bool:
        """Does the image ship vLLM (by its name)?"""
        return "vllm" in self.repository.lower()


def parse_image(text: str) -> ImageRef | None:
    """Split ``registry/repo:tag@digest``; None for empty or templated references."""
    raw = text.strip()
    if not raw or any(c in raw for c in "{}$ "):
        return None
    digest = ""
    if "@" in raw:
        raw_nodigest, digest = raw.split("@", 1)
    else:
        raw_nodigest = raw
    tag = ""
    last = raw_nodigest.rsplit("/", 1)[-1]
    if ":" in last:
        tag = last.split(":", 1)[1]
        raw_nodigest = raw_nodigest[: len(raw_nodigest) - len(tag) - 1]
    parts = raw_nodigest.split("/")
    registry = ""
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        registry = parts[0]
        parts = parts[1:]
    repository = "/".join(parts)
    if registry in ("docker.io", "index.docker.io", "registry-1.docker.io"):
        registry = ""
        if repository.startswith("library/"):
            repository = repository[len("library/") :]
    return ImageRef(text.strip(), registry, repository, tag, digest)


def image_vllm_version(image: ImageRef) -> Version | None:
    """The vLLM release an image tag names, when it names one unambiguously."""
    tag = image.tag
    if not tag:
        return None
    m = _EMBEDDED.search(tag)
    if m:
        return Version.try_parse(m.group(1))
    if _is_official(image) or (image.name.lower() == "vllm" and not _vendor(image)):
        m = _VERSION_TAG.match(tag)
        if m:
            return Version.try_parse(m.group(1))
    suffixed = suffixed_release(image)
    if suffixed is not None:
        return suffixed[0]
    found = vendor_release(image)
    return found[0] if found else None


def suffixed_release(image: ImageRef) -> tuple[Version, str] | None:
    """(vLLM release, ignored suffix) for a custom build named after vLLM whose tag is a release vlint
    knows plus a build suffix: ``acme/vllm-nixl:v0.10.2-nixl-xxx`` → (0.10.2, ``nixl-xxx``).

    Only images whose own name (the last path component, not the organisation: ``vllm-project/router``
    is not vLLM) contains ``vllm``, that are not vendor images with their own release numbers
    (:data:`VENDOR_RELEASES`, :data:`SHIPS_VLLM_UNMAPPED`, LMCache's), and whose release is one of the
    bundled vLLM releases (``opea/vllm-gaudi:1.22.0-x`` names Gaudi's 1.22, no vLLM release). vLLM's own
    images read any suffix already (``vllm/vllm-openai:v0.10.2-cu124``) and are not this case."""
    if _is_official(image) or "vllm" not in image.name.lower() or _vendor(image) is not None:
        return None
    if image.repository.lower().startswith("lmcache"):
        return None
    m = _SUFFIXED_TAG.match(image.tag)
    if m is None:
        return None
    version = Version.try_parse(m.group(1))
    from vlint.argspec.spec import bundled_versions

    if version is None or version not in bundled_versions():
        return None
    return version, m.group(2)


def suffix_note(image: ImageRef) -> str:
    """`` (read as vLLM 0.10.2: the tag's suffix 'nixl-xxx' ignored)`` for :func:`suffixed_release` tags; else ""."""
    found = suffixed_release(image)
    if found is None:
        return ""
    return (
        f" (read as vLLM {found[0]}, the release its tag starts with: the suffix {found[1]!r} of this custom "
        "image is ignored; pass --vllm-version if it is another build)"
    )


def release_tag(image: ImageRef, version: Version) -> str | None:
    """``image`` pinned to vLLM ``version`` when its tags are vLLM's release tags (``vllm/vllm-openai:v0.10.2``);
    None for other images, whose tags name their own releases (``lmcache/vllm-openai:v0.3.1``)."""
    if not _is_official(image):
        return None
    prefix = f"{image.registry}/" if image.registry else ""
    return f"{prefix}{image.repository}:v{version}"


def ships_flashinfer(image: ImageRef) -> bool:
    """Whether the image is vLLM's CUDA server image, whose ``vllm-base`` stage installs FlashInfer
    (vllm-project/vllm docker/Dockerfile at commit 0000977e: ``uv pip install --system
    "${FLASHINFER_WHEEL}"`` unless TARGETPLATFORM is linux/arm64; ``vllm-openai`` builds on that stage)."""
    return _is_official(image) and image.name.lower() == "vllm-openai"


def _is_official(image: ImageRef) -> bool:
    """vLLM's own images, also behind a registry host or a mirror path (``mirror/vllm/vllm-openai``)."""
    repo = image.repository.lower()
    if repo in _OFFICIAL_REPOS or any(repo.endswith("/" + r) for r in _OFFICIAL_REPOS):
        return True
    if image.name.lower() in _OFFICIAL_NAMES and not repo.startswith(("lmcache/", "lmcache")):
        return "/" not in repo or repo.split("/")[-2] in ("vllm", "vllm-project", "mirror", "library")
    return image.registry.endswith("ecr.aws") and "vllm" in image.name


#: Images of other vendors with the vLLM release each tag ships, from the vendor's release notes.
#: ``(repository suffix, tag) → (vLLM release, evidence)``. Only tags whose notes were read are listed;
#: any other tag of these images is "version unknown".
_NGC_NOTES = "https://docs.nvidia.com/deeplearning/frameworks/vllm-release-notes/rel-{}.html"
#: NGC container release → the "vLLM: X" line of NVIDIA's release notes for it (read 2026-12-01)
_NGC = {"25.10": "0.10.2", "26.01": "0.11.1", "26.03": "0.17.1", "26.05": "0.20.1", "26.10": "0.31.0"}
VENDOR_RELEASES: dict[tuple[str, str], tuple[str, str]] = {
    ("nvidia/vllm", f"{rel}-py3"): (
        vllm,
        f"NVIDIA vLLM Release {rel} notes: 'vLLM: {vllm}' " + _NGC_NOTES.format(rel.replace(".", "-")),
    )
    for rel, vllm in _NGC.items()
}
#: NVIDIA Dynamo's vLLM runtime image (``nvcr.io/nvidia/ai-dynamo/vllm-runtime:<Dynamo release>``): the
#: "Backend Dependencies" table of Dynamo's support matrix, "the backend framework versions included
#: with each Dynamo release" (ai-dynamo/dynamo@00552b23 docs/reference/support-matrix.md, vLLM column).
#: Experimental and partial releases (``-dev.N``) are left out: the table calls those branch pins.
_DYNAMO_NOTES = (
    "https://github.com/ai-dynamo/dynamo/blob/main/docs/reference/support-matrix.md (Backend Dependencies, read at "
    "commit 00552b23)"
)
_DYNAMO = {
    "0.6.0": "0.11.0",
    "0.6.1": "0.11.0",
    "0.6.1.post1": "0.11.0",
    "0.7.0": "0.11.0",
    "0.7.0.post1": "0.11.0",
    "0.7.1": "0.11.0",
    "0.8.0": "0.12.0",
    "0.8.1": "0.12.0",
    "0.8.1.post1": "0.12.0",
    "0.8.1.post2": "0.12.0",
    "0.8.1.post3": "0.12.0",
    "0.9.0": "0.14.1",
    "0.9.1": "0.14.1",
    "1.0.0": "0.16.0",
    "1.0.1": "0.16.0",
    "1.0.2": "0.16.0",
    "1.1.0": "0.19.0",
    "1.1.1": "0.19.0",
}
VENDOR_RELEASES.update(
    {
        ("ai-dynamo/vllm-runtime", rel): (vllm, f"Dynamo {rel} ships vLLM {vllm}: {_DYNAMO_NOTES}")
        for rel, vllm in _DYNAMO.items()
    }
)

#: Images known to run vLLM whose tags name their own release, not vLLM's, and for which no
#: mapping was established (see tools/README.md "Image → vLLM release"): "version unknown".
SHIPS_VLLM_UNMAPPED: dict[str, str] = {
    "nvidia/vllm": "NGC vLLM container (only the tags in vlint's table of NVIDIA's release notes are mapped)",
    "llm-d/llm-d": "llm-d image (built on a vLLM release or commit its tag does not name)",
    "llm-d/llm-d-cuda": "llm-d image (built on a vLLM release or commit its tag does not name)",
    "anyscale/ray-llm": "Ray Serve LLM image (its tag is the Ray release)",
    "rayproject/ray-llm": "Ray Serve LLM image (its tag is the Ray release)",
    "ai-dynamo/vllm-runtime": "NVIDIA Dynamo vLLM runtime (its tag is the Dynamo release; only the releases of "
    "Dynamo's support matrix are mapped)",
    "kserve/huggingfaceserver": "KServe Hugging Face server (its tag is the KServe release; its vllm pin varies)",
}


def _vendor(image: ImageRef) -> str | None:
    repo = image.repository.lower()
    for key in {k for k, _ in VENDOR_RELEASES} | set(SHIPS_VLLM_UNMAPPED):
        if repo == key or repo.endswith("/" + key):
            return key
    return None


def vendor_release(image: ImageRef) -> tuple[Version, str] | None:
    """(vLLM release, evidence) for a vendor image tag in :data:`VENDOR_RELEASES`."""
    key = _vendor(image)
    if key is None or not image.tag:
        return None
    hit = VENDOR_RELEASES.get((key, image.tag.lower()))
    if hit is None:
        return None
    return Version.parse(hit[0]), hit[1]


def unknown_version_reason(image: ImageRef) -> str | None:
    """Why an image that runs vLLM names no vLLM release (for the "version unknown" note); None when
    the image names one, or is not known to run vLLM."""
    if image_vllm_version(image) is not None:
        return None
    key = _vendor(image)
    if image.digest and not image.tag:
        what = "a digest, not a release tag"
    elif not image.tag or not image.pinned:
        what = f"the floating tag {image.tag or 'latest'!r}"
    elif key is not None:
        what = SHIPS_VLLM_UNMAPPED.get(key, "a tag vlint cannot map to a vLLM release")
    else:
        what = "a tag that names no vLLM release"
    if key is None and not image.is_vllm:
        return None
    return f"image {image.raw} ({what})"


#: vllm/vllm-openai switched its ENTRYPOINT from ``python3 -m vllm.entrypoints.openai.api_server``
#: to ``vllm serve``. The maintainers still described the api_server entrypoint in May 2025
#: (vllm-project/vllm#17172, vLLM 0.8.x); recent images run ``vllm serve``. The exact release is
#: not pinned down, so images older than this are treated as api_server, images from
#: :data:`SERVE_ENTRYPOINT_CERTAIN` on as ``vllm serve``, and the ones between — and images with no
#: version — as "either" (program ``image``), which accepts both spellings of the model: only the
#: model's spelling differs, and ``vllm serve`` refuses ``--model`` only in 0.8.3–0.11.0 (the oracle
#: cases), so an error there must not rest on a guessed entrypoint.
SERVE_ENTRYPOINT_SINCE = Version.parse("0.10.0")
#: from here on the image's entrypoint no longer changes what vLLM accepts (``vllm serve`` takes
#: ``--model`` again), so ``vllm serve`` is as good as certain for the checks that depend on it
SERVE_ENTRYPOINT_CERTAIN = Version.parse("0.11.1")


def default_entrypoint(image: ImageRef) -> str | None:
    """The vLLM program an image runs when only arguments are given.

    ``vllm serve`` for current vllm/vllm-openai images, ``api_server`` for old ones, ``image`` when
    the tag does not say which (both accept the same flags; only the model's spelling differs),
    ``None`` when the image is not known to run vLLM by default.
    """
    repo = image.repository.lower()
    if repo in _OFFICIAL_REPOS or image.name.lower() == "vllm-openai":
        return entrypoint_of_release(image_vllm_version(image))
    return None


def entrypoint_of_release(version: Version | None) -> str:
    """The program vLLM's own image of ``version`` runs (see :func:`default_entrypoint`)."""
    if version is None:
        return "image"
    if version < SERVE_ENTRYPOINT_SINCE:
        return "api_server"
    return "vllm serve" if version >= SERVE_ENTRYPOINT_CERTAIN else "image"
