"""All sources, and which of them apply to a file."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator

from vlint.sources import sniffing
from vlint.sources.base import ReadFile, Source, SourceResult, SourceText


def _lazy(module: str, function: str = "extract") -> Callable[[SourceText, ReadFile], SourceResult]:
    """The source's extract function, imported on first use (sniffing a tree loads no source module)."""

    def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
        name = module if "." in module else f"vlint.sources.{module}"
        fn: Callable[[SourceText, ReadFile], SourceResult] = getattr(importlib.import_module(name), function)
        return fn(src, read_file)

    return extract


def _sniff_vllm_config(src: SourceText) -> bool:
    if src.abspath.suffix.lower() not in (".yaml", ".yml"):
        return False
    from vlint.argspec.history import is_known_option
    from vlint.sources import vllm_yaml

    return vllm_yaml.looks_like_vllm_config(src, is_known_option)


SOURCES: tuple[Source, ...] = (
    Source("shell", sniffing.shell, _lazy("shell")),
    Source("makefile", sniffing.makefile, _lazy("makefile")),
    Source("justfile", sniffing.justfile, _lazy("justfile")),
    Source("taskfile", sniffing.taskfile, _lazy("taskfile")),
    Source("systemd", sniffing.systemd, _lazy("systemd")),
    Source("procfile", sniffing.procfile, _lazy("procfile")),
    Source("supervisord", sniffing.supervisord, _lazy("supervisord")),
    Source("kustomize", sniffing.kustomization, _lazy("vlint.render.kustomize")),
    Source("kubernetes", sniffing.kubernetes, _lazy("kubernetes")),
    Source("helm", sniffing.helm, _lazy("helm")),
    Source("template", sniffing.template, _lazy("helm", "template_extract")),
    Source("compose", sniffing.compose, _lazy("compose")),
    Source("github-actions", sniffing.github_actions, _lazy("github_actions")),
    Source("skypilot", sniffing.skypilot, _lazy("skypilot")),
    Source("ray-serve", sniffing.ray_serve, _lazy("ray_serve")),
    Source("dockerfile", sniffing.dockerfile, _lazy("dockerfile")),
    Source("python", sniffing.python, _lazy("python_ast")),
    Source("dotenv", sniffing.dotenv, _lazy("dotenv")),
    Source("vllm-config", _sniff_vllm_config, _lazy("vllm_yaml")),
)


def sources_for(src: SourceText, *, explicit: bool = False) -> list[Source]:
    """Sources whose sniffing accepts the file, most specific first."""
    return list(iter_sources(src, explicit=explicit))


def iter_sources(src: SourceText, *, explicit: bool = False) -> Iterator[Source]:
    """:func:`sources_for`, sniffing each source only when the caller asks for the next one (the lint
    stops at the first source that finds launches: the later sniffers, which may parse the YAML, never run)."""
    for s in SOURCES:
        if s.sniff(src):
            yield s
