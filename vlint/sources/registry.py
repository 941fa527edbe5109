"""All sources, and which of them apply to a file."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.sources import (
    compose,
    dockerfile,
    dotenv,
    github_actions,
    helm,
    kubernetes,
    python_ast,
    ray_serve,
    shell,
    skypilot,
    vllm_yaml,
)
from vlint.sources.base import Source, SourceText


def _is_yaml(src: SourceText) -> bool:
    return src.abspath.suffix.lower() in (".yaml", ".yml")


def _sniff_vllm_config(src: SourceText) -> bool:
    if not _is_yaml(src):
        return False
    from vlint.argspec.history import is_known_option

    return vllm_yaml.looks_like_vllm_config(src, is_known_option)


SOURCES: tuple[Source, ...] = (
    Source(shell.NAME, shell.sniff, shell.extract),
    Source(kubernetes.NAME, kubernetes.sniff, kubernetes.extract),
    Source(helm.NAME, helm.sniff, helm.extract),
    Source("template", helm.template_sniff, helm.template_extract),
    Source(compose.NAME, compose.sniff, compose.extract),
    Source(github_actions.NAME, github_actions.sniff, github_actions.extract),
    Source(skypilot.NAME, skypilot.sniff, skypilot.extract),
    Source(ray_serve.NAME, ray_serve.sniff, ray_serve.extract),
    Source(dockerfile.NAME, dockerfile.sniff, dockerfile.extract),
    Source(python_ast.NAME, python_ast.sniff, python_ast.extract),
    Source(dotenv.NAME, dotenv.sniff, dotenv.extract),
    Source(vllm_yaml.NAME, _sniff_vllm_config, vllm_yaml.extract),
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
