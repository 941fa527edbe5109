"""All sources, and which of them apply to a file."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from pathlib import Path

from vlint.core.record import replace
from vlint.sources import expansion_budget, sniffing
from vlint.sources.base import ReadFile, Source, SourceResult, SourceText

#: the module of every source's extract function (imported on first use)
_MODULES: list[str] = []


def _lazy(module: str, function: str = "extract") -> Callable[[SourceText, ReadFile], SourceResult]:
    """The source's extract function, imported on first use (sniffing a tree loads no source module),
    run with an expansion budget of its own for the file (reported once when it runs out)."""
    _MODULES.append(module if "." in module else f"vlint.sources.{module}")

    def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
        name = module if "." in module else f"vlint.sources.{module}"
        fn: Callable[[SourceText, ReadFile], SourceResult] = getattr(importlib.import_module(name), function)
        with expansion_budget.opened() as budget:
            result = fn(src, read_file)
        if budget.used_up:
            result.problems.append(budget.notice(src.path))
        return result

    return extract


def _sniff_vllm_config(src: SourceText) -> bool:
    if src.abspath.suffix.lower() not in (".yaml", ".yml"):
        return False
    from vlint.argspec.history import is_known_option
    from vlint.sources import vllm_yaml

    return vllm_yaml.looks_like_vllm_config(src, is_known_option)


SOURCES: tuple[Source, ...] = (
    Source("shell", sniffing.shell, _lazy("vlint.sources.scripts.shell")),
    Source("makefile", sniffing.makefile, _lazy("vlint.sources.scripts.makefile")),
    Source("justfile", sniffing.justfile, _lazy("vlint.sources.scripts.justfile")),
    Source("taskfile", sniffing.taskfile, _lazy("vlint.sources.scripts.taskfile")),
    Source("systemd", sniffing.systemd, _lazy("vlint.sources.scripts.systemd")),
    Source("procfile", sniffing.procfile, _lazy("vlint.sources.scripts.procfile")),
    Source("supervisord", sniffing.supervisord, _lazy("vlint.sources.scripts.supervisord")),
    Source("kustomize", sniffing.kustomization, _lazy("vlint.sources.render.kustomize")),
    Source("helm-chart", sniffing.helm_chart, _lazy("vlint.sources.render.helm")),
    Source("kubernetes", sniffing.kubernetes, _lazy("vlint.sources.kube.kubernetes")),
    Source("helm", sniffing.helm, _lazy("vlint.sources.kube.helm")),
    Source("template", sniffing.template, _lazy("vlint.sources.render.lone_template", "template_read")),
    Source("compose", sniffing.compose, _lazy("vlint.sources.containers.compose")),
    Source("github-actions", sniffing.github_actions, _lazy("vlint.sources.github_actions")),
    Source("skypilot", sniffing.skypilot, _lazy("vlint.sources.skypilot")),
    Source("ray-serve", sniffing.ray_serve, _lazy("vlint.sources.python_ast", "extract_ray_serve")),
    Source("dockerfile", sniffing.dockerfile, _lazy("vlint.sources.containers.dockerfile")),
    Source("python", sniffing.python, _lazy("vlint.sources.python_ast")),
    Source("notebook", sniffing.notebook, _lazy("vlint.sources.notebook")),
    Source("dotenv", sniffing.dotenv, _lazy("vlint.sources.containers.dotenv")),
    Source("vllm-config", _sniff_vllm_config, _lazy("vlint.sources.vllm_yaml")),
    Source("helm-values", sniffing.helm_values, _lazy("vlint.sources.kube.helm_values")),
)


def import_sources() -> None:
    """Import every source module now: before a run forks its workers, so that they share them
    instead of each importing the ones its files need."""
    for name in _MODULES:
        importlib.import_module(name)


#: a chart template read without rendering (:func:`vlint.sources.render.helm.template_unrendered`)
def source_named(name: str) -> Source:
    """The source of that name (``kubernetes``…), for documents one file holds in another format."""
    return next(s for s in SOURCES if s.name == name)


UNRENDERED = Source("helm-template", lambda src: True, _lazy("vlint.sources.render.helm", "template_unrendered"))


def sources_for(src: SourceText, *, explicit: bool = False) -> list[Source]:
    """Sources whose sniffing accepts the file, most specific first."""
    return list(iter_sources(src, explicit=explicit))


def iter_sources(src: SourceText, *, explicit: bool = False) -> Iterator[Source]:
    """:func:`sources_for`, sniffing each source only when the caller asks for the next one (the lint
    stops at the first source that finds launches: the later sniffers, which may parse the YAML, never run).

    A YAML file named on the command line is a vLLM config when every key is a vLLM option, even
    ``model:`` alone (a file found by the walk needs more: :func:`vllm_yaml.looks_like_vllm_config`)."""
    chart = sniffing.chart_of(src.abspath)
    if chart is not None:
        # a template of a chart is checked through its chart (Chart.yaml rendered with helm); when the
        # chart is not rendered (no helm, --no-render) it is read with the chart's values substituted
        # where its actions are plain, each launch saying so (the chart keeps its VL630 note)
        yield UNRENDERED
        if not explicit:
            return
    sniffed = False
    for s in SOURCES:
        if s.sniff(src) or (explicit and s.name == "vllm-config" and _explicit_vllm_config(src)):
            sniffed = True
            yield s if chart is None else replace(s, extract=_in_chart(s.extract, src, chart))
    if not sniffed and explicit and sniffing.command_file(src):
        yield SOURCES[0]  # shell: a file named on the command line that holds a vllm command


def _explicit_vllm_config(src: SourceText) -> bool:
    if src.abspath.suffix.lower() not in (".yaml", ".yml"):
        return False
    from vlint.argspec.history import is_known_option
    from vlint.sources import vllm_yaml

    return vllm_yaml.looks_like_vllm_config(src, is_known_option, explicit=True)


def _in_chart(
    extract: Callable[[SourceText, ReadFile], SourceResult], src: SourceText, chart: Path
) -> Callable[[SourceText, ReadFile], SourceResult]:
    """A chart template named on the command line: its VL604 note says where it is checked."""
    rel = Path(src.path).parents[len(src.abspath.relative_to(chart).parts) - 1]
    shown = rel.as_posix()

    def run(text: SourceText, read_file: ReadFile) -> SourceResult:
        result = extract(text, read_file)
        for i, p in enumerate(result.problems):
            if p.code == "VL604":
                result.problems[i] = replace(
                    p,
                    message=f"this file is a template of the Helm chart {shown}, only complete once rendered: lint "
                    f"{shown} (vlint renders it with helm template when helm is on PATH) or the output of "
                    f"`helm template {shown} | vlint -`",
                )
        return result

    return run
