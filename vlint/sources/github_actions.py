"""GitHub Actions: ``run:`` steps of workflows (``jobs.*.steps[*]``) and composite actions
(``action.yml`` with ``runs.using: composite``).

A step's script runs in bash with the workflow, job and step ``env:`` merged (innermost wins).
GitHub replaces every ``${{ … }}`` expression in the script text before bash sees it: vlint does
the same for the expressions it can evaluate without a run — ``env.NAME`` with a literal value, and
``inputs.NAME`` with a declared ``default`` — and keeps every other expression (``secrets.*``,
``matrix.*``, ``steps.*``, functions) as an unresolved value with its ``${{ … }}`` spelling.
"""

from __future__ import annotations

from pathlib import Path

from vlint.core.invocation import Token
from vlint.core.lazy_re import lazy_compile
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.containers.compose import YamlDoc, first_mapping, get, items, plain, seq
from vlint.sources.containers.dockerfile import Container, Piece, merge_result, script_launches
from vlint.sources.containers.dotenv import Mapped
from vlint.sources.expansion_budget import current
from vlint.sources.sniffing import github_actions as sniff  # noqa: F401 - re-exported: callers use github_actions.sniff
from vlint.sources.sniffing import iter_expressions
from vlint.sources.yaml_nodes import Node, ScalarNode

NAME = "github-actions"

_SIMPLE = lazy_compile(r"^\s*(env|inputs)\.([A-Za-z_][A-Za-z0-9_-]*)\s*$")
_SHELLS = {"bash", "sh"}


def _scope(node: Node | None, doc: YamlDoc, outer: dict[str, Token], inputs: dict[str, Token]) -> dict[str, Token]:
    """``env:`` values over ``outer`` (expressions in them resolved against ``outer``)."""
    env = dict(outer)
    for k, v in items(node):
        name = str(k.value)
        span = doc.key_value_span(k, v)
        m = doc.text(v)
        if m is None:
            env[name] = Token("$" + name, span, True)
            continue
        value = _expressions(m, outer, inputs)
        env[name] = Token(value.text, span, value.is_unresolved())
    return env


def _expressions(m: Mapped, env: dict[str, Token], inputs: dict[str, Token]) -> Mapped:
    """``m`` with the ``${{ … }}`` expressions GitHub would substitute, while the file's expansion
    budget lasts (a job's ``env:`` may repeat the workflow's values, a step's the job's…)."""
    budget = current()
    pieces: list[Mapped] = []  # joined once (Mapped.concat): appending piece by piece is quadratic
    pos = 0
    for start, end in iter_expressions(m.text):
        pieces.append(m.slice(pos, start))
        lo, hi = m.origin(start, end)
        simple = _SIMPLE.match(m.text[start + 3 : end - 2])
        tok = None
        if simple is not None:
            tok = (env if simple.group(1) == "env" else inputs).get(simple.group(2))
        if tok is not None and not tok.unresolved and budget.spend(len(tok.text)):
            pieces.append(Mapped.literal(tok.text, lo, hi))
        else:
            pieces.append(Mapped.unresolved_text(m.text[start:end], lo, hi))
        pos = end
    pieces.append(m.slice(pos, len(m.text)))
    return Mapped.concat(pieces)


def _inputs(node: Node | None, doc: YamlDoc) -> dict[str, Token]:
    out: dict[str, Token] = {}
    for k, v in items(node):
        d = get(v, "default")
        m = doc.text(d)
        if m is not None and not (isinstance(d, ScalarNode) and d.tag.endswith(":null")):
            out[str(k.value)] = Token(m.text, doc.span(d), False)  # type: ignore[arg-type]
    return out


def _workspace(src: SourceText) -> Path:
    """The repository root steps run in (the folder holding ``.github``), else the file's folder."""
    parts = src.abspath.parts
    if ".github" in parts:
        return Path(*parts[: parts.index(".github")])
    return src.abspath.parent


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    doc = first_mapping(src)
    if doc is None:
        return result
    root = doc.root
    workspace = _workspace(src)
    seen: set[int] = set()
    jobs = get(root, "jobs")
    if jobs is not None:
        on = get(root, "on") or get(root, "true")  # YAML 1.1 reads a bare `on:` key as true
        inputs = _inputs(get(on, "workflow_call", "inputs"), doc) if on is not None else {}
        inputs.update(_inputs(get(on, "workflow_dispatch", "inputs"), doc) if on is not None else {})
        wf_env = _scope(get(root, "env"), doc, {}, inputs)
        for job_key, job in items(jobs):
            job_env = _scope(get(job, "env"), doc, wf_env, inputs)
            for step in seq(get(job, "steps")):
                _step(step, doc, job_env, inputs, f"job {job_key.value}", workspace, read_file, result, seen)
    runs = get(root, "runs")
    if runs is not None and str(plain(get(runs, "using")) or "") == "composite":
        inputs = _inputs(get(root, "inputs"), doc)
        for step in seq(get(runs, "steps")):
            _step(step, doc, {}, inputs, "composite action", workspace, read_file, result, seen)
    return result


def _step(
    step: Node,
    doc: YamlDoc,
    outer: dict[str, Token],
    inputs: dict[str, Token],
    where: str,
    workspace: Path,
    read_file: ReadFile,
    result: SourceResult,
    seen: set[int],
) -> None:
    run = get(step, "run")
    if not isinstance(run, ScalarNode) or id(run) in seen:
        return  # an aliased `run: *script` was read where the anchor is
    seen.add(id(run))
    shell = str(plain(get(step, "shell")) or "bash").split()[0].rsplit("/", 1)[-1]
    if shell not in _SHELLS:
        return
    env = _scope(get(step, "env"), doc, outer, inputs)
    body = doc.text(run)
    if body is None:
        return
    script = _expressions(body, env, inputs)
    name = plain(get(step, "name")) or plain(get(step, "id")) or f"line {run.start_mark.line + 1}"
    wd = plain(get(step, "working-directory"))
    base = workspace / str(wd) if isinstance(wd, str) and "${{" not in wd else workspace
    for tok_name, tok in env.items():
        result.assignments.append((tok_name, tok))
    c = Container(NAME, f"{where}, step {name}", env, {}, base, read_file)
    found = script_launches(Piece(script, doc.posmap), c)
    merge_result(found, result)
