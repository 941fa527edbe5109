"""A vLLM template no chart holds (a copy in a docs folder, a chart kept without its Chart.yaml): read as an
unrendered chart's templates are (:mod:`vlint.sources.render.unrendered`), every ``.Values`` unknown.

Kept apart from :mod:`vlint.sources.render.helm` (which runs helm, and imports what that takes): reading a
lone template needs none of it.
"""

from __future__ import annotations

from vlint.sources import sniffing
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.kube.helm import template_extract
from vlint.sources.render.unrendered import launches

#: why a template outside any chart is read the way an unrendered chart's templates are
NO_CHART = "the template is in no chart (no Chart.yaml above it), so helm cannot render it"


def template_read(src: SourceText, read_file: ReadFile) -> SourceResult:
    """A vLLM template no chart holds (a copy in a docs folder, a chart kept without its Chart.yaml):
    read as an unrendered chart's templates are — its plain actions followed, every ``.Values`` unknown
    (no values file names them), each launch saying so, its errors warnings; the template's VL604
    (:func:`vlint.sources.kube.helm.template_extract`) when nothing of vLLM can be read from it."""
    name = src.abspath.name
    lone = sniffing.chart_of(src.abspath) is None  # a chart's templates are read through the chart
    if lone and not name.startswith("_") and name.endswith((".yaml", ".yml")) and "vllm" in src.text.lower():
        found = launches(src, [], None, read_file, NO_CHART, values_unknown=True)
        if found.invocations:
            return found
    if sniffing.kubernetes(src):
        return SourceResult()  # the Kubernetes source, which reads it first, has given its VL604
    return template_extract(src, read_file)
