"""Rule documentation: the page ``vlint rule CODE`` prints and ``tools/gen_docs.py`` writes to
``docs/rules/<CODE>.md``. The bad/good examples show vlint's actual output on each case."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from vlint.core.finding import Finding
from vlint.core.rule import Rule, RuleCase
from vlint.engine.catalog import Catalog


def run_case(case: RuleCase, rule: Rule | None = None, catalog: Catalog | None = None) -> list[Finding]:
    """Lint one rule case in a scratch folder; return every finding (all rules of ``catalog``,
    default the bundled one; pass ``load_catalog(extra_dirs=…)`` for custom rules)."""

    from vlint.commands.common import parse_gpu
    from vlint.core.version import Version
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine, Selection
    from vlint.launch.resolver import ResolveOptions
    from vlint.run.lint import LintOptions, lint_paths
    from vlint.security.lint_root import LintRoot, real_path

    opts = ResolveOptions()
    root_arg = ""
    render = True
    diff_base = ""
    args = list(case.args)
    select: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        val = args[i + 1] if i + 1 < len(args) else ""
        if a == "--vllm-version":
            opts.vllm_version = Version.parse(val)
        elif a == "--gpu":
            opts.gpu, opts.gpu_count = parse_gpu(val)
        elif a == "--gpu-memory-gib":
            opts.gpu_memory_gib = float(val)
        elif a == "--gpu-free-gib":
            opts.gpu_free_gib = float(val)
        elif a == "--extend-select":
            select.append(val)
        elif a == "--root":
            root_arg = val
        elif a == "--diff-base":  # the base's files are the case's `before`
            diff_base = val
        elif a == "--no-render":
            render = False
            i += 1
            continue
        else:
            raise ValueError(f"rule case option not supported: {a}")
        i += 2
    catalog = catalog or load_catalog()
    extend = tuple(select) + ((rule.code,) if rule is not None and not rule.enabled else ())
    options = {rule.code: dict(case.options)} if rule is not None and case.options else {}
    engine = Engine(catalog, Selection(extend_select=extend, options=options))
    with tempfile.TemporaryDirectory(prefix="vlint-case-") as tmp:
        root = Path(tmp)
        for name, content in ((case.file, case.content), *case.files):
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding=case.encoding if name == case.file else "utf-8")
        # the scratch folder is the repository: its lint root (or --root, relative to it)
        lint_root = LintRoot(real_path(root / root_arg))
        lint_opts = LintOptions(resolve=opts, root=root, lint_root=lint_root, render=render)
        report = lint_paths([root / case.file], engine, lint_opts)
        if diff_base:
            from vlint.report.upgrade import explain_view
            from vlint.run.git_ref import DictSnapshot
            from vlint.run.upgrade import diff_base as annotate

            snapshot = DictSnapshot({root / name: text for name, text in case.before}, name=diff_base)
            annotate(report, engine, lint_opts, snapshot, explain=explain_view)
    return report.findings


def case_output(findings: list[Finding]) -> str:
    if not findings:
        return "(no findings)"
    return "\n".join(
        f"{f.span.path}:{f.span.line}:{f.span.column}: {f.code} [{f.severity}] {f.message}" for f in findings
    )


def rule_page(rule: Rule) -> str:
    lines = [
        f"# {rule.code} {rule.name}",
        "",
        f"**Severity:** {rule.severity}" + ("" if rule.enabled else " (off by default: enable with `--extend-select`)"),
        "",
        rule.summary,
        "",
    ]
    if rule.docs:
        lines += ["## Why", "", rule.docs.strip(), ""]
    if rule.options:
        lines += ["## Options", "", f"Set in the configuration, e.g. `[tool.vlint.rules.{rule.code}]`:", ""]
        lines += ["| option | default | meaning |", "|---|---|---|"]
        for name, spec in rule.options.items():
            lines.append(f"| `{name}` | `{json.dumps(spec.get('default'))}` | {spec.get('description', '')} |")
        lines.append("")
    for kind, title in (("bad", "Flagged"), ("good", "Not flagged")):
        cases = [c for c in rule.cases if c.doc == kind]
        if not cases:
            continue
        lines += [f"## {title}", ""]
        for c in cases:
            lang = "yaml" if c.file.endswith((".yaml", ".yml")) else "bash"
            lines += [f"### {c.title}", "", f"`{c.file}`:", "", f"```{lang}", c.content.rstrip("\n"), "```", ""]
            for name, content in c.files:
                lines += [f"`{name}`:", "", "```yaml", content.rstrip("\n"), "```", ""]
            for name, content in c.before:
                lang = "yaml" if name.endswith((".yaml", ".yml")) else "text"
                lines += [f"`{name}` at the diff base:", "", f"```{lang}", content.rstrip("\n"), "```", ""]
            if c.args:
                lines += [f"vlint options: `{' '.join(c.args)}`", ""]
            if c.options:
                shown = "; ".join(f"{k} = {json.dumps(v)}" for k, v in c.options)
                lines += [f"configuration: `[tool.vlint.rules.{rule.code}]` {shown}", ""]
            own = [f for f in run_case(c, rule) if f.code == rule.code]
            lines += ["Output:", "", "```text", case_output(own), "```", ""]
    if rule.references:
        lines += ["## References", ""] + [f"- {r}" for r in rule.references] + [""]
    return "\n".join(lines)


def config_rules_schema(rules: list[Rule]) -> dict[str, object]:
    """The ``rules`` table of ``schemas/config.schema.json``: for each rule that takes options, by code
    and by name, an object of exactly its options (each option's JSON Schema from the rule's YAML)."""
    props: dict[str, object] = {}
    for r in sorted(rules, key=lambda r: r.code):
        if not r.options:
            continue
        block = {
            "type": "object",
            "description": f"{r.code} {r.name}: {r.summary}",
            "additionalProperties": False,
            "properties": {name: dict(spec) for name, spec in r.options.items()},
        }
        props[r.code] = block
        props[r.name] = {"$ref": f"#/$defs/key-rules/properties/{r.code}"}
    return {
        "type": "object",
        "description": "Per-rule options: [rules.VL201] threshold = 0.97 (by code or name). Generated from the "
        "options: of rules/*.yaml by tools/gen_docs.py.",
        "additionalProperties": False,
        "properties": props,
    }


def config_schema_with_rules(schema: dict[str, object], rules: list[Rule]) -> dict[str, object]:
    """``schema`` (the config schema) with its generated ``$defs.key-rules`` replaced."""
    out = json.loads(json.dumps(schema))
    out["$defs"]["key-rules"] = config_rules_schema(rules)
    return out  # type: ignore[no-any-return]
