"""Helm charts: a chart folder (``Chart.yaml`` with ``templates/``) rendered with ``helm template`` when
``helm`` is on PATH, the output linted like a manifest, findings mapped back to the values line the
value came from (by value and key), else to the template line that writes it
(:mod:`vlint.sources.render.mapping`).

What helm gets is a **copy** of the chart, made by vlint through the run's reader: every file of the
chart folder read inside the lint root (a symbolic link out of it is VL060 and the chart is not
rendered), ``.git`` never, at most :data:`_MAX_FILES` files and :data:`_MAX_BYTES` bytes. So helm —
whose templates may read any chart file (``.Files.Get``) — can only read what vlint may read. It then
runs under :func:`vlint.sources.render.tools.run_tool` (scrubbed environment, no network, timeout, output
cap) with its cache, configuration, data and plugin folders in the temporary home (no repositories, no
plugins, no post-renderer), without ``--dependency-update``: a dependency that is not in the chart's
``charts/`` folder is not fetched (VL631 on the ``dependencies`` entry).

The chart is rendered with its ``values.yaml``, then once more with each values file kept beside it
(``values-prod.yaml``, ``values.l4.yaml``, ``prod-values.yaml``, ``ci/*-values.yaml``, as
``helm template … -f FILE``), each a launch of its own labelled with the file. Charts whose
``values.yaml`` vlint already reads as one of the charts it knows (production-stack, KubeAI, llm-d,
vLLM's example chart: :mod:`vlint.sources.kube.helm`) are left to that reading. With ``--no-render``
the chart gets one VL630 note saying what was not checked and how to check it; without helm, the same
words as a run note (``SourceResult.notes``: a tool that is not installed is no problem of the chart); only
charts whose files mention vLLM are rendered or noted. Its templates are then read without rendering
(:func:`template_unrendered`, :mod:`vlint.sources.render.unrendered`): with ``values.yaml``, with each
values file beside it, and with the ``-f``/``--set`` of each install in a script beside the chart
(:mod:`vlint.sources.render.helm_set`), as far as their actions are plain.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from vlint.core.invocation import Problem
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.security.bounded_read import NotReadable, read_regular
from vlint.security.lint_root import VCS_DIRS, LintRoot, Refused
from vlint.sources.base import OutsideRoot, ReadFile, SourceError, SourceResult, SourceText, refused
from vlint.sources.kube.k8s_common import LineIndex, compose_documents, get, items, scalar

# tools.run_tool through the module, never imported by name: whoever replaces it (a test) replaces it here
# too, whichever module was imported first
from vlint.sources.render import RUN_BUDGET, settings, tools
from vlint.sources.render.mapping import Origins
from vlint.sources.render.output import lint_rendered, merge, not_checked, not_rendered, render_blocked
from vlint.sources.yaml_nodes import MappingNode

NAME = "helm-chart"

#: files and bytes copied from one chart (subcharts included)
_MAX_FILES = 2000
_MAX_BYTES = 32 * 2**20
#: values files rendered besides the chart's own values.yaml
_MAX_VALUES = 8
_HELM_ENV = {
    "HELM_CACHE_HOME": "{home}/cache",
    "HELM_CONFIG_HOME": "{home}/config",
    "HELM_DATA_HOME": "{home}/data",
    "HELM_PLUGINS": "{home}/plugins",
    "HELM_REGISTRY_CONFIG": "{home}/config/registry.json",
    "HELM_REPOSITORY_CONFIG": "{home}/config/repositories.yaml",
    "HELM_REPOSITORY_CACHE": "{home}/cache/repository",
    "HELM_NO_PLUGINS": "1",
}


@record(slots=True)
class _Chart:
    folder: Path
    shown: str
    name: str
    #: relative path → text (or bytes, for packaged subcharts) of every file copied
    files: dict[str, str | bytes] = field(default_factory=dict)
    #: relative path → SourceText of the text files (values, templates), for the mapping
    texts: dict[str, SourceText] = field(default_factory=dict)
    blocked: list[tuple[str, Span]] = field(default_factory=list)
    refused: bool = False


def is_values_file(rel: str) -> bool:
    """A values file kept beside the chart's ``values.yaml`` (an environment's overrides)."""
    parts = rel.split("/")
    name = parts[-1].lower()
    if not name.endswith((".yaml", ".yml")) or name in ("values.yaml", "values.yml", "chart.yaml"):
        return False
    stem = name.rsplit(".", 1)[0]
    if len(parts) == 1:
        return stem.startswith(("values-", "values.", "values_")) or stem.endswith(("-values", ".values", "_values"))
    return len(parts) == 2 and parts[0] == "ci" and "values" in stem


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    folder = src.abspath.parent
    if not (folder / "templates").is_dir():
        return result
    shown = str(Path(src.path).parent)
    chart = _Chart(folder, shown, _chart_name(src) or folder.name)
    _collect(chart, src, read_file, result)
    if not _about_vllm(chart) or _known_chart(chart):
        return result
    anchor = Span(src.path, 1, 1, 1, 1)
    _dependencies(chart, src)
    result.problems.extend(render_blocked(span, "the Helm chart", "chart", shown, why) for why, span in chart.blocked)
    if chart.blocked or chart.refused:
        return result
    overrides = sorted(rel for rel in chart.texts if is_values_file(rel))[:_MAX_VALUES]
    how = f"helm template {shown} | vlint -"
    if overrides:
        how += ", and with -f for " + ", ".join(f"{shown}/{v}" for v in overrides)
    if not settings().enabled:
        read = _read_unrendered(chart, src, read_file)
        result.problems.append(
            not_rendered(anchor, "the Helm chart", "chart", shown, settings().off_reason, how, read=read)
        )
        return result
    helm = tools.find_tool("helm")
    if helm is None:
        # a tool that is not here is a fact about this run, not a problem of the chart: a note
        why = tools.not_found(("helm",), "helm is not on PATH (install helm 3)")
        read = _read_unrendered(chart, src, read_file)
        result.notes.append(not_checked("the Helm chart", shown, why, how, read=read))
        return result
    with tempfile.TemporaryDirectory(prefix="vlint-chart-") as tmp:
        copy = Path(tmp) / chart.name.replace("/", "_")
        _write_copy(chart, copy)
        for values in [None, *overrides]:
            argv = [helm, "template", str(copy)]
            if values is not None:
                argv += ["-f", str(copy / values)]
            with_values = f" with {values}" if values else ""
            if settings().budget.used_up:
                why = f"the run's rendering time budget ({RUN_BUDGET:.0f} s) is used up"
                result.problems.append(
                    not_rendered(
                        _values_anchor(chart, values) or anchor,
                        "the Helm chart",
                        "chart",
                        f"{shown}{with_values}",
                        why,
                        how,
                    )
                )
                continue
            run = tools.run_tool(argv, extra_env=_HELM_ENV, budget=settings().budget)
            if not run.ok:
                error = run.error.replace(str(copy), shown)
                result.problems.append(
                    Problem(
                        "VL631",
                        _values_anchor(chart, values) or anchor,
                        f"helm could not render {shown}{with_values}: {error}; the vLLM launches it builds are "
                        "not checked",
                        {"chart": shown, "error": error},
                    )
                )
                continue
            found = lint_rendered(run.output, src, read_file, _origins(chart, values), anchor, "helm")
            for inv in found.invocations:
                if values:
                    inv.label = inv.label.replace("(helm output)", f"(helm output{with_values})")
            merge(found, result)
    result.linked.extend(t.abspath for t in chart.texts.values())
    return result


def _read_unrendered(chart: _Chart, src: SourceText, read_file: ReadFile) -> int:
    """How many launches the chart's templates give read without rendering (each reported on its template)."""
    from vlint.sources.render import unrendered

    values = chart.texts.get("values.yaml") or chart.texts.get("values.yml")
    n = 0
    for rel, text in sorted(chart.texts.items()):
        parts = rel.split("/")
        if len(parts) < 2 or parts[0] != "templates" or parts[-1].startswith("_"):
            continue
        if not parts[-1].endswith((".yaml", ".yml")):
            continue
        n += len(unrendered.launches(text, [values] if values else [], src, read_file, "").invocations)
    return n


def _values_anchor(chart: _Chart, values: str | None) -> Span | None:
    if values is None or values not in chart.texts:
        return None
    return Span(chart.texts[values].path, 1, 1, 1, 1)


def _chart_name(src: SourceText) -> str | None:
    docs = compose_documents(src.text, src.path)
    root = docs.nodes[0] if docs.nodes else None
    name = scalar(get(root, "name")) if isinstance(root, MappingNode) else None
    return name.strip() if name and name.strip() and "/" not in name and name not in (".", "..") else None


def _about_vllm(chart: _Chart) -> bool:
    return any("vllm" in t.text.lower() for rel, t in chart.texts.items() if _is_template_or_values(rel))


def _is_template_or_values(rel: str) -> bool:
    return "templates/" in rel or rel.endswith((".yaml", ".yml", ".tpl"))


def _known_chart(chart: _Chart) -> bool:
    """The chart's values.yaml is one vlint reads as the chart it knows (:mod:`vlint.sources.kube.helm`)."""
    from vlint.sources import sniffing

    values = chart.texts.get("values.yaml") or chart.texts.get("values.yml")
    return values is not None and sniffing.helm(values)


# -- the copy ---------------------------------------------------------------------------------------
def _collect(chart: _Chart, src: SourceText, read_file: ReadFile, result: SourceResult) -> None:
    """Every file of the chart folder, read through the run's reader (inside the lint root only)."""
    lint_root = settings().root
    total = 0
    stack = [chart.folder]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as e:
            chart.blocked.append((f"{folder.name}/ cannot be listed ({e.strerror or e})", _span(src)))
            return
        for entry in entries:
            path = Path(entry.path)
            rel = path.relative_to(chart.folder).as_posix()
            if entry.name in VCS_DIRS:
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(path)
                continue
            if entry.is_symlink() and path.is_dir():
                chart.blocked.append((f"{rel} is a symbolic link to a folder, which vlint does not follow", _span(src)))
                continue
            if len(chart.files) >= _MAX_FILES or total > _MAX_BYTES:
                chart.blocked.append((f"more than {_MAX_FILES} files or {_MAX_BYTES // 2**20} MiB", _span(src)))
                return
            if rel.startswith("charts/") and rel.endswith((".tgz", ".tar.gz")):
                data = _read_bytes(path, lint_root, chart, src, result)
                if data is not None:
                    chart.files[rel] = data
                    total += len(data)
                continue
            try:
                text = src if path == src.abspath else read_file(path)
            except OutsideRoot as e:
                chart.refused = True
                refused(e, _span(src), result.problems, f"the chart file {rel}")
                continue
            except SourceError as e:
                chart.blocked.append((f"{rel} cannot be read ({e.message})", _span(src)))
                continue
            chart.files[rel] = text.text
            chart.texts[rel] = text
            total += len(text.text)


def _read_bytes(
    path: Path, root: LintRoot | None, chart: _Chart, src: SourceText, result: SourceResult
) -> bytes | None:
    """A packaged subchart (``charts/x.tgz``): bytes, read only inside the lint root."""
    rel = path.relative_to(chart.folder).as_posix()
    try:
        return root.read_bytes(path, _MAX_BYTES) if root is not None else read_regular(path, _MAX_BYTES)
    except Refused as e:
        chart.refused = True
        refused(OutsideRoot(path, rel, e.why), _span(src), result.problems, f"the packaged subchart {rel}")
        return None
    except NotReadable:
        chart.blocked.append((f"{rel} is not a regular file under {_MAX_BYTES // 2**20} MiB", _span(src)))
        return None
    except OSError as e:
        chart.blocked.append((f"{rel} cannot be read ({e.strerror or e})", _span(src)))
        return None


def _write_copy(chart: _Chart, copy: Path) -> None:
    for rel, data in chart.files.items():
        target = copy / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data, encoding="utf-8")


def _span(src: SourceText) -> Span:
    return Span(src.path, 1, 1, 1, 1)


# -- dependencies -----------------------------------------------------------------------------------
def _dependencies(chart: _Chart, src: SourceText) -> None:
    """Each dependency must be in ``charts/`` (a folder or a packaged ``.tgz``): nothing is fetched."""
    lines = LineIndex(src.path, src.text)
    docs = compose_documents(src.text, src.path)
    root = docs.nodes[0] if docs.nodes else None
    entries = list(items(get(root, "dependencies")))
    req = chart.texts.get("requirements.yaml")
    req_lines = None
    if req is not None:  # Chart apiVersion v1
        req_lines = LineIndex(req.path, req.text)
        rdocs = compose_documents(req.text, req.path)
        entries += [(e, True) for e in items(get(rdocs.nodes[0] if rdocs.nodes else None, "dependencies"))]  # type: ignore[misc]
    for entry in entries:
        node, from_req = entry if isinstance(entry, tuple) else (entry, False)
        name = scalar(get(node, "name")) or ""
        where = (req_lines if from_req and req_lines is not None else lines).node_span(node)
        repo = scalar(get(node, "repository")) or ""
        if not name:
            continue
        if _vendored(chart, name):
            continue
        if repo.startswith("file://"):
            local = (chart.folder / repo[len("file://") :]).resolve()
            root = settings().root
            if root is not None and not root.contains(local):
                chart.blocked.append((f"the dependency {name} ({repo}) lies outside the lint root", where))
            else:
                why = f"the dependency {name} ({repo}) is not in {chart.shown}/charts/ (run helm dependency build)"
                chart.blocked.append((why, where))
            continue
        got = f" from {repo}" if repo else ""
        chart.blocked.append(
            (
                f"the dependency {name}{got} is not in {chart.shown}/charts/ (vlint never runs helm dependency "
                "update and configures no repositories)",
                where,
            )
        )


def _vendored(chart: _Chart, name: str) -> bool:
    return any(
        rel.startswith(f"charts/{name}/") or (rel.startswith(f"charts/{name}-") and rel.endswith(".tgz"))
        for rel in chart.files
    )


# -- mapping ----------------------------------------------------------------------------------------
def _origins(chart: _Chart, values: str | None) -> Origins:
    """Values files (the ``-f`` file over the chart's values.yaml, a subchart's values below both)
    and the templates, for the literal search (by their ``# Source:`` name)."""
    origins = Origins(later_wins=True)
    for rel, text in chart.texts.items():
        base = rel.rsplit("/", 1)[-1]
        if base in ("values.yaml", "values.yml"):
            origins.add_yaml(text.path, text.text, 1 if rel == base else 0)
        elif "templates/" in rel:
            origins.add_template(f"{chart.name}/{rel}", text.path, text.text)
    if values is not None and values in chart.texts:
        origins.add_yaml(chart.texts[values].path, chart.texts[values].text, 2)
    return origins


# -- read without rendering -------------------------------------------------------------------------
def _unrendered_why() -> str | None:
    """Why the chart is not rendered (so its templates are read without rendering), or None when it is."""
    if not settings().enabled:
        return settings().off_reason
    if tools.find_tool("helm") is None:
        return "helm is not on PATH"
    return None


def _chart_file(folder: Path, names: tuple[str, ...], read_file: ReadFile) -> SourceText | None:
    for name in names:
        path = folder / name
        if path.is_file():
            try:
                return read_file(path)
            except (SourceError, OutsideRoot):
                return None
    return None


def template_unrendered(src: SourceText, read_file: ReadFile) -> SourceResult:
    """A template of a chart that is not rendered, read with the chart's ``values.yaml`` substituted
    where its actions are plain (:mod:`vlint.sources.render.unrendered`); nothing when the chart is
    rendered (its ``Chart.yaml`` does that), when its values are a chart vlint knows, or for helpers."""
    from vlint.sources import sniffing
    from vlint.sources.render import unrendered

    result = SourceResult()
    chart = sniffing.chart_of(src.abspath)
    name = src.abspath.name
    if chart is None or name.startswith("_") or not name.endswith((".yaml", ".yml")):
        return result
    why = _unrendered_why()
    if why is None:
        return result
    values = _chart_file(chart, ("values.yaml", "values.yml"), read_file)
    if values is not None and sniffing.helm(values):
        return result
    chart_yaml = _chart_file(chart, ("Chart.yaml", "Chart.yml"), read_file)
    base: list[SourceText | tuple[SourceText, str]] = [values] if values is not None else []
    parent = chart.parent.parent if chart.parent.name == "charts" else None
    if parent is not None and (parent / "Chart.yaml").is_file():
        # a subchart: the parent chart's values under the subchart's name win over its own
        parent_values = _chart_file(parent, ("values.yaml", "values.yml"), read_file)
        if parent_values is not None:
            base.insert(0, (parent_values, chart.name))
    result = unrendered.launches(src, base, chart_yaml, read_file, why)
    # each values file kept beside values.yaml is an install of its own (helm template -f FILE), as
    # when the chart is rendered
    for rel in _override_files(chart)[:_MAX_VALUES]:
        over = _chart_file(chart, (rel,), read_file)
        if over is not None:
            found = unrendered.launches(src, [over, *base], chart_yaml, read_file, why, f" with {rel}")
            merge(found, result)
    # each helm install|upgrade|template of this chart in a script beside it, with its -f and --set
    from vlint.sources.render import helm_set

    lint_root = settings().root
    for inst in helm_set.installs(chart, lint_root.path if lint_root is not None else None, read_file)[:_MAX_VALUES]:
        layers: list[SourceText | tuple[SourceText, str] | unrendered.SetValues] = []
        if inst.sets is not None:
            layers.append(inst.sets)
        for f in reversed(inst.files):
            layers.append(read_file(f))
        found = unrendered.launches(
            src, [*layers, *base], chart_yaml, read_file, why, f" with the values of {inst.where}"
        )
        merge(found, result)
    return result


def _override_files(chart: Path) -> list[str]:
    """The values files beside the chart's values.yaml (:func:`is_values_file`), by name."""
    out = []
    for sub in ("", "ci"):
        folder = chart / sub if sub else chart
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            rel = f"{sub}/{name}" if sub else name
            if is_values_file(rel) and (chart / rel).is_file():
                out.append(rel)
    return sorted(out)
