"""Runs the rule catalog over deployments and files, applying selection and severity overrides.

Rules never touch output formats; the engine turns their hits into :class:`Finding` objects.
"""

from __future__ import annotations

import re
import string

from vlint.checks import CheckContext, Hit, get_check, reads_environment_files
from vlint.core.finding import SEVERITIES, Finding, Fix
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record, replace
from vlint.core.rule import Rule
from vlint.core.span import Span
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.engine.catalog import Catalog, RuleError

if TYPE_CHECKING:
    from collections.abc import Callable

    from vlint.launch.deployment import Deployment
    from vlint.launch.file_context import FileContext


@record(slots=True)
class Selection:
    """Which rules run: ``select`` replaces the default set, ``extend_select`` adds to it, ``ignore``
    removes. ``before`` are earlier steps applied first, in order (the config files' tables, then the
    command line is this one: ruff's chain). Off-by-default rules (``enabled: false``) join only when
    a step names them by code or name, never through a prefix or ``ALL``. ``severity`` overrides by
    selector; ``options`` are per-rule options (rule code → option → value) over the rule's defaults."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)
    before: tuple[Selection, ...] = ()
    options: dict[str, dict[str, Any]] = field(default_factory=dict)


#: a field a message template may name: a plain name, no attribute or index access
_FIELD = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: widths and precisions past this are not formatted (``{x:>3000000000}`` would allocate gigabytes)
MAX_FORMAT_WIDTH = 1000


class _Formatter(string.Formatter):
    """``str.format`` for rule messages, which a repository's own rules (``--rules-dir``, config) may
    write: ``{name}`` and format specs only — ``{x.__class__}``, ``{x[0]}`` and huge widths are
    refused, so a template cannot reach into objects or exhaust memory."""

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        if not _FIELD.fullmatch(field_name):
            raise KeyError(field_name)
        return kwargs[field_name], field_name

    def format_field(self, value: Any, format_spec: str) -> Any:
        if any(int(n) > MAX_FORMAT_WIDTH for n in re.findall(r"\d+", format_spec)):
            raise ValueError(f"format width over {MAX_FORMAT_WIDTH}")
        return format(value, format_spec)


_FMT = _Formatter()


def render_message(template: str, data: dict[str, Any], fallback: str, limit: int = 2000) -> str:
    """``template`` filled from ``data`` (else ``fallback``), at most ``limit`` characters: a longer
    message is cut, ending with "…" and saying so. Fields are formatted one at a time and formatting
    stops at the limit, so ``{model}`` written a hundred times costs no more than the limit."""
    pieces: list[str] = []
    size = 0
    try:
        for literal, name, spec, conversion in _FMT.parse(template):
            pieces.append(literal)
            size += len(literal)
            if name is not None and size <= limit:
                field = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
                pieces.append(_FMT.vformat(field, (), data))
                size += len(pieces[-1])
            if size > limit:
                break
    except (KeyError, IndexError, ValueError, TypeError, AttributeError):
        pieces, size = [fallback], len(fallback)
    text = "".join(pieces)
    if size <= limit:
        return text
    note = f"… (message cut at {limit:,} characters)"
    return text[: max(0, limit - len(note))] + note


class Engine:
    def _message_of(self, code: str, data: dict[str, Any]) -> str | None:
        """Rule ``code``'s message with ``data`` (None when the catalog has no such rule or the data does
        not fill it): for checks that word a finding as another rule does."""
        rule = self.catalog.by_code.get(code)
        if rule is None:
            return None
        text = render_message(rule.message, data, "")
        return text or None

    def __init__(self, catalog: Catalog, selection: Selection | None = None) -> None:
        self.catalog = catalog
        #: compute the fixes checks defer (:meth:`without_fixes`)
        self.compute_fixes = True
        sel = selection or Selection()
        chosen = {r.code for r in catalog.rules if r.enabled}
        self.severity: dict[str, str] = {}
        for step in (*sel.before, sel):
            if step.select is not None:
                chosen = {r.code for ref in step.select for r in self._selected(ref)}
            chosen |= {r.code for ref in step.extend_select for r in self._selected(ref)}
            chosen -= {r.code for ref in step.ignore for r in self._resolve(ref)}
            for ref, sev in step.severity.items():
                if sev not in SEVERITIES:
                    raise RuleError(f"severity for {ref} must be one of {', '.join(SEVERITIES)}, not {sev!r}")
                for r in self._resolve(ref):
                    self.severity[r.code] = sev
        self.active: list[Rule] = [r for r in catalog.rules if r.code in chosen]
        self.active_codes = frozenset(chosen)
        self.options: dict[str, dict[str, Any]] = {}
        for step in (*sel.before, sel):
            for code, values in step.options.items():
                rule = catalog.by_code.get(code)
                if rule is None:
                    raise RuleError(f"options for unknown rule {code!r}")
                unknown = sorted(set(values) - set(rule.options))
                if unknown:
                    known = ", ".join(sorted(rule.options)) or "none"
                    raise RuleError(f"{rule.code} has no option {unknown[0]!r} (its options: {known})")
                self.options.setdefault(code, {}).update(values)
        for r in self.active:
            if r.check and not r.builtin and get_check(r.check) is None:
                raise RuleError(f"{r.path}: check {r.check!r} does not exist")

    def _resolve(self, ref: str) -> list[Rule]:
        rules = self.catalog.resolve_selector(ref)
        if not rules:
            raise RuleError(f"unknown rule {ref!r} (use a code such as VL101, a prefix such as VL1, or a name)")
        return rules

    def _selected(self, ref: str) -> list[Rule]:
        """The rules a select/extend-select selector turns on: off-by-default rules only by their
        own code or name."""
        rules = self._resolve(ref)
        exact = self.catalog.find(ref)
        return rules if exact is not None else [r for r in rules if r.enabled]

    def option(self, rule: Rule, name: str) -> Any:
        """A rule option: the configured value, else the rule's default (``options:`` in its YAML)."""
        configured = self.options.get(rule.code, {})
        if name in configured:
            return configured[name]
        return rule.options[name].get("default")

    def options_for(self, rule: Rule) -> dict[str, Any]:
        return {name: self.option(rule, name) for name in rule.options}

    # -- findings -----------------------------------------------------------------------------
    def without_fixes(self) -> Engine:
        """This engine, making findings without computing the fixes a check defers (``vlint fix`` checks
        an edit by what is reported after it, not by how that would be fixed)."""
        import copy  # only vlint fix makes one: not imported by a plain lint

        other = copy.copy(self)
        other.compute_fixes = False
        return other

    def _finding(self, rule: Rule, hit: Hit, context: str = "") -> Finding:
        data = dict(hit.data)
        message = hit.message or render_message(rule.message, data, rule.summary)
        severity = self.severity.get(rule.code) or hit.severity or rule.severity
        fix = hit.fix
        if callable(fix):
            fix = fix() if self.compute_fixes else None
        return Finding(rule.code, rule.name, severity, hit.span, message, data, fix, context)

    def builtin_finding(
        self,
        code: str,
        span: Span,
        message: str,
        data: dict[str, Any],
        context: str = "",
        fix: Fix | None = None,
        severity: str | None = None,
    ) -> Finding | None:
        """A finding the parser or a source reported itself (``check: builtin`` rules)."""
        if code not in self.active_codes:
            return None
        rule = self.catalog.by_code.get(code)
        if rule is None:  # pragma: no cover - every emitted code has a rule file (tested)
            raise RuleError(f"no rule file for code {code}")
        return self._finding(rule, Hit(span, data, message=message, fix=fix, severity=severity), context)

    def run_deployment(self, dep: Deployment) -> list[Finding]:
        context = describe(dep)
        out = self._deployment_findings(dep, context)
        if dep.arch is not None and dep.arch.inferred_from_name:
            out = self._soften_inferred(dep, out, context)
        if dep.release_guess_alternative is not None:
            out = self._soften_release_guess(dep, out, context)
        if "read_unrendered" in dep.invocation.facts:
            out = self._soften_unrendered(out)
        if "example_env" in dep.invocation.facts:
            out = self._soften_example_env(dep, out)
        if "linked_by_name" in dep.invocation.facts:
            out = self._soften_linked_by_name(dep, out)
        if "settings_by_runtime" in dep.invocation.facts:
            out = self._drop_runtime_defaults(dep, out, context)
        if dep.args.opaque:
            out = self._soften_opaque(dep, out, context)
        if dep.invocation.program in KEYWORD_PROGRAMS:
            out = [_keyword_finding(f) for f in out]
        return out

    def _soften_inferred(self, dep: Deployment, findings: list[Finding], context: str) -> list[Finding]:
        """An error must mean vLLM refuses: one that rests on model facts taken from another model by
        its name (:mod:`vlint.resolve.model_names`) is a warning that says so. Which errors rest on them
        is found by linting the launch again knowing nothing of its model: the errors that remain stand
        (a severity the user set for the rule stands too)."""
        from vlint.launch.resolver import without_model_facts

        assert dep.arch is not None
        why = (
            f" (this rests on model facts inferred from the name: {dep.arch.inferred_from_name}; map the model "
            "in [tool.vlint] models or pass --model-config to check it for certain)"
        )
        data = {"model_facts": "inferred from the name"}
        return self._soften_resting(findings, without_model_facts, dep, context, why, data)

    def _soften_opaque(self, dep: Deployment, findings: list[Finding], context: str) -> list[Finding]:
        """Words vlint cannot read (``$EXTRA_ARGS``, an array element it does not know) may set any option:
        an error that rests on the default of an option the launch does not write is a warning that
        says so. Which errors rest on one is found by linting the launch again with those options
        unknown: the errors that remain stand (a value written wrong stays an error)."""
        from vlint.launch.resolver import with_unread_settings

        unread = sorted({t.text for t in dep.invocation.args if t.unresolved})
        named = ", ".join(unread[:3]) + (", …" if len(unread) > 3 else "") if unread else "what vlint could not read"
        why = (
            f" (this assumes {named} set{'s' if len(unread) == 1 else ''} none of the options the launch leaves to "
            "their defaults; vlint cannot read them: write those options out, or pass the values with vlint "
            "explain --set, to check for certain)"
        )
        return self._soften_resting(findings, with_unread_settings, dep, context, why, {"unread_words": unread})

    def _drop_runtime_defaults(self, dep: Deployment, findings: list[Finding], context: str) -> list[Finding]:
        """A platform that writes the launch's command line itself (a KAITO preset: the parallelism from
        the model's size and the node's GPUs, the GPU memory utilization from the free memory, the
        longest context that fits by probing) replaces vLLM's defaults at start: a finding that rests on
        the default of an option the launch leaves unwritten is not this launch's, and is dropped. Which
        findings rest on one is found, as for :meth:`_soften_opaque`, by linting the launch again with
        those options unknown; the findings that recur stand. (A preset too large for the instance's
        GPUs is refused by KAITO's webhook before anything runs: "Insufficient total GPU memory",
        kaito-project/kaito api/v1beta1/workspace_validation.go:640-665 at 056b8280.)"""
        from vlint.launch.resolver import with_unread_settings

        codes = {f.code for f in findings}
        if not codes:
            return findings
        standing = {
            (f.code, f.span.line, f.span.column)
            for f in self._deployment_findings(with_unread_settings(dep), context, codes)
        }
        return [f for f in findings if (f.code, f.span.line, f.span.column) in standing]

    def _soften_resting(
        self,
        findings: list[Finding],
        variant: Callable[[Deployment], Deployment],
        dep: Deployment,
        context: str,
        why: str,
        data: dict[str, Any],
    ) -> list[Finding]:
        """The errors of ``findings`` that do not recur when ``variant(dep)`` is linted again become
        warnings ending in ``why`` (with ``data``); the others, and severities the user set, stand."""
        codes = {f.code for f in findings if f.severity == "error" and f.code not in self.severity}
        if not codes:
            return findings
        standing = {
            (f.code, f.span.line, f.span.column)
            for f in self._deployment_findings(variant(dep), context, codes)
            if f.severity == "error"
        }
        return [
            replace(f, severity="warning", message=f.message + why, data={**f.data, **data})
            if f.severity == "error" and f.code in codes and (f.code, f.span.line, f.span.column) not in standing
            else f
            for f in findings
        ]

    def _soften_unrendered(self, findings: list[Finding]) -> list[Finding]:
        """An error must mean vLLM refuses: on a launch read from a chart's template without rendering it
        (the template's other logic unknown), an error is a warning that says so (severities the user set
        stand)."""
        why = " (read from the chart's template without rendering it: render it with helm to check for certain)"
        return [
            replace(f, severity="warning", message=f.message + why, data={**f.data, "rendered": False})
            if f.severity == "error" and f.code not in self.severity
            else f
            for f in findings
        ]

    def _soften_example_env(self, dep: Deployment, findings: list[Finding]) -> list[Finding]:
        """An error must mean vLLM refuses: a launch whose values come from an example ``.env``
        (``.env.example``, read because the ``.env`` is not in the files) rests on an inference: its errors
        are warnings that say so (severities the user set stand)."""
        fact = dep.invocation.facts["example_env"]
        why = (
            f" (this rests on values of {fact.value}, an example: copy it to .env, or lint the real one, "
            "to check for certain)"
        )
        return [
            replace(f, severity="warning", message=f.message + why, data={**f.data, "example_env": fact.value})
            if f.severity == "error" and f.code not in self.severity
            else f
            for f in findings
        ]

    def _soften_linked_by_name(self, dep: Deployment, findings: list[Finding]) -> list[Finding]:
        """An error must mean vLLM refuses: a launch read from a file taken by its name for the code a
        config runs (a Ray Serve ``import_path`` module beside the RayService, no ``working_dir``) rests on
        that inference: its errors are warnings that say so (severities the user set stand)."""
        fact = dep.invocation.facts["linked_by_name"]
        why = f" (this rests on {fact.detail}: name the working_dir to check for certain)"
        return [
            replace(f, severity="warning", message=f.message + why, data={**f.data, "linked_by_name": fact.value})
            if f.severity == "error" and f.code not in self.severity
            else f
            for f in findings
        ]

    def _soften_release_guess(self, dep: Deployment, findings: list[Finding], context: str) -> list[Finding]:
        """An error must mean vLLM refuses: one that rests on a release that is not a fact — read from a
        custom image's tag past its suffix (:func:`vlint.sources.containers.images.suffixed_release`), or
        assumed because the files name none — is a warning that says so. The errors that stand when the
        launch is linted at the other release (as if the tag named none; the first release with every
        option the launch sets) stand, as do severities the user set. A release an unpinned ``pip install
        vllm`` takes (the newest) is no assumption: those errors stay errors and say where the release
        comes from."""
        # an assumed release softens the argument checks (VL0xx) only: vLLM's refusals of an option or a
        # value change from release to release, while the memory model's band is wider for old releases
        # (a memory failure would turn "too close to call" there and be softened on that ground alone)
        prefix = "" if dep.release_guess else "VL0"
        errors = [
            f for f in findings if f.severity == "error" and f.code not in self.severity and f.code.startswith(prefix)
        ]
        if not errors or dep.release_guess_alternative is None:
            return findings
        codes = {f.code for f in errors}
        other = dep.release_guess_alternative()
        standing = {
            (f.code, f.span.line, f.span.column)
            for f in self._deployment_findings(other, context, codes)
            if f.severity == "error"
        }
        why = dep.release_guess_why
        if dep.release_unpinned:
            # the newest release is what an unpinned install takes: vLLM's refusal there is real; say so
            return [
                replace(f, message=f.message + why, data={**f.data, "release": "unpinned install"})
                if f.severity == "error" and f.code in codes and (f.code, f.span.line, f.span.column) not in standing
                else f
                for f in findings
            ]
        release = "read past a suffix" if dep.release_guess else "assumed"
        return [
            replace(f, severity="warning", message=f.message + why, data={**f.data, "release": release})
            if f.severity == "error" and f.code in codes and (f.code, f.span.line, f.span.column) not in standing
            else f
            for f in findings
        ]

    def _deployment_findings(self, dep: Deployment, context: str, only: set[str] | None = None) -> list[Finding]:
        """The findings of every active rule (``only``: of these codes) on one launch."""
        from vlint.engine.when import matches, settings_document

        out: list[Finding] = []
        for issue in dep.args.issues:
            f = self.builtin_finding(
                issue.code, issue.span, issue.message, issue.data, context, issue.fix, issue.severity
            )
            if f is not None:
                out.append(f)
        for p in dep.invocation.problems:
            f = self.builtin_finding(p.code, p.span, p.message, p.data, context, severity=p.severity)
            if f is not None:
                out.append(f)
        doc: dict[str, Any] | None = None
        for rule in self.active:
            if rule.scope != "deployment" or rule.builtin or (only is not None and rule.code not in only):
                continue
            if rule.when is not None:
                if doc is None:
                    doc = settings_document(dep)
                if matches(rule.when, doc):
                    span = dep.invocation.span
                    data: dict[str, Any] = {"model": dep.model, "vllm_version": str(dep.version)}
                    if rule.at:
                        s = dep.setting(rule.at)
                        if s is not None:
                            span = s.full_span
                        data["value"] = doc["settings"].get(rule.at)
                        data[rule.at] = doc["settings"].get(rule.at)
                    out.append(self._finding(rule, Hit(span, data), context))
                continue
            fn = get_check(rule.check or "")
            if fn is None:
                continue
            for hit in fn(CheckContext(rule, dep=dep, options=self.options_for(rule), message_of=self._message_of)):
                out.append(self._finding(rule, hit, context))
        return out

    def run_file(self, file: FileContext) -> list[Finding]:
        out: list[Finding] = []
        for rule in self.active:
            if rule.builtin:
                continue
            # a file of environment alone that no launch reads: the rules of a launch's variables read its own
            lone = file.environment is not None and rule.scope == "deployment" and rule.when is None
            if rule.scope != "file" and not (lone and reads_environment_files(rule.check or "")):
                continue
            fn = get_check(rule.check or "")
            if fn is None:
                continue
            for hit in fn(CheckContext(rule, file=file, options=self.options_for(rule), message_of=self._message_of)):
                out.append(self._finding(rule, hit))
        for p in file.problems:
            f = self.builtin_finding(p.code, p.span, p.message, p.data)
            if f is not None:
                out.append(f)
        return out


def describe(dep: Deployment) -> str:
    inv = dep.invocation
    label = inv.label or inv.program
    return f"{label} at line {inv.span.line}"


#: launches whose settings are keyword arguments (Python ``LLM(...)``/``EngineArgs(...)``, Ray Serve
#: ``engine_kwargs``): their findings name ``max_model_len``, not ``--max-model-len``
KEYWORD_PROGRAMS = frozenset({"LLM", "ray-serve"})
_FLAG = lazy_compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?: (\d+(?:\.\d+)?)(?![\w.]))?")


def _keyword_finding(f: Finding) -> Finding:
    fix = f.fix
    if fix is not None:
        fix = replace(fix, description=keyword_wording(fix.description))
    return replace(f, message=keyword_wording(f.message), fix=fix)


def keyword_wording(message: str) -> str:
    """``message`` with each vLLM option written as the keyword argument it is (``--max-model-len`` →
    ``max_model_len``, ``--no-enable-prefix-caching`` → ``enable_prefix_caching=False``)."""
    from vlint.argspec.history import is_known_option

    def word(m: re.Match[str]) -> str:
        name, number = m.group(1), m.group(2)
        if name.startswith("no-") and is_known_option(name[3:]):
            return name[3:].replace("-", "_") + "=False" + (f" {number}" if number else "")
        if not is_known_option(name):
            return m.group(0)
        return name.replace("-", "_") + (f"={number}" if number else "")

    return _FLAG.sub(word, message)
