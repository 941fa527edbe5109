"""The settings of a run, file by file: the command line over the nearest configuration.

For each linted file, :meth:`RunSettings.for_file` folds the tables that apply to it — its nearest
config file (:mod:`vlint.config.files`), the files that one extends, their ``per-path`` tables whose glob
matches — and then the command line on top, into the engine (rule selection, severities, rule
options), the resolver's options (command-line facts, and the config's defaults for what the files
do not state: :mod:`vlint.config.precedence`), ``fail-on`` and the per-file ignores. ``check``, ``fix``,
``explain`` and ``size`` all get their settings here, so they agree on every file.

Engines, catalogs and resolver options are built once per distinct combination and shared.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from vlint.commands.common import SettingsError, UsageProblem, load_rules, parse_gpu, unknown_gpu_message
from vlint.config.files import Config, ConfigError, ConfigFinder, Layer, display_config, glob_match
from vlint.config.precedence import ConfigDefaults
from vlint.core.record import field, record
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.security.lint_root import is_within

if TYPE_CHECKING:
    from vlint.core.finding import Finding
    from vlint.core.version import Version
    from vlint.engine.catalog import Catalog
    from vlint.engine.results import LintReport
    from vlint.engine.runner import Engine
    from vlint.launch.resolver import ResolveOptions
    from vlint.security.lint_root import LintRoot

DEFAULT_FAIL_ON = "warning"
DEFAULT_MAX_FILE_SIZE = 10  # MiB


@record(slots=True)
class CliSettings:
    """What the command line says (None / empty: not given)."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fail_on: str | None = None
    vllm_version: str | None = None
    gpu: str | None = None
    gpu_memory_gib: float | None = None
    gpu_free_gib: float | None = None
    rules_dirs: tuple[Path, ...] = ()
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    max_file_size: int | None = None
    baseline: Path | None = None
    online: bool = False
    #: ``--model-config [NAME=]PATH``: model name → absolute path ("" for every launch)
    model_configs: dict[str, str] = field(default_factory=dict)
    #: ``--set key=value`` (explain)
    overrides: dict[str, str] = field(default_factory=dict)
    config_file: Path | None = None
    isolated: bool = False


@record(slots=True)
class FileSettings:
    """Everything that applies to one linted file."""

    config: Config | None
    engine: Engine
    resolve: ResolveOptions
    fail_on: str
    #: rule codes ``per-file-ignores`` turns off here
    ignored: frozenset[str]
    #: (setting, value, where it comes from), for ``--show-settings``
    origin: list[tuple[str, str, str]]


class RunSettings:
    def __init__(
        self, cli: CliSettings, *, cwd: Path | None = None, fix_selection: bool = False, ceiling: Path | None = None
    ) -> None:
        """``fix_selection``: ``vlint fix``, where ``--select``/``--ignore`` choose which findings to
        fix, not which rules run (every configured rule checks the result). ``ceiling``: configs are
        looked for no higher than this folder (the language server's workspace folder)."""
        self.cli = cli
        self.cwd = Path(os.path.abspath(cwd or Path.cwd()))
        self.finder = ConfigFinder(explicit=cli.config_file, isolated=cli.isolated, cwd=self.cwd, ceiling=ceiling)
        self.fix_selection = fix_selection
        self._lint_root: LintRoot | None = None
        self._catalogs: dict[tuple[Path, ...], Catalog] = {}
        self._engines: dict[str, Engine] = {}
        self._resolves: dict[Any, ResolveOptions] = {}
        self._files: dict[Path, FileSettings] = {}
        self._validated: set[Path] = set()
        #: files and folders the exclude settings skipped in this run
        self.excluded_paths: list[Path] = []
        self.cli_version = self._cli_version()
        if cli.gpu_memory_gib is not None and not 0 < cli.gpu_memory_gib < 10_000:
            raise UsageProblem("must be a positive number of GiB", param_hint="--gpu-memory-gib")
        self.cli_gpu, self.cli_gpu_count = parse_gpu(cli.gpu, check_known=cli.gpu_memory_gib is None)
        if cli.max_file_size is not None and cli.max_file_size <= 0:
            raise UsageProblem("must be positive", param_hint="--max-file-size")

    @property
    def lint_root(self) -> LintRoot | None:
        return self._lint_root

    @lint_root.setter
    def lint_root(self, root: LintRoot | None) -> None:
        self._lint_root = root
        self.finder.guard = None if root is None else _inside_root_guard(root)

    def _cli_version(self) -> Version | None:
        from vlint.core.version import Version

        if not self.cli.vllm_version:
            return None
        v = Version.try_parse(self.cli.vllm_version)
        if v is None:
            raise UsageProblem(f"not a vLLM version: {self.cli.vllm_version!r}", param_hint="--vllm-version")
        return v

    # -- the run as a whole -------------------------------------------------------------------------
    def run_config(self, targets: Iterable[Path] = ()) -> Config | None:
        """The config for what belongs to the run rather than a file (the baseline, the file size
        limit): the one nearest to the common folder of ``targets``, else the current folder's."""
        paths = [Path(os.path.abspath(p)) for p in targets]
        if paths:
            try:
                common = Path(os.path.commonpath([str(p) for p in paths]))
            except ValueError:
                common = paths[0]
            return self.finder.for_folder(common if common.is_dir() else common.parent)
        return self.finder.for_folder(self.cwd)

    def for_run(self, targets: Iterable[Path] = ()) -> FileSettings:
        """The settings of a file in the common folder of ``targets`` (for what is not a file's:
        ``vlint explain --model``, ``vlint size``)."""
        paths = [Path(os.path.abspath(p)) for p in targets] or [self.cwd]
        try:
            common = Path(os.path.commonpath([str(p) for p in paths]))
        except ValueError:
            common = paths[0]
        folder = common if common.is_dir() else common.parent
        return self.for_file(folder / "<run>")

    def max_file_size(self, cfg: Config | None) -> int:
        """MiB: ``--max-file-size``, else the run config's, else 10."""
        if self.cli.max_file_size is not None:
            return self.cli.max_file_size
        return (cfg.max_file_size if cfg is not None else None) or DEFAULT_MAX_FILE_SIZE

    def baseline(self, cfg: Config | None) -> Path | None:
        return self.cli.baseline or (cfg.baseline if cfg is not None else None)

    def catalog(self, rules_dirs: tuple[Path, ...] = ()) -> Catalog:
        hit = self._catalogs.get(rules_dirs)
        if hit is None:
            hit = self._catalogs[rules_dirs] = load_rules(rules_dirs)
        return hit

    # -- one file -----------------------------------------------------------------------------------
    def for_file(self, path: Path) -> FileSettings:
        """The settings of ``path`` (cached). Raises :class:`ConfigError` for a bad config file."""
        key = Path(os.path.abspath(path))
        hit = self._files.get(key)
        if hit is None:
            hit = self._build(key)
            self._files[key] = hit
        return hit

    def engine_and_resolve(self, path: Path) -> tuple[Engine, ResolveOptions]:
        """For :class:`vlint.run.lint.LintOptions.settings_for`."""
        s = self.for_file(path)
        return s.engine, s.resolve

    def _build(self, path: Path) -> FileSettings:
        from vlint.engine.runner import Selection

        cfg = self.finder.for_file(path)
        layers = cfg.layers_for(path) if cfg is not None else []
        origin: list[tuple[str, str, str]] = []
        rules_dirs = self.cli.rules_dirs or (cfg.rules_dirs if cfg is not None else ())
        catalog = self.catalog(rules_dirs)
        if cfg is not None:
            self._validate(cfg, catalog)
        if rules_dirs:
            origin.append(
                ("rules-dir", ", ".join(map(str, rules_dirs)), "--rules-dir" if self.cli.rules_dirs else _where(cfg))
            )
        steps: list[Selection] = []
        for layer in layers:
            opts = {catalog_code(catalog, k): v for k, v in layer.rule_options.items()}
            steps.append(Selection(layer.select, layer.extend_select, layer.ignore, dict(layer.severity), options=opts))
            for key, value in (
                ("select", layer.select),
                ("extend-select", layer.extend_select or None),
                ("ignore", layer.ignore or None),
            ):
                if value is not None:
                    origin.append((key, ", ".join(value) or "(none)", layer.where))
            for ref, sev in layer.severity.items():
                origin.append((f"severity.{ref}", sev, layer.where))
            for ref, values in layer.rule_options.items():
                for name, v in values.items():
                    origin.append((f"rules.{ref}.{name}", json.dumps(v), layer.where))
        cli = self.cli
        if self.fix_selection:  # every rule runs; --select/--extend-select only add (vlint fix)
            final = Selection(None, cli.extend_select + (cli.select or ()), ())
        else:
            final = Selection(cli.select, cli.extend_select, cli.ignore)
        for key, value in (
            ("select", final.select),
            ("extend-select", final.extend_select or None),
            ("ignore", final.ignore or None),
        ):
            if value is not None:
                origin.append((key, ", ".join(value), f"--{key}"))
        final.before = tuple(steps)
        engine = self._engine(catalog, rules_dirs, final)
        fail_on, where = cli.fail_on, "--fail-on"
        if fail_on is None:
            stated = _last_stated(layers, "fail_on")
            fail_on, where = (stated[0], stated[1].where) if stated else (DEFAULT_FAIL_ON, "default")
        origin.append(("fail-on", fail_on, where))
        defaults, model_paths, models = self._defaults(layers, origin)
        resolve = self._resolve_options(defaults, model_paths, models)
        ignored = self._per_file_ignores(cfg, path, catalog, origin)
        return FileSettings(cfg, engine, resolve, fail_on, ignored, origin)

    def _engine(self, catalog: Catalog, rules_dirs: tuple[Path, ...], sel: Any) -> Engine:
        from vlint.engine.catalog import RuleError
        from vlint.engine.runner import Engine

        key = json.dumps([list(map(str, rules_dirs)), _selection_key(sel)], default=str)
        hit = self._engines.get(key)
        if hit is None:
            try:
                hit = Engine(catalog, sel)
            except RuleError as e:
                raise SettingsError(str(e)) from None
            self._engines[key] = hit
        return hit

    def _defaults(
        self, layers: list[Layer], origin: list[tuple[str, str, str]]
    ) -> tuple[ConfigDefaults, dict[str, str], dict[str, str]]:
        """The config's vllm-version / gpu / gpu-memory-gib / reference-gpus defaults, the model-paths
        mapping and the models mapping (merged key by key, the later table wins)."""
        from vlint.core.version import Version

        version = version_source = None
        gpu_layer: Layer | None = None
        memory: float | None = None
        memory_layer: Layer | None = None
        model_paths: dict[str, str] = {}
        models: dict[str, str] = {}
        models_where: dict[str, str] = {}
        reference: Layer | None = None
        free_layer: Layer | None = None
        for layer in layers:
            if layer.gpu_free_gib is not None:
                free_layer = layer
            if layer.vllm_version is not None:
                version, version_source = layer.vllm_version, layer
            if layer.gpu is not None:  # a GPU stated here replaces the memory stated before it
                gpu_layer, memory, memory_layer = layer, layer.gpu_memory_gib, layer
            elif layer.gpu_memory_gib is not None:
                memory, memory_layer = layer.gpu_memory_gib, layer
            model_paths.update(layer.model_paths)
            models.update(layer.models)
            models_where.update(dict.fromkeys(layer.models, layer.where))
            if layer.reference_gpus is not None:
                reference = layer
        d: dict[str, Any] = {}
        if version is not None and version_source is not None:
            v = Version.try_parse(version)
            if v is None:
                raise ConfigError(version_source.file, f"vllm-version: not a vLLM version: {version!r}")
            d["vllm_version"], d["vllm_version_source"] = v, f"vllm-version {version} in {version_source.where}"
            where = "--vllm-version" if self.cli_version else version_source.where
            shown = str(self.cli_version) if self.cli_version else f"{version} (where the files state none)"
            origin.append(("vllm-version", shown, where))
        elif self.cli_version:
            origin.append(("vllm-version", str(self.cli_version), "--vllm-version"))
        if gpu_layer is not None:
            assert gpu_layer.gpu is not None
            try:
                name, count = parse_gpu(gpu_layer.gpu, hint="gpu")
            except UsageProblem as e:
                raise ConfigError(gpu_layer.file, f"gpu: {e.message}") from None
            if memory is None and name is not None:
                from vlint.hardware.gpus import lookup_gpu

                if lookup_gpu(name) is None:
                    raise ConfigError(gpu_layer.file, f"gpu: {unknown_gpu_message(name)}")
            d["gpu"], d["gpu_count"], d["gpu_source"] = name, count, f"gpu {gpu_layer.gpu} in {gpu_layer.where}"
        if memory is not None and memory_layer is not None:
            d["gpu_memory_gib"] = memory
            d["gpu_memory_source"] = f"gpu-memory-gib {memory} in {memory_layer.where}"
        if self.cli.gpu or self.cli.gpu_memory_gib is not None:
            shown = self.cli.gpu or f"{self.cli.gpu_memory_gib} GiB"
            origin.append(("gpu", shown, "--gpu" if self.cli.gpu else "--gpu-memory-gib"))
        elif gpu_layer is not None:
            origin.append(("gpu", f"{gpu_layer.gpu} (where the files state none)", gpu_layer.where))
        if memory is not None and memory_layer is not None and self.cli.gpu_memory_gib is None:
            origin.append(("gpu-memory-gib", f"{memory} (with the config's gpu)", memory_layer.where))
        if free_layer is not None:
            d["gpu_free_gib"] = free_layer.gpu_free_gib
            d["gpu_free_source"] = f"gpu-free-gib {free_layer.gpu_free_gib:g} in {free_layer.where}"
            if self.cli.gpu_free_gib is None:
                origin.append(("gpu-free-gib", str(free_layer.gpu_free_gib), free_layer.where))
        if self.cli.gpu_free_gib is not None:
            origin.append(("gpu-free-gib", str(self.cli.gpu_free_gib), "--gpu-free-gib"))
        if reference is not None and reference.reference_gpus is not None:
            from vlint.hardware.gpus import lookup_gpu

            for name in reference.reference_gpus:
                if lookup_gpu(name) is None:
                    raise ConfigError(reference.file, f"reference-gpus: {unknown_gpu_message(name)}")
            d["reference_gpus"] = reference.reference_gpus
            d["reference_gpus_source"] = f"reference-gpus in {reference.where}"
            origin.append(("reference-gpus", ", ".join(reference.reference_gpus), reference.where))
        for model, folder in model_paths.items():
            origin.append((f"model-paths.{model}", folder, "configuration"))
        for name, target in self.cli.model_configs.items():
            origin.append((f"model-config.{name or '*'}", target, "--model-config"))
        for name, target in models.items():
            origin.append((f"models.{name}", target, models_where[name]))
        return ConfigDefaults(**d), model_paths, models

    def _resolve_options(
        self, defaults: ConfigDefaults, model_paths: dict[str, str], models: dict[str, str]
    ) -> ResolveOptions:
        from vlint.launch.resolver import ResolveOptions

        key = (defaults, tuple(sorted(model_paths.items())), tuple(sorted(models.items())))
        hit = self._resolves.get(key)
        if hit is None:
            cli = self.cli
            hit = ResolveOptions(
                vllm_version=self.cli_version,
                gpu=self.cli_gpu,
                gpu_count=self.cli_gpu_count,
                gpu_memory_gib=cli.gpu_memory_gib,
                gpu_free_gib=cli.gpu_free_gib,
                model_paths=dict(model_paths),
                models=dict(models),
                model_configs=dict(cli.model_configs),
                reference_gpus=defaults.reference_gpus or (),
                online=cli.online,
                overrides=dict(cli.overrides),
                lint_root=self.lint_root,
                defaults=defaults,
            )
            self._resolves[key] = hit
        return hit

    def _per_file_ignores(
        self, cfg: Config | None, path: Path, catalog: Catalog, origin: list[tuple[str, str, str]]
    ) -> frozenset[str]:
        if cfg is None:
            return frozenset()
        codes: set[str] = set()
        for layer in cfg.layers:
            for pattern, refs in layer.per_file_ignores.items():
                if glob_match(path, pattern, layer.base):
                    codes |= {r.code for ref in refs for r in catalog.resolve_selector(ref)}
                    origin.append((f"per-file-ignores.{pattern}", ", ".join(refs), layer.where))
        return frozenset(codes)

    def _validate(self, cfg: Config, catalog: Catalog) -> None:
        """Every rule a config names exists (so a typo is an error naming the file, not a silent no-op)."""
        if cfg.path in self._validated:
            return
        self._validated.add(cfg.path)
        for top in cfg.layers:
            for layer in (top, *top.per_path):
                prefix = f'per-path."{layer.pattern}".' if layer.pattern else ""
                named = [
                    *(("select", r) for r in layer.select or ()),
                    *(("extend-select", r) for r in layer.extend_select),
                    *(("ignore", r) for r in layer.ignore),
                    *(("severity", r) for r in layer.severity),
                    *((f"per-file-ignores.{p}", r) for p, refs in layer.per_file_ignores.items() for r in refs),
                ]
                for key, ref in named:
                    if not catalog.resolve_selector(ref):
                        raise ConfigError(
                            layer.file,
                            f"{prefix}{key}: unknown rule {ref!r} (use a code such as VL101, a prefix such as "
                            "VL1, or a name; `vlint rules` lists them)",
                        )
                for ref, values in layer.rule_options.items():
                    rule = catalog.find(ref)
                    if rule is None:  # pragma: no cover - the config schema lists the rules with options
                        raise ConfigError(layer.file, f"{prefix}rules.{ref}: unknown rule")
                    for name in values:
                        if name not in rule.options:
                            known = ", ".join(sorted(rule.options)) or "none"
                            raise ConfigError(
                                layer.file,
                                f"{prefix}rules.{ref}: {rule.code} has no option {name!r} (options: {known})",
                            )

    # -- what is linted -----------------------------------------------------------------------------
    def excluded(self, path: Path, is_dir: bool) -> bool | None:
        """For :class:`vlint.config.discover.DiscoverOptions.excluded`: True to skip ``path``; False to keep
        it even where vlint's default folder list would skip it (an ``exclude`` was stated, which
        replaces that list); None for the default."""
        abspath = Path(os.path.abspath(path))
        cfg = self.finder.for_folder(abspath.parent)
        patterns = self.exclude_patterns(cfg)
        if any(glob_match(abspath, pat, base) for pat, base in patterns):
            self.excluded_paths.append(abspath)
            return True
        if not is_dir:
            self.for_file(abspath)  # load and check its settings now, before any file is checked
        replaced = self.cli.exclude is not None or (cfg is not None and cfg.replaces_default_excludes())
        return False if replaced else None

    def exclude_patterns(self, cfg: Config | None) -> list[tuple[str, Path]]:
        """(glob, the folder it is relative to): the command line's ``--exclude`` replaces the config's
        ``exclude``; every ``extend-exclude`` adds."""
        out: list[tuple[str, Path]] = []
        if self.cli.exclude is not None:
            out = [(p, self.cwd) for p in self.cli.exclude]
            if cfg is not None:
                for layer in cfg.layers:
                    out.extend((p, layer.base) for p in layer.extend_exclude)
        elif cfg is not None:
            out = cfg.exclude_patterns()
        out.extend((p, self.cwd) for p in self.cli.extend_exclude)
        return out

    def is_excluded(self, path: Path) -> bool:
        abspath = Path(os.path.abspath(path))
        patterns = self.exclude_patterns(self.finder.for_folder(abspath.parent))
        return any(glob_match(abspath, pat, base) for pat, base in patterns)

    # -- after the lint ---------------------------------------------------------------------------------
    def apply_filters(self, report: LintReport, root: Path) -> None:
        """Drop findings in excluded files (a file a launch reads may be excluded) and those that
        ``per-file-ignores`` turns off for the file they are in."""
        excluded: dict[str, bool] = {}
        ignored: dict[str, frozenset[str]] = {}

        def is_excluded(shown: str) -> bool:
            if shown not in excluded:
                excluded[shown] = self.is_excluded(root / shown)
            return excluded[shown]

        def ignored_codes(shown: str) -> frozenset[str]:
            if shown not in ignored:
                ignored[shown] = self.for_file(root / shown).ignored
            return ignored[shown]

        def keep(f: Finding) -> bool:
            return not is_excluded(f.span.path) and f.code not in ignored_codes(f.span.path)

        report.files[:] = [fr for fr in report.files if not is_excluded(fr.path)]
        for fr in report.files:
            fr.findings[:] = [f for f in fr.findings if keep(f)]
        report.findings[:] = [f for f in report.findings if keep(f)]

    def fail_on_for(self, root: Path) -> Callable[[Finding], str]:
        """The ``fail-on`` that judges each finding: that of the file it is in."""
        cache: dict[str, str] = {}

        def fail_on(f: Finding) -> str:
            shown = f.span.path
            if shown not in cache:
                cache[shown] = self.for_file(root / shown).fail_on if not shown.startswith("<") else DEFAULT_FAIL_ON
            return cache[shown]

        return fail_on

    # -- --show-settings ----------------------------------------------------------------------------
    def describe(self, path: Path, *, launches: bool = False) -> list[str]:
        """The resolved settings of ``path`` and where each comes from; with ``launches``, also what
        each launch in it resolves to (vLLM release, GPU, model) and why."""
        s = self.for_file(path)
        lines = [f"Settings for {display_config(Path(os.path.abspath(path)))}:"]
        if self.cli.isolated:
            lines.append("  configuration: none (--isolated)")
        elif s.config is None:
            lines.append("  configuration: none found above the file or the current folder (vlint's defaults)")
        else:
            chain = " ← ".join(display_config(f) for f in reversed(s.config.files))
            how = "--config" if self.cli.config_file else "the nearest above the file"
            lines.append(f"  configuration: {chain} ({how})")
        if self.lint_root is not None:
            shown = ", ".join(str(f) for f in self.lint_root.folders)
            lines.append(f"  lint root: {shown} ({self.lint_root.how})")
        width = max((len(k) for k, _, _ in s.origin), default=10)
        for key, value, where in s.origin:
            lines.append(f"  {key:<{width}}  {value}  [{where}]")
        active = sorted(s.engine.active_codes)
        lines.append(f"  rules that run: {len(active)} ({_ranges(active)})")
        if s.ignored:
            lines.append(f"  ignored in this file: {', '.join(sorted(s.ignored))}")
        if s.engine.severity:
            lines.append("  severity overrides: " + ", ".join(f"{c}={v}" for c, v in sorted(s.engine.severity.items())))
        for code, values in sorted(s.engine.options.items()):
            shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(values.items()))
            lines.append(f"  options of {code}: {shown}")
        patterns = self.exclude_patterns(s.config)
        if patterns:
            lines.append("  exclude: " + ", ".join(p for p, _ in patterns))
        if self.is_excluded(path):
            lines.append("  this file is excluded: it is not linted")
        elif launches and Path(path).is_file():
            lines.extend(self._launches(path))
        return lines

    def _launches(self, path: Path) -> list[str]:
        from vlint.run.lint import LintOptions, lint_paths

        s = self.for_file(path)
        opts = LintOptions(resolve=s.resolve, lint_root=self.lint_root, settings_for=self.engine_and_resolve)
        report = lint_paths([Path(path)], s.engine, opts)
        out: list[str] = []
        for fr in report.files:
            if fr.error is not None:
                out.append(f"  {fr.path}: error: {fr.error.message}")
            for dep in fr.deployments:
                inv = dep.invocation
                out.append(f"  launch {inv.label or inv.program} at line {inv.span.line}:")
                out.append(f"    vLLM {dep.version}  [{dep.version_reason}]")
                gpu = f"{dep.gpu.name}" if dep.gpu is not None else "unknown"
                out.append(f"    GPU {gpu}  [{dep.gpu_reason or 'not stated: the memory model is not run'}]")
                if dep.model:
                    out.append(f"    model {dep.model}  [{dep.model_origin or dep.model_note or 'not found'}]")
        if not out:
            out.append("  no vLLM launch in this file")
        return out


def _inside_root_guard(root: LintRoot) -> Callable[[Path, str, Path], str | None]:
    """A config file inside the lint root (which a pull request can write) may name only folders and
    files inside the root with ``extend`` and ``rules-dir``: it cannot make vlint read, as rules or
    configuration, what lies elsewhere on the machine. A config outside the root (the user's own) and
    the ``--config`` file may name anything."""

    def guard(config: Path, key: str, target: Path) -> str | None:
        # from the pull request when it lies in the root as named or as its links resolve: a
        # vlint.toml in the repository linking out is still the repository's
        named = Path(os.path.abspath(config))
        if not (root.contains(config) or any(is_within(named, f) for f in root.folders)):
            return None
        why = root.refusal(target)
        if why is None:
            return None
        if not key:  # the configuration file itself
            return f"{why}: not read (pass it with --config to trust it, or --isolated to ignore it)"
        return (
            f"{why}; a configuration inside the repository may only name paths inside it "
            "(pass it with --config to trust it, or --isolated to ignore it)"
        )

    return guard


def catalog_code(catalog: Catalog, ref: str) -> str:
    rule = catalog.find(ref)
    return rule.code if rule is not None else ref


def _where(cfg: Config | None) -> str:
    return cfg.display_name if cfg is not None else "default"


def _last_stated(layers: list[Layer], attr: str) -> tuple[Any, Layer] | None:
    out = None
    for layer in layers:
        v = getattr(layer, attr)
        if v is not None:
            out = (v, layer)
    return out


def _selection_key(sel: Any) -> Any:
    return [
        [list(s.select) if s.select is not None else None, list(s.extend_select), list(s.ignore), s.severity, s.options]
        for s in (*sel.before, sel)
    ]


def _ranges(codes: list[str]) -> str:
    """``VL001-VL015, VL101…``: codes grouped by hundred."""
    groups: dict[str, list[str]] = {}
    for c in codes:
        groups.setdefault(c[:-2], []).append(c)
    return ", ".join(f"{g[0]}…{g[-1]}" if len(g) > 2 else ", ".join(g) for g in groups.values())
