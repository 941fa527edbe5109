"""Kustomize overlays: ``kustomization.yaml`` rendered with ``kustomize build`` (or ``kubectl
kustomize``, which ships it), the output linted like a manifest, findings mapped back to the patch or
base line that set each value (:mod:`vlint.sources.render.mapping`).

Before the tool runs, vlint reads the kustomization tree itself (through the run's reader: inside
the lint root, never ``.git``) and renders only when everything kustomize would read is known and
local:

* every file and folder named by ``resources``/``bases``/``components``/``crds``/``configurations``,
  patches (``patches``, ``patchesStrategicMerge``, ``patchesJson6902``), generators' ``files``/``envs``,
  ``replacements`` and ``openapi`` lies inside the lint root (else VL060 on the line that names it);
* none is remote — a URL or a git reference (``github.com/org/repo//dir?ref=v1``) is not fetched
  (VL631 names it);
* no plugin (``generators``, ``transformers``, ``validators``) and no Helm inflation (``helmCharts``):
  kustomize runs without ``--enable-alpha-plugins``/``--enable-exec``/``--enable-helm``, and vlint says
  what it did not render (VL631); a field vlint does not know is not guessed at either.

* no reference is an absolute path, and none is a form kustomize takes for a git repository even
  when a folder of that name exists (``user@host:org/repo``, ``git::…``, ``github.com/…``, ``gh:…``,
  a ``?ref=`` query: kustomize parses those as remote *before* it looks on disk).

What the tool gets is a **copy** made of exactly the files vlint read and vetted (the kustomizations,
resources, patches, generator inputs), laid out as they lie below the lint root, in a temporary folder:
kustomize can only load what vlint checked, and a name vlint did not read is not there. The tool then
runs on the copy with ``--load-restrictor LoadRestrictionsRootOnly`` under
:func:`vlint.sources.render.tools.run_tool` (no ``PATH`` — so no ``git`` or ``ssh`` to start —, git protocols
refused, scrubbed environment, the run's time budget, a memory cap, output cap). With ``--no-render``,
the overlay gets one VL630 note saying what was not checked and how to check it; without the tool, or when
a file it names is not among those vlint was given (inside the lint root but not there: vlint may have been
given part of the repository, so that is no proof the file is missing), the same words are a run note
(``SourceResult.notes``), not a finding.
Only overlays whose files mention vLLM are rendered: other kustomizations are not vLLM's business.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from vlint.core.invocation import Problem
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.security.lint_root import real_path
from vlint.sources.base import OutsideRoot, ReadFile, SourceError, SourceResult, SourceText, refused
from vlint.sources.kube.k8s_common import LineIndex, MappedText, compose_documents, get, items, scalar, scalar_text

# tools.run_tool through the module, never imported by name: whoever replaces it (a test) replaces it here
# too, whichever module was imported first
from vlint.sources.render import RUN_BUDGET, settings, tools
from vlint.sources.render.mapping import Origins
from vlint.sources.render.output import lint_rendered, merge, not_checked, not_rendered, render_blocked
from vlint.sources.sniffing import KUSTOMIZATION_NAMES
from vlint.sources.yaml_nodes import MappingNode, Node, ScalarNode

NAME = "kustomize"

#: kustomizations one overlay may pull in (bases of bases…)
_MAX_KUSTOMIZATIONS = 100
_MAX_DEPTH = 12
#: fields that hold no file reference
_PLAIN_FIELDS = {
    "apiVersion",
    "kind",
    "metadata",
    "namePrefix",
    "nameSuffix",
    "namespace",
    "commonLabels",
    "labels",
    "commonAnnotations",
    "images",
    "replicas",
    "vars",
    "generatorOptions",
    "buildMetadata",
    "sortOptions",
}
_PATH_LISTS = ("resources", "bases", "components", "crds", "configurations")
_NOT_RUN = {
    "helmCharts": "Helm inflation (helmCharts) is not run: kustomize would need --enable-helm",
    "helmChartInflationGenerator": "Helm inflation is not run: kustomize would need --enable-helm",
    "helmGlobals": "Helm inflation is not run: kustomize would need --enable-helm",
    "generators": "generator plugins are not run",
    "transformers": "transformer plugins are not run",
    "validators": "validator plugins are not run",
}
_URL = lazy_compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_REMOTE_PREFIXES = (
    "github.com/",
    "github.com:",
    "gitlab.com/",
    "bitbucket.org/",
    "git@",
    "git::",
    "gh:",
    "ssh:",
    "https:",
    "http:",
    "file:",
)


@record(slots=True)
class _Plan:
    read_file: ReadFile
    result: SourceResult
    #: files kustomize reads, in its order, and whether each is a patch (patches win ties)
    files: list[tuple[SourceText, bool]] = field(default_factory=list)
    #: inline patches (``patch: |``): their text in the kustomization
    inline: list[MappedText] = field(default_factory=list)
    #: why the overlay is not rendered (each with the span that says so)
    blocked: list[tuple[str, Span]] = field(default_factory=list)
    #: references to files that are not among those vlint was given (inside the lint root, not
    #: there): not proof they are missing from the repository, so the overlay is not checked, a note
    absent: list[tuple[str, Span]] = field(default_factory=list)
    refused: bool = False
    #: the kustomization files below the overlay's own (bases, components)
    kustomization_files: list[SourceText] = field(default_factory=list)
    #: generator inputs and openapi files: read and vetted, copied, not mapped
    data: list[SourceText] = field(default_factory=list)
    kustomizations: int = 0
    seen: set[Path] = field(default_factory=set)

    @property
    def about_vllm(self) -> bool:
        texts = [t.text for t, _ in self.files] + [m.text for m in self.inline]
        return any("vllm" in t.lower() for t in texts)


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    plan = _Plan(read_file, result)
    _kustomization(plan, src, 0)
    if not plan.about_vllm:
        return result
    anchor = Span(src.path, 1, 1, 1, 1)
    shown = str(Path(src.path).parent) if str(Path(src.path).parent) != "." else "."
    result.problems.extend(render_blocked(span, "the overlay", "overlay", shown, why) for why, span in plan.blocked)
    how = f"kubectl kustomize {shown} | vlint -"
    if plan.absent:
        names = ", ".join(f"{ref} (line {span.line})" for ref, span in plan.absent)
        why = f"{names} {'is' if len(plan.absent) == 1 else 'are'} not among the files vlint was given"
        result.notes.append(not_checked("the kustomize overlay", shown, why, how))
    if plan.blocked or plan.refused or plan.absent:
        return result
    if not settings().enabled:
        result.problems.append(
            not_rendered(anchor, "the kustomize overlay", "overlay", shown, settings().off_reason, how)
        )
        return result
    tool = tools.find_tool("kustomize")
    argv = [tool, "build"] if tool else None
    if argv is None:
        kubectl = tools.find_tool("kubectl")
        argv = [kubectl, "kustomize"] if kubectl else None
    if argv is None:
        why = tools.not_found(
            ("kustomize", "kubectl"),
            "neither kubectl nor kustomize is on PATH (install kubectl, which ships kustomize)",
        )
        # a tool that is not here is a fact about this run, not a problem of the overlay: a note
        result.notes.append(not_checked("the kustomize overlay", shown, why, how))
        return result
    if settings().budget.used_up:
        why = f"the run's rendering time budget ({RUN_BUDGET:.0f} s) is used up"
        result.problems.append(not_rendered(anchor, "the kustomize overlay", "overlay", shown, why, how))
        return result
    with tempfile.TemporaryDirectory(prefix="vlint-kustomize-") as tmp:
        overlay = _write_copy(plan, src, Path(tmp) / "tree")
        run = tools.run_tool(
            [*argv, str(overlay), "--load-restrictor", "LoadRestrictionsRootOnly"], budget=settings().budget
        )
        run.error = run.error.replace(str(overlay), shown).replace(str(Path(tmp) / "tree"), ".")
    if not run.ok:
        if "is not in or below" in run.error:
            run.error += (
                " (kustomize's load restrictor, LoadRestrictionsRootOnly, the default of kubectl apply -k too, "
                "refuses files outside the overlay's folder: make the base a folder with its own kustomization.yaml)"
            )
        result.problems.append(
            Problem(
                "VL631",
                anchor,
                f"kustomize could not render {shown}: {run.error}; the vLLM launches it builds are not checked",
                {"overlay": shown, "error": run.error},
            )
        )
        return result
    found = lint_rendered(run.output, src, read_file, _origins(plan, src), anchor, "kustomize")
    found.linked = [t.abspath for t, _ in plan.files] + [k.abspath for k in plan.kustomization_files]
    found.linked += [d.abspath for d in plan.data]
    merge(found, result)
    return result


def _write_copy(plan: _Plan, src: SourceText, tree: Path) -> Path:
    """Write every file vlint read for the overlay below ``tree``, at its place relative to the folder
    that holds them all (real locations: the reader resolved every link); the overlay's folder in the copy."""
    texts = [src, *plan.kustomization_files, *(t for t, _ in plan.files), *plan.data]
    reals = [real_path(t.abspath) for t in texts]
    base = Path(os.path.commonpath([str(r.parent) for r in reals]))
    for text, real in zip(texts, reals, strict=True):
        target = tree / real.relative_to(base)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.text, encoding="utf-8")
    return tree / reals[0].parent.relative_to(base)


def _origins(plan: _Plan, src: SourceText) -> Origins:
    origins = Origins(later_wins=True)
    for rank, (text, patch) in enumerate(plan.files):
        origins.add_yaml(text.path, text.text, rank + (1_000_000 if patch else 0))
    # images/replicas/namespace set in the kustomizations themselves (the overlay's last)
    for rank, k in enumerate([*reversed(plan.kustomization_files), src]):
        origins.add_yaml(k.path, k.text, 3_000_000 + rank)
    for k, mt in enumerate(plan.inline):
        origins.add_embedded(mt, 2_000_000 + k)
    return origins


# -- reading the kustomization tree --------------------------------------------------------------
def _kustomization(plan: _Plan, src: SourceText, depth: int) -> None:
    if src.abspath in plan.seen:
        return
    plan.seen.add(src.abspath)
    plan.kustomizations += 1
    if depth:
        plan.kustomization_files.append(src)
    if plan.kustomizations > _MAX_KUSTOMIZATIONS or depth > _MAX_DEPTH:
        plan.blocked.append(("more kustomizations than vlint follows", Span(src.path, 1, 1, 1, 1)))
        return
    lines = LineIndex(src.path, src.text)
    docs = compose_documents(src.text, src.path)
    root = docs.nodes[0] if docs.nodes else None
    if docs.errors or not isinstance(root, MappingNode):
        plan.blocked.append((f"{src.path} is not a kustomization vlint can read", Span(src.path, 1, 1, 1, 1)))
        return
    folder = src.abspath.parent
    patches: list[tuple[str, Span]] = []
    for key, value in root.value:
        if not isinstance(key, ScalarNode):
            continue
        name = str(key.value)
        span = lines.node_span(key)
        if name in _NOT_RUN:
            plan.blocked.append((_NOT_RUN[name], span))
        elif name in _PATH_LISTS:
            for ref in items(value):
                _ref(plan, folder, ref, lines, depth, allow_dir=True)
        elif name == "patchesStrategicMerge":
            for ref in items(value):
                text = scalar(ref) or ""
                if "\n" in text or (":" in text.split("\n", 1)[0] and " " in text):
                    plan.inline.append(scalar_text(ref, lines))  # type: ignore[arg-type]
                else:
                    patches.append((text, lines.node_span(ref)))
                    _ref(plan, folder, ref, lines, depth, patch=True)
        elif name in ("patches", "patchesJson6902", "replacements"):
            for entry in items(value):
                path_node = get(entry, "path")
                if path_node is not None:
                    _ref(plan, folder, path_node, lines, depth, patch=True)
                inline = get(entry, "patch")
                if isinstance(inline, ScalarNode):
                    plan.inline.append(scalar_text(inline, lines))
        elif name in ("configMapGenerator", "secretGenerator"):
            for entry in items(value):
                for ref in [*items(get(entry, "files")), *items(get(entry, "envs")), get(entry, "env")]:
                    if isinstance(ref, ScalarNode):
                        text = str(ref.value)
                        _ref(plan, folder, ref, lines, depth, text=text.split("=", 1)[-1], data=True)
        elif name == "openapi":
            path_node = get(value, "path")
            if path_node is not None:
                _ref(plan, folder, path_node, lines, depth, data=True)
        elif name not in _PLAIN_FIELDS:
            plan.blocked.append((f"the kustomization field {name!r} is not one vlint knows to be safe to render", span))


def _is_remote(ref: str, folder: Path) -> bool:
    """Whether kustomize may take ``ref`` for a remote resource or git repository. Kustomize
    (api/internal/git/repospec.go ``NewRepoSpecFromURL``, tried *before* the file system for bases)
    takes a URL with a scheme, ``git::…``, ``gh:…``, ``github.com/…`` or ``github.com:…``, and any
    ``user@host:path`` or ``user@host/path`` (scp style: a user name before the first ``/``); a query
    (``?ref=``, ``?version=``, ``?timeout=``, ``?submodules=``) belongs to those forms only. Anything
    that may be one of them is remote here, a folder of that name on disk included."""
    lower = ref.lower()
    if _URL.match(ref) or lower.startswith(_REMOTE_PREFIXES) or "?" in ref:
        return True
    first = ref.split("/", 1)[0]
    if "@" in first or (":" in first and not first.endswith(":")):
        return True
    return "." in first.strip(".") and "/" in ref and not (folder / ref).exists()


def _ref(
    plan: _Plan,
    folder: Path,
    node: Node,
    lines: LineIndex,
    depth: int,
    *,
    allow_dir: bool = False,
    patch: bool = False,
    data: bool = False,
    text: str | None = None,
) -> None:
    ref = (text if text is not None else scalar(node)) or ""
    span = lines.node_span(node)
    if not ref:
        return
    if _is_remote(ref, folder):
        plan.blocked.append((f"the remote base or resource {ref} is not fetched (vlint never downloads)", span))
        return
    if Path(ref).is_absolute() or ref.startswith("~"):
        plan.blocked.append((f"the absolute path {ref} is not rendered (name it relative to the kustomization)", span))
        return
    target = folder / ref
    try:
        sub = plan.read_file(target)
    except OutsideRoot as e:
        plan.refused = True
        refused(e, span, plan.result.problems, f"the kustomize reference {ref}")
        return
    except SourceError as e:
        if allow_dir and "directory" in e.message:
            _folder(plan, target, span, depth)
            return
        if e.message == "no such file":  # not given to vlint: maybe in the repository all the same
            plan.absent.append((ref, span))
        else:
            plan.blocked.append((f"{ref} cannot be read ({e.message})", span))
        return
    if data:
        plan.data.append(sub)
    else:
        plan.files.append((sub, patch))


def _folder(plan: _Plan, folder: Path, span: Span, depth: int) -> None:
    for name in KUSTOMIZATION_NAMES:
        try:
            sub = plan.read_file(folder / name)
        except OutsideRoot as e:
            plan.refused = True
            refused(e, span, plan.result.problems, f"the kustomize base {folder.name}")
            return
        except SourceError:
            continue
        _kustomization(plan, sub, depth + 1)
        return
    plan.blocked.append((f"{folder.name}/ has no kustomization.yaml", span))
