"""go-task Taskfiles (``Taskfile.yml``): the vLLM launches in each task's ``cmds``.

A task's ``cmds`` are shell lines (task runs them with mvdan/sh), written as strings or as
``{cmd: …}`` mappings; ``vars:`` (global, then the task's) fill ``{{.NAME}}`` before the line runs, and
``env:`` (global, then the task's) is the command's environment (taskfile.dev/usage). A variable whose
value is not a plain string (``sh:`` dynamic variables, references) and task's own variables such as
``{{.CLI_ARGS}}`` are unresolved; other template expressions are too.
"""

from __future__ import annotations

from vlint.core.invocation import Token
from vlint.core.lazy_re import lazy_compile
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.containers.compose import YamlDoc, get, items, load_yaml, seq
from vlint.sources.containers.dockerfile import Container, Piece, merge_result, script_launches
from vlint.sources.containers.dotenv import Mapped
from vlint.sources.expansion_budget import ExpansionBudget, current
from vlint.sources.sniffing import taskfile as sniff  # noqa: F401 - re-exported: callers use taskfile.sniff
from vlint.sources.yaml_nodes import MappingNode, Node, ScalarNode

NAME = "taskfile"

_SIMPLE = lazy_compile(r"[ \t]*\.([A-Za-z_][A-Za-z0-9_]*)[ \t]*")


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    budget = current()
    for doc in load_yaml(src):
        root = doc.root
        if not isinstance(root, MappingNode) or get(root, "tasks") is None:
            continue
        gvars = _vars(get(root, "vars"), doc, {}, budget)
        genv = _env(get(root, "env"), doc, gvars, budget)
        for key, task in items(get(root, "tasks")):
            name = str(key.value)
            tvars = _vars(get(task, "vars"), doc, gvars, budget)
            env = {**genv, **_env(get(task, "env"), doc, tvars, budget)}
            for tok_name, tok in env.items():
                result.assignments.append((tok_name, tok))
            cmds = get(task, "cmds") if isinstance(task, MappingNode) else task
            entries = seq(cmds) or ([cmds] if isinstance(cmds, ScalarNode) else [])
            for cmd in entries:
                node = get(cmd, "cmd") if isinstance(cmd, MappingNode) else cmd
                body = doc.text(node)
                if body is None or ("vllm" not in body.text.lower() and "{{" not in body.text):
                    continue
                c = Container(NAME, f"task {name}", env, {}, src.abspath.parent, read_file)
                merge_result(script_launches(Piece(_fill(body, tvars, budget), doc.posmap), c), result)
    return result


def _vars(
    node: Node | None, doc: YamlDoc, outer: dict[str, Mapped | None], budget: ExpansionBudget
) -> dict[str, Mapped | None]:
    out = dict(outer)
    for k, v in items(node):
        m = doc.text(v)
        out[str(k.value)] = _fill(m, out, budget) if m is not None else None
    return out


def _env(node: Node | None, doc: YamlDoc, tvars: dict[str, Mapped | None], budget: ExpansionBudget) -> dict[str, Token]:
    out: dict[str, Token] = {}
    for k, v in items(node):
        span = doc.key_value_span(k, v)
        m = doc.text(v)
        if m is None:
            out[str(k.value)] = Token("$" + str(k.value), span, True)
            continue
        filled = _fill(m, tvars, budget)
        out[str(k.value)] = Token(filled.text, span, filled.is_unresolved())
    return out


def _fill(m: Mapped, tvars: dict[str, Mapped | None], budget: ExpansionBudget) -> Mapped:
    """``{{.NAME}}`` replaced by the variable's value while the file's expansion budget lasts (a
    variable may be made of others: ``B: '{{.A}}{{.A}}'`` doubles per line); other expressions, and
    what is past the budget, kept unresolved."""
    pieces: list[Mapped] = []  # joined once (Mapped.concat): appending piece by piece is quadratic
    s = m.text
    pos = 0
    i = s.find("{{")
    while i >= 0:
        j = s.find("}}", i + 2)
        if j < 0:
            break
        pieces.append(m.slice(pos, i))
        lo, hi = m.origin(i, j + 2)
        simple = _SIMPLE.fullmatch(s, i + 2, j)
        value = tvars.get(simple.group(1)) if simple is not None else None
        if value is not None and not value.is_unresolved() and budget.spend(len(value.text)):
            pieces.append(Mapped.literal(value.text, lo, hi))
        else:
            pieces.append(Mapped.unresolved_text(s[i : j + 2], lo, hi))
        pos = j + 2
        i = s.find("{{", pos)
    pieces.append(m.slice(pos, len(s)))
    return Mapped.concat(pieces)
