"""Container images: what vLLM version a tag names, and what the image runs by default.

Only tags that name a vLLM release unambiguously are trusted (``vllm/vllm-openai:v0.10.2``,
``rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521``). ``lmcache/vllm-openai:v0.3.1`` is an LMCache version,
``vllm/vllm-openai:latest`` is whatever was pushed last: neither names a vLLM version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vlint.version import Version

_OFFICIAL_REPOS = {
    "vllm/vllm-openai",
    "vllm/vllm-openai-rocm",
    "vllm/vllm-tpu",
    "vllm/vllm-cpu",
    "vllm/vllm-xpu",
    "vllm/vllm-omni",
    "vllm/vllm-openai-cpu",
}
_VERSION_TAG = re.compile(r"^v?(\d+\.\d+\.\d+(?:\.post\d+|\.\d+)?)(?:$|[-_+].*)")
_EMBEDDED = re.compile(r"vllm[-_]?v?(\d+\.\d+\.\d+(?:\.post\d+)?)", re.IGNORECASE)
_FLOATING = {"latest", "nightly", "main", "dev", "edge", "stable", "latest-nightly"}


@dataclass(frozen=True, slots=True)
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
    repo = image.repository.lower()
    official = repo in _OFFICIAL_REPOS or (image.registry.endswith("ecr.aws") and "vllm" in image.name)
    if official or image.name.lower() == "vllm":
        m = _VERSION_TAG.match(tag)
        if m:
            return Version.try_parse(m.group(1))
    return None


#: vllm/vllm-openai switched its ENTRYPOINT from ``python3 -m vllm.entrypoints.openai.api_server``
#: to ``vllm serve``. The maintainers still described the api_server entrypoint in May 2025
#: (vllm-project/vllm#17172, vLLM 0.8.x); recent images run ``vllm serve``. The exact release is
#: not pinned down, so images older than this are treated as api_server and images with no
#: version as "either" (program ``image``), which accepts both spellings of the model.
SERVE_ENTRYPOINT_SINCE = Version.parse("0.10.0")


def default_entrypoint(image: ImageRef) -> str | None:
    """The vLLM program an image runs when only arguments are given.

    ``vllm serve`` for current vllm/vllm-openai images, ``api_server`` for old ones, ``image`` when
    the tag does not say which (both accept the same flags; only the model's spelling differs),
    ``None`` when the image is not known to run vLLM by default.
    """
    repo = image.repository.lower()
    if repo in _OFFICIAL_REPOS or image.name.lower() == "vllm-openai":
        version = image_vllm_version(image)
        if version is None:
            return "image"
        return "api_server" if version < SERVE_ENTRYPOINT_SINCE else "vllm serve"
    return None
