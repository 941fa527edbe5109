"""Where the test suite's time goes: per folder, per file, the slowest tests; before and after.

    python bench/ci_time.py                      # run the suite (serial), write docs/performance.md
    python bench/ci_time.py -n 2                 # the same with pytest-xdist workers
    python bench/ci_time.py --both               # serial, then -n auto (the README's line): both totals
    python bench/ci_time.py --junit run.xml      # no run: read a junit file written before
    python bench/ci_time.py --check run.xml --max-seconds 300   # the CI guard (.ci/run)

The run is ``python -m pytest -p no:randomly --durations=0 --junitxml=FILE [-n N]``; a test's time is its
setup + call + teardown as junit records it, pytest's total is the junit suite time (collection
included). The section between ``<!-- bench/ci_time.py: begin -->`` and ``end`` in docs/performance.md
is replaced: the machine (CPUs, CPU model, load average before and after the run), totals, per-folder
and per-file totals and the 20 slowest tests, each beside the **before** numbers: the baseline run of
issue 24 (commit ``ac7e632``, 3,862 tests, pytest's total 207.7 s), kept below in ``BEFORE_*``
(``--freeze JUNIT`` prints those tables from another junit file; ``--before JUNIT`` compares with one).

``--check JUNIT`` is the guard: exit 1 when pytest's total in that junit file is over ``--max-seconds``,
printing the 20 slowest tests.

Tests merged for speed (issue 24): the five ``test_partial_failure.py::test_output_is_deterministic[FMT]``
are one test, ``test_output_is_deterministic``: five runs (1, 1, 2, 4 and 2 workers) each print one format
and write the other four with ``--also``; every format must be the same bytes in all five runs (5 lints of
the 100-file tree instead of 20, and ``--also`` is now tested against the printed report); likewise the
five ``test_hostile_inputs.py::test_thousands_of_findings_on_one_long_line[FMT]`` are one run that prints
text and writes the other four with ``--also``, all five within the one time limit (stricter than one limit
per format). Every other
test id of the baseline still runs; two tests were
added (``test_bounded_work.py::test_the_deadline_stops_a_quadratic_scan``,
``test_gen_vllm_schema.py::test_check_schema_finds_an_invalid_subschema``: the new shortcuts can fail).
Work is shared instead of repeated, with the same assertions:

* ``test_bounded_work.py``: the 11 ``test_linear_scans[…]`` cases and the 4 .gitignore tests run in one
  child process (``reliability/hostile.py: lint_bounded_many``), each under its own CPU deadline, N =
  100,000 instead of 400,000 (the argument is in that file's docstring);
* ``test_hostile_inputs.py::test_absurd_parallel_sizes_finish[…]``: the 6 sizes in one such child;
* ``userrepo.Repo.vlint`` and the other per-test ``python -m vlint`` helpers (test_config, test_explain,
  test_output_injection, the lone-surrogate test): click's ``CliRunner`` in the test process; the real
  process stays where it is the subject (exit status and ``--version`` of ``python -m vlint``, colour on
  a pipe, a terminal's progress line, the console script from the wheel, pre-commit, the action's step,
  the language server, the import-set probes, RLIMIT children, ``--online`` without a network);
* the property/fuzz budgets: hypothesis profile ``ci`` (tests/budgets.py): the fuzz tests draw a tenth
  of their old budgets (300 examples in all), the shell properties half; ``long`` is the old fuzz budgets
  and 10× the old shell-property ones (``--hypothesis-profile=long``, ``bench/fuzz.py --hypothesis``);
* tests/conftest.py puts the session's temporary folders on ``/dev/shm`` (tmpfs) when ``TMPDIR`` is
  unset: ``rmdir`` on this machine's disk took up to 2.6 ms under load (the oracle replay makes ~3,000
  scratch folders);
* ``test_gen_vllm_schema.py::test_bundled_schema_shape``: each distinct subschema is checked against the
  metaschema once per session; ``test_docs.py``: the rule pages are generated once per session.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- bench/ci_time.py: begin -->", "<!-- bench/ci_time.py: end -->"
HEADING = "## Test suite time"
INTRO = """\
`python bench/ci_time.py` runs the suite with per-test durations and a junit file (serial; `-n N` with
pytest-xdist workers; `--both` serial and then `-n auto`, the README's test line) and writes this section.
`.ci/run` runs the README's test line on a clean clone and then fails when pytest's own total is over
300 s (`bench/ci_time.py --check`), printing the 20 slowest tests."""
SLOWEST = 20


@dataclass
class Run:
    """One suite run, from its junit file."""

    total: float  # pytest's own total (junit suite time)
    tests: int
    skipped: int
    failures: int
    times: dict[str, float] = field(default_factory=dict)  # node id → seconds
    files: dict[str, tuple[float, int]] = field(default_factory=dict)  # file → (seconds, tests)

    def folders(self) -> dict[str, tuple[float, int]]:
        out: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
        for f, (s, n) in self.files.items():
            d = out[f.rsplit("/", 1)[0] if "/" in f else "."]
            d[0] += s
            d[1] += n
        return {k: (v[0], int(v[1])) for k, v in out.items()}


def node_file(classname: str) -> str:
    """``tests.reliability.test_fuzz`` (or ``….TestX``) → ``tests/reliability/test_fuzz.py``."""
    parts = classname.split(".")
    while len(parts) > 1 and parts[-1][:1].isupper():
        parts.pop()
    return "/".join(parts) + ".py"


def read_junit(path: Path) -> Run:
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    run = Run(
        total=sum(float(s.get("time", 0)) for s in suites),
        tests=sum(int(s.get("tests", 0)) for s in suites),
        skipped=sum(int(s.get("skipped", 0)) for s in suites),
        failures=sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites),
    )
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for tc in root.iter("testcase"):
        f = node_file(tc.get("classname", ""))
        seconds = float(tc.get("time", 0) or 0)
        run.times[f"{f}::{tc.get('name')}"] = run.times.get(f"{f}::{tc.get('name')}", 0.0) + seconds
        files[f][0] += seconds
        files[f][1] += 1
    run.files = {k: (v[0], int(v[1])) for k, v in files.items()}
    return run


def before_run() -> Run:
    return Run(
        total=BEFORE_TOTAL["seconds"],
        tests=BEFORE_TOTAL["tests"],
        skipped=BEFORE_TOTAL["skipped"],
        failures=BEFORE_TOTAL["failures"],
        times=dict(BEFORE_TESTS),
        files=dict(BEFORE_FILES),
    )


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        nproc = str(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count())
    return f"`nproc` {nproc}, {model}, Python {platform.python_version()}"


def load() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def fmt_s(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def change(b: float | None, a: float | None) -> str:
    if b is None or a is None:
        return ""
    if b == 0:
        return ""
    return f"{(a - b) / b * 100:+.0f} %"


def section(after: Run, before: Run, info: dict[str, str], parallel: Run | None = None) -> str:
    """The docs section: ``after`` is the run the per-folder and per-file tables show; ``parallel`` (with
    ``--both``) a second run with workers, shown in the totals."""
    par = parallel is not None
    head = "| | before | after |" + (f" after, `-n {info['workers']}` |" if par else "")
    rule = "|---|---|---|" + ("---|" if par else "")

    def row(name: str, b: str, a: str, p: str = "") -> str:
        return f"| {name} | {b} | {a} |" + (f" {p} |" if par else "")

    p = parallel or after
    lines = [
        f"Measured by `python bench/ci_time.py{info['args']}` on {info['date']} (commit {info['commit']}): "
        f"{info['machine']}; load average (1 / 5 / 15 min) {info['load_before']} before the run, "
        f"{info['load_after']} after (the machine is shared: other jobs ran beside it). Before: the baseline "
        f"run of issue 24 on the same machine (commit `ac7e632`, serial). A test's time is its setup + call + "
        f"teardown (junit); the tables below are the {info['tables']} run.",
        "",
        head,
        rule,
        row(
            "pytest's total (collection included)",
            f"{before.total:.1f} s",
            f"{after.total:.1f} s",
            f"{p.total:.1f} s",
        ),
        row("wall time of the pytest command", BEFORE_TOTAL["wall"], info["wall"], info.get("parallel_wall", "")),
        row(
            "tests (skipped)",
            f"{before.tests:,} ({before.skipped})",
            f"{after.tests:,} ({after.skipped})",
            f"{p.tests:,} ({p.skipped})",
        ),
        row("failures and errors", str(before.failures), str(after.failures), str(p.failures)),
        row("sum of the tests' own times", f"{_sum(before):.1f} s", f"{_sum(after):.1f} s", f"{_sum(p):.1f} s"),
        "",
        "Per folder:",
        "",
        "| folder | tests before | tests after | seconds before | seconds after | change |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    bf, af = before.folders(), after.folders()
    for d in sorted(set(bf) | set(af), key=lambda k: -max(bf.get(k, (0, 0))[0], af.get(k, (0, 0))[0])):
        b, a = bf.get(d), af.get(d)
        lines.append(
            f"| `{d}` | {b[1] if b else 0} | {a[1] if a else 0} | {fmt_s(b[0] if b else None)} "
            f"| {fmt_s(a[0] if a else None)} | {change(b[0] if b else None, a[0] if a else None)} |"
        )
    lines += [
        "",
        "Per file (every file; sorted by the larger of the two times):",
        "",
        "| file | tests before | tests after | seconds before | seconds after | change |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    keys = sorted(
        set(before.files) | set(after.files),
        key=lambda k: (-max(before.files.get(k, (0, 0))[0], after.files.get(k, (0, 0))[0]), k),
    )
    for f in keys:
        b, a = before.files.get(f), after.files.get(f)
        lines.append(
            f"| `{f}` | {b[1] if b else 0} | {a[1] if a else 0} | {fmt_s(b[0] if b else None)} "
            f"| {fmt_s(a[0] if a else None)} | {change(b[0] if b else None, a[0] if a else None)} |"
        )
    lines += [
        "",
        f"The {SLOWEST} slowest tests after (before: the same test's time; `<0.1` where the baseline table "
        "keeps no time, `—` where the test did not exist):",
        "",
        "| test | before | after |",
        "|---|---:|---:|",
    ]
    for t, s in sorted(after.times.items(), key=lambda kv: -kv[1])[:SLOWEST]:
        lines.append(f"| `{t}` | {_before_time(before, t)} | {s:.2f} |")
    lines += [
        "",
        f"The {SLOWEST} slowest tests before, and what they take now (`—`: merged or renamed, see the "
        "docstring of bench/ci_time.py):",
        "",
        "| test | before | after |",
        "|---|---:|---:|",
    ]
    for t, s in sorted(before.times.items(), key=lambda kv: -kv[1])[:SLOWEST]:
        lines.append(f"| `{t}` | {s:.2f} | {fmt_s(after.times.get(t))} |")
    return "\n".join(lines)


def _sum(run: Run) -> float:
    return sum(s for s, _ in run.files.values())


def _before_time(before: Run, test: str) -> str:
    if test in before.times:
        return f"{before.times[test]:.2f}"
    f = test.split("::", 1)[0]
    return "<0.1" if f in before.files else "—"


def write_doc(text: str, doc: Path = DOC) -> None:
    """Replace the section between the markers (add it, under its heading, at the end when absent)."""
    old = doc.read_text(encoding="utf-8") if doc.exists() else "# Performance\n"
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        new = head + block + tail
    else:
        intro = f"\n{HEADING}\n\n" + INTRO + "\n\n"
        new = old.rstrip("\n") + "\n" + intro + block + "\n"
    doc.write_text(new, encoding="utf-8")


def run_suite(workers: str | None, junit: Path, extra: list[str]) -> tuple[float, int]:
    cmd = [sys.executable, "-m", "pytest", "-p", "no:randomly", "--durations=0", f"--junitxml={junit}"]
    if workers:
        cmd += ["-n", workers]
    cmd += extra
    print("+", " ".join(cmd), flush=True)
    start = time.perf_counter()
    rc = subprocess.run(cmd, cwd=ROOT).returncode
    return time.perf_counter() - start, rc


def check(junit: Path, limit: float) -> int:
    """The CI guard: pytest's total in ``junit`` at most ``limit`` seconds."""
    run = read_junit(junit)
    if run.total <= limit:
        print(f"suite time: pytest's total {run.total:.1f} s (limit {limit:g} s): ok")
        return 0
    print(f"suite time: pytest's total {run.total:.1f} s is over the limit of {limit:g} s. The {SLOWEST} slowest:")
    for t, s in sorted(run.times.items(), key=lambda kv: -kv[1])[:SLOWEST]:
        print(f"  {s:8.2f} s  {t}")
    return 1


def freeze(junit: Path) -> str:
    """The ``BEFORE_*`` tables of this file, from a junit file."""
    run = read_junit(junit)
    out = [
        f"BEFORE_TOTAL = {{'seconds': {run.total}, 'tests': {run.tests}, 'skipped': {run.skipped}, "
        f"'failures': {run.failures}, 'wall': '?'}}",
        "BEFORE_FILES: dict[str, tuple[float, int]] = {",
    ]
    out += [f"    {f!r}: ({s:.3f}, {n})," for f, (s, n) in sorted(run.files.items())]
    out += ["}", "#: tests of 0.1 s or more", "BEFORE_TESTS: dict[str, float] = {"]
    out += [f"    {t!r}: {s:.3f}," for t, s in sorted(run.times.items()) if s >= 0.1]
    out += ["}"]
    return "\n".join(ln + "  # noqa: E501" if len(ln) > 120 else ln for ln in out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", dest="workers", help="pytest-xdist workers (a number or auto); default: serial")
    ap.add_argument("--both", action="store_true", help="run serial, then with -n (default auto): both totals")
    ap.add_argument("--junit", type=Path, help="read this junit file instead of running the suite")
    ap.add_argument("--wall", help="with --junit: the wall time of that run, as shown in the table")
    ap.add_argument("--before", type=Path, help="compare with this junit file instead of the baseline")
    ap.add_argument("--no-write", action="store_true", help="print the section, leave docs/performance.md")
    ap.add_argument("--check", type=Path, metavar="JUNIT", help="the CI guard: fail when pytest's total is over")
    ap.add_argument("--max-seconds", type=float, default=300.0, help="the guard's limit (default 300)")
    ap.add_argument("--freeze", type=Path, metavar="JUNIT", help="print BEFORE_* tables from a junit file")
    a, extra = ap.parse_known_args(argv)
    if a.check:
        return check(a.check, a.max_seconds)
    if a.freeze:
        print(freeze(a.freeze))
        return 0
    info = {"machine": machine(), "load_before": load(), "date": time.strftime("%Y-%m-%d %H:%M")}
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        info["commit"] = f"`{head}` plus the working tree"
    except (OSError, subprocess.CalledProcessError):
        info["commit"] = "unknown"
    rc = 0
    parallel = None
    info["tables"] = "serial" if not a.workers or a.both else f"`-n {a.workers}`"
    if a.junit:
        junit, info["wall"] = a.junit, a.wall or "not measured"
        info["args"] = f" --junit {a.junit.name}"
    else:
        scratch = Path(tempfile.mkdtemp(prefix="vlint-ci-time-"))
        junit = scratch / "junit.xml"
        wall, rc = run_suite(None if a.both else a.workers, junit, extra)
        info["wall"] = f"{wall:.1f} s"
        info["args"] = " --both" if a.both else (f" -n {a.workers}" if a.workers else "")
        if a.both:
            info["workers"] = a.workers or "auto"
            wall, rc2 = run_suite(info["workers"], scratch / "parallel.xml", extra)
            info["parallel_wall"] = f"{wall:.1f} s"
            parallel = read_junit(scratch / "parallel.xml")
            rc = rc or rc2
    info["load_after"] = load()
    after = read_junit(junit)
    before = read_junit(a.before) if a.before else before_run()
    text = section(after, before, info, parallel)
    if a.no_write:
        print(text)
    else:
        write_doc(text)
        print(f"wrote {DOC.relative_to(ROOT)}: pytest's total {before.total:.1f} s before, {after.total:.1f} s after")
    return rc


# -- the baseline of issue 24 (commit ac7e632, serial, 2-CPU machine): `--freeze` of its junit file --------------
BEFORE_TOTAL = {"seconds": 207.714, "tests": 3862, "skipped": 36, "failures": 0, "wall": "209.2 s (serial)"}
BEFORE_FILES: dict[str, tuple[float, int]] = {
    "tests/argspec/test_config_expand.py": (0.012, 24),
    "tests/argspec/test_parse.py": (0.032, 102),
    "tests/argspec/test_releases.py": (0.592, 535),
    "tests/argspec/test_values.py": (0.004, 88),
    "tests/checks/test_registry_rules.py": (0.662, 576),
    "tests/corpus/test_corpus_compose_docker_etc.py": (0.873, 77),
    "tests/corpus/test_corpus_k8s_helm.py": (1.668, 72),
    "tests/corpus/test_corpus_reach.py": (0.871, 1),
    "tests/corpus/test_corpus_shell_config.py": (0.407, 45),
    "tests/memory/test_calibration.py": (0.153, 90),
    "tests/memory/test_estimate.py": (0.013, 11),
    "tests/memory/test_kv_math.py": (0.004, 11),
    "tests/memory/test_platforms.py": (0.039, 15),
    "tests/memory/test_quant_logs.py": (0.009, 9),
    "tests/memory/test_quant_totals.py": (0.014, 8),
    "tests/memory/test_terms.py": (0.057, 61),
    "tests/reliability/test_cache.py": (1.117, 6),
    "tests/reliability/test_fuzz.py": (33.356, 19),
    "tests/reliability/test_hostile_inputs.py": (11.542, 240),
    "tests/reliability/test_partial_failure.py": (11.753, 14),
    "tests/reliability/test_safety.py": (3.485, 12),
    "tests/reliability/test_startup.py": (0.897, 3),
    "tests/sources/render/test_helm.py": (0.041, 10),
    "tests/sources/render/test_kustomize.py": (0.479, 9),
    "tests/resolve/test_defaults.py": (0.002, 10),
    "tests/resolve/test_dtypes.py": (0.000, 13),
    "tests/resolve/test_gdn_layout.py": (0.002, 5),
    "tests/resolve/test_gpus.py": (0.000, 20),
    "tests/resolve/test_model_arch.py": (0.009, 10),
    "tests/resolve/test_model_catalog.py": (0.141, 6),
    "tests/resolve/test_model_lookup.py": (0.025, 22),
    "tests/resolve/test_model_names.py": (0.034, 43),
    "tests/resolve/test_models_cmd.py": (0.073, 7),
    "tests/resolve/test_nemotron_h.py": (0.003, 4),
    "tests/resolve/test_parallel.py": (0.000, 13),
    "tests/resolve/test_quant_scheme_modelopt.py": (0.001, 4),
    "tests/resolve/test_quantization.py": (0.000, 15),
    "tests/resolve/test_vision_params.py": (0.000, 6),
    "tests/security/test_bounded_work.py": (26.616, 38),
    "tests/security/test_fix_writes.py": (0.038, 6),
    "tests/security/test_lint_root.py": (1.388, 13),
    "tests/security/test_masking.py": (0.761, 12),
    "tests/security/test_online_offline.py": (5.569, 1),
    "tests/security/test_output_injection.py": (1.990, 8),
    "tests/security/test_rule_messages.py": (0.056, 6),
    "tests/server/test_command.py": (0.444, 2),
    "tests/server/test_e2e.py": (4.810, 6),
    "tests/server/test_positions.py": (0.000, 6),
    "tests/server/test_session.py": (0.764, 27),
    "tests/sources/test_compose.py": (0.068, 32),
    "tests/sources/test_dockerfile.py": (0.025, 21),
    "tests/sources/test_dotenv.py": (0.014, 14),
    "tests/sources/test_helm.py": (0.022, 27),
    "tests/sources/test_kaito.py": (0.003, 2),
    "tests/sources/test_kserve_runtime.py": (0.006, 2),
    "tests/sources/test_kubernetes.py": (0.030, 32),
    "tests/sources/test_never_silent.py": (0.049, 5),
    "tests/sources/test_partly_vllm.py": (0.025, 3),
    "tests/sources/test_pins_images.py": (0.084, 54),
    "tests/sources/test_python_ast.py": (0.018, 14),
    "tests/sources/test_python_wording.py": (0.002, 2),
    "tests/sources/test_ray.py": (0.014, 7),
    "tests/sources/test_ray_builders.py": (0.023, 1),
    "tests/sources/test_shell.py": (0.285, 142),
    "tests/sources/test_shell_eval.py": (0.029, 127),
    "tests/sources/test_shell_lexer.py": (0.001, 64),
    "tests/sources/test_shell_properties.py": (1.795, 4),
    "tests/sources/test_skypilot_gha.py": (0.020, 13),
    "tests/sources/test_task_runners.py": (0.023, 10),
    "tests/sources/test_vllm_yaml.py": (0.018, 88),
    "tests/sources/test_yaml_nodes.py": (0.007, 9),
    "tests/integration/test_action.py": (1.716, 13),
    "tests/suppression/test_baseline.py": (0.156, 12),
    "tests/commands/test_check_fix_flag.py": (0.083, 2),
    "tests/integration/test_ci_baseline.py": (2.782, 3),
    "tests/commands/test_cli.py": (1.118, 84),
    "tests/commands/test_cli_usage.py": (4.599, 11),
    "tests/config/test_config.py": (3.542, 21),
    "tests/config/test_config_hierarchy.py": (9.417, 23),
    "tests/engine/test_custom_rules.py": (0.167, 11),
    "tests/commands/test_docs.py": (3.349, 10),
    "tests/report/test_explain.py": (0.701, 6),
    "tests/report/test_explain_whatif.py": (0.038, 5),
    "tests/fix/test_fix.py": (13.175, 30),
    "tests/fix/test_fix_semantics.py": (1.243, 3),
    "tests/argspec/test_flag_version_table.py": (0.059, 14),
    "tests/report/test_github_format.py": (0.137, 8),
    "tests/resolve/test_inferred_facts.py": (0.056, 3),
    "tests/resolve/test_low_confidence_facts.py": (0.053, 6),
    "tests/config/test_models_config.py": (1.566, 4),
    "tests/checks/test_oracle.py": (17.614, 14),
    "tests/memory/test_parallel_memory.py": (0.070, 8),
    "tests/integration/test_precommit.py": (0.600, 29),
    "tests/launch/test_reach.py": (0.656, 19),
    "tests/integration/test_repo_files.py": (0.001, 3),
    "tests/engine/test_rules.py": (1.751, 274),
    "tests/report/test_sarif.py": (2.765, 10),
    "tests/commands/test_schema_cmd.py": (0.295, 5),
    "tests/argspec/test_schema_index.py": (0.378, 7),
    "tests/argspec/test_schema_workflow.py": (0.013, 4),
    "tests/fix/test_size.py": (0.074, 7),
    "tests/suppression/test_suppress.py": (0.082, 24),
    "tests/suppression/test_suppressions_cli.py": (2.106, 4),
    "tests/checks/test_version_checks.py": (0.001, 5),
    "tests/integration/test_wheel.py": (6.981, 3),
    "tests/tools/test_build_model_catalog.py": (0.048, 16),
    "tests/tools/test_gen_encoder_tp_data.py": (0.002, 2),
    "tests/tools/test_gen_vllm_schema.py": (10.460, 145),
}
#: tests of 0.1 s or more
BEFORE_TESTS: dict[str, float] = {
    "tests/corpus/test_corpus_compose_docker_etc.py::test_corpus_file[8]": 0.120,
    "tests/corpus/test_corpus_compose_docker_etc.py::test_totals_per_folder": 0.261,
    "tests/corpus/test_corpus_k8s_helm.py::test_corpus_file[32]": 0.278,
    "tests/corpus/test_corpus_k8s_helm.py::test_corpus_spans[32---gpu-memory-utilization=0.99-19:9]": 0.121,
    "tests/corpus/test_corpus_k8s_helm.py::test_totals_per_folder": 0.528,
    "tests/corpus/test_corpus_reach.py::test_corpus_reach": 0.871,
    "tests/corpus/test_corpus_shell_config.py::test_the_whole_folders_lint_without_a_crash": 0.173,
    "tests/reliability/test_cache.py::test_a_broken_cache_is_ignored": 0.613,
    "tests/reliability/test_cache.py::test_an_edited_rule_file_is_read_again": 0.167,
    "tests/reliability/test_cache.py::test_an_unwritable_cache_folder_is_no_error": 0.149,
    "tests/reliability/test_cache.py::test_cached_rules_are_the_parsed_rules": 0.156,
    "tests/reliability/test_fuzz.py::test_generated_inputs": 8.910,
    "tests/reliability/test_fuzz.py::test_mutated_corpus_files": 5.896,
    "tests/reliability/test_fuzz.py::test_mutated_seed_files": 3.445,
    "tests/reliability/test_fuzz.py::test_structured_inputs[deploy.yaml]": 4.862,
    "tests/reliability/test_fuzz.py::test_structured_inputs[docker-compose.yml]": 3.254,
    "tests/reliability/test_fuzz.py::test_structured_inputs[serve.yaml]": 3.405,
    "tests/reliability/test_fuzz.py::test_structured_inputs[start.sh]": 3.473,
    "tests/reliability/test_hostile_inputs.py::test_absurd_parallel_sizes_finish[-3]": 0.266,
    "tests/reliability/test_hostile_inputs.py::test_absurd_parallel_sizes_finish[0]": 0.268,
    "tests/reliability/test_hostile_inputs.py::test_absurd_parallel_sizes_finish[1000000007]": 0.253,
    "tests/reliability/test_hostile_inputs.py::test_absurd_parallel_sizes_finish[1025]": 0.244,
    "tests/reliability/test_hostile_inputs.py::test_absurd_parallel_sizes_finish[4097]": 0.242,
    "tests/reliability/test_hostile_inputs.py::test_absurd_parallel_sizes_finish[value1]": 0.291,
    "tests/reliability/test_hostile_inputs.py::test_huge_argv_is_refused_quickly": 1.951,
    "tests/reliability/test_hostile_inputs.py::test_matrix_runs_in_bounded_time_and_memory": 3.976,
    "tests/reliability/test_hostile_inputs.py::test_thousands_of_findings_on_one_long_line[github]": 0.615,
    "tests/reliability/test_hostile_inputs.py::test_thousands_of_findings_on_one_long_line[gitlab]": 0.689,
    "tests/reliability/test_hostile_inputs.py::test_thousands_of_findings_on_one_long_line[json]": 0.584,
    "tests/reliability/test_hostile_inputs.py::test_thousands_of_findings_on_one_long_line[sarif]": 1.134,
    "tests/reliability/test_hostile_inputs.py::test_thousands_of_findings_on_one_long_line[text]": 0.532,
    "tests/reliability/test_partial_failure.py::test_97_files_linted_3_errors_exit_2": 0.453,
    "tests/reliability/test_partial_failure.py::test_a_broken_pool_falls_back_to_this_process": 0.910,
    "tests/reliability/test_partial_failure.py::test_config_files_read_by_launches_are_the_same_in_workers": 0.857,
    "tests/reliability/test_partial_failure.py::test_output_is_deterministic[github]": 1.692,
    "tests/reliability/test_partial_failure.py::test_output_is_deterministic[gitlab]": 1.483,
    "tests/reliability/test_partial_failure.py::test_output_is_deterministic[json]": 1.740,
    "tests/reliability/test_partial_failure.py::test_output_is_deterministic[sarif]": 1.629,
    "tests/reliability/test_partial_failure.py::test_output_is_deterministic[text]": 1.509,
    "tests/reliability/test_partial_failure.py::test_text_report_lists_errors_and_findings": 0.554,
    "tests/reliability/test_partial_failure.py::test_the_safety_net_works_in_workers": 0.589,
    "tests/reliability/test_partial_failure.py::test_workers_really_run": 0.296,
    "tests/reliability/test_safety.py::test_no_network_during_a_corpus_run": 1.374,
    "tests/reliability/test_safety.py::test_no_process_is_started": 1.367,
    "tests/reliability/test_safety.py::test_secrets_are_masked_in_the_baseline_and_in_explain": 0.152,
    "tests/reliability/test_safety.py::test_workers_are_forks_not_programs": 0.264,
    "tests/reliability/test_startup.py::test_the_default_path_imports_nothing_heavy[examples/serve.yaml]": 0.281,
    "tests/reliability/test_startup.py::test_the_default_path_imports_nothing_heavy[examples/start.sh]": 0.284,
    "tests/reliability/test_startup.py::test_the_default_path_imports_nothing_heavy[examples]": 0.332,
    "tests/sources/render/test_kustomize.py::test_overlay_findings_point_at_the_patch_that_set_the_value": 0.292,
    "tests/resolve/test_model_catalog.py::test_plain_import_does_not_read_the_catalog": 0.131,
    "tests/security/test_bounded_work.py::test_catastrophic_gitignore_glob": 0.321,
    "tests/security/test_bounded_work.py::test_gitignore_linked_to_dev_zero": 0.259,
    "tests/security/test_bounded_work.py::test_gitignore_outside_the_root_is_not_read": 0.260,
    "tests/security/test_bounded_work.py::test_huge_python_and_yaml_files_are_refused_cheaply": 0.712,
    "tests/security/test_bounded_work.py::test_invalid_gitignore_range_is_not_an_aborted_run": 0.261,
    "tests/security/test_bounded_work.py::test_linear_scans[blank-indentation]": 0.254,
    "tests/security/test_bounded_work.py::test_linear_scans[github-expressions]": 2.127,
    "tests/security/test_bounded_work.py::test_linear_scans[justfile-interpolation]": 2.054,
    "tests/security/test_bounded_work.py::test_linear_scans[key-lines]": 0.236,
    "tests/security/test_bounded_work.py::test_linear_scans[makefile-continuations]": 6.813,
    "tests/security/test_bounded_work.py::test_linear_scans[makefile-lines]": 0.575,
    "tests/security/test_bounded_work.py::test_linear_scans[supervisord-expansions]": 5.337,
    "tests/security/test_bounded_work.py::test_linear_scans[systemd-continuations]": 4.551,
    "tests/security/test_bounded_work.py::test_linear_scans[template-file-lines]": 0.724,
    "tests/security/test_bounded_work.py::test_linear_scans[template-sniffing]": 0.592,
    "tests/security/test_bounded_work.py::test_linear_scans[trailing-tab-repair]": 0.253,
    "tests/security/test_bounded_work.py::test_lone_surrogates_and_undecodable_file_names_are_one_files_business[github]": 0.254,  # noqa: E501
    "tests/security/test_bounded_work.py::test_lone_surrogates_and_undecodable_file_names_are_one_files_business[gitlab]": 0.255,  # noqa: E501
    "tests/security/test_bounded_work.py::test_lone_surrogates_and_undecodable_file_names_are_one_files_business[json]": 0.258,  # noqa: E501
    "tests/security/test_bounded_work.py::test_lone_surrogates_and_undecodable_file_names_are_one_files_business[sarif]": 0.265,  # noqa: E501
    "tests/security/test_bounded_work.py::test_lone_surrogates_and_undecodable_file_names_are_one_files_business[text]": 0.252,  # noqa: E501
    "tests/security/test_lint_root.py::test_compose_env_file_in_git_folder": 0.161,
    "tests/security/test_lint_root.py::test_compose_env_file_outside": 0.164,
    "tests/security/test_lint_root.py::test_compose_volume_outside": 0.165,
    "tests/security/test_lint_root.py::test_config_absolute": 0.156,
    "tests/security/test_lint_root.py::test_config_dot_dot": 0.158,
    "tests/security/test_lint_root.py::test_dockerfile_copy_outside": 0.164,
    "tests/security/test_lint_root.py::test_dotenv_symlink_outside": 0.165,
    "tests/security/test_lint_root.py::test_walked_symlink_to_outside_file": 0.146,
    "tests/security/test_masking.py::test_nothing_leaks[k8s-secret-base64]": 0.102,
    "tests/security/test_online_offline.py::test_no_network_fails_fast_and_names_what_was_not_fetched": 5.569,
    "tests/security/test_output_injection.py::test_through_a_file_name[github]": 0.250,
    "tests/security/test_output_injection.py::test_through_a_file_name[text]": 0.254,
    "tests/security/test_output_injection.py::test_through_a_value[github]": 0.240,
    "tests/security/test_output_injection.py::test_through_a_value[gitlab]": 0.236,
    "tests/security/test_output_injection.py::test_through_a_value[json]": 0.239,
    "tests/security/test_output_injection.py::test_through_a_value[sarif]": 0.250,
    "tests/security/test_output_injection.py::test_through_a_value[text]": 0.241,
    "tests/security/test_output_injection.py::test_through_an_image_tag_in_the_summary": 0.280,
    "tests/server/test_command.py::test_the_server_is_listed_and_the_cli_does_not_import_pygls": 0.105,
    "tests/server/test_command.py::test_without_pygls_the_server_names_the_extra": 0.339,
    "tests/server/test_e2e.py::test_a_change_to_a_linked_buffer_lints_the_launch_again": 0.845,
    "tests/server/test_e2e.py::test_a_crash_in_one_buffer_is_logged_and_the_server_keeps_serving": 0.705,
    "tests/server/test_e2e.py::test_an_editor_session": 0.952,
    "tests/server/test_e2e.py::test_fix_all_is_resolved_when_chosen": 0.822,
    "tests/server/test_e2e.py::test_settings_from_initialization_options_and_configuration_changes": 0.778,
    "tests/server/test_e2e.py::test_the_server_asks_for_the_vlint_section": 0.708,
    "tests/server/test_session.py::test_the_editor_and_vlint_check_report_the_same_findings": 0.111,
    "tests/sources/test_shell.py::test_config_paths_follow_cd[cd deploy\\ncat > c.yaml <<EOF\\nport: 1\\nEOF\\ncd ..\\nvllm serve m --config deploy/c.yaml\\n]": 0.211,  # noqa: E501
    "tests/sources/test_shell_properties.py::test_bash_c_spans_cover_the_words_inside_the_string": 0.307,
    "tests/sources/test_shell_properties.py::test_damaged_scripts_never_crash": 0.484,
    "tests/sources/test_shell_properties.py::test_launch_spans_lie_in_the_file_and_cover_the_source": 0.272,
    "tests/sources/test_shell_properties.py::test_words_round_trip": 0.732,
    "tests/integration/test_action.py::test_fail_on_is_passed_only_when_set": 0.436,
    "tests/integration/test_action.py::test_isolated_input_ignores_the_repository_config": 0.375,
    "tests/integration/test_action.py::test_run_step_annotates_writes_sarif_and_fails": 0.550,
    "tests/integration/test_action.py::test_run_step_fail_on_and_args": 0.346,
    "tests/integration/test_ci_baseline.py::test_real_pre_commit_run_with_a_baseline": 1.323,
    "tests/integration/test_ci_baseline.py::test_stale_entries_are_counted_only_for_the_files_of_the_run": 0.827,
    "tests/integration/test_ci_baseline.py::test_write_baseline_from_a_partial_run_keeps_the_other_files": 0.632,
    "tests/commands/test_cli.py::test_force_color_when_piped": 0.200,
    "tests/commands/test_cli.py::test_real_process_exit_code_and_version": 0.356,
    "tests/commands/test_cli_usage.py::test_a_missing_path_is_exit_2_without_no_problems_found": 0.277,
    "tests/commands/test_cli_usage.py::test_default_jobs_never_fork_for_small_runs": 1.096,
    "tests/commands/test_cli_usage.py::test_empty_runs_say_so": 0.358,
    "tests/commands/test_cli_usage.py::test_exclude_and_extend_exclude": 0.869,
    "tests/commands/test_cli_usage.py::test_progress_on_a_terminal_only": 0.643,
    "tests/commands/test_cli_usage.py::test_show_files": 0.160,
    "tests/commands/test_cli_usage.py::test_statistics": 0.163,
    "tests/commands/test_cli_usage.py::test_stdin_with_a_file_name": 0.525,
    "tests/commands/test_cli_usage.py::test_unknown_command_is_a_usage_error_with_did_you_mean": 0.247,
    "tests/commands/test_cli_usage.py::test_unknown_gpu_lists_the_known_ones": 0.261,
    "tests/config/test_config.py::test_bad_config_is_a_clear_error[[per-file-ignores]\\n'*.sh' = ['nope']-unknown rule 'nope']": 0.149,  # noqa: E501
    'tests/config/test_config.py::test_bad_config_is_a_clear_error[fail-on = "fatal"-fail-on]': 0.149,
    'tests/config/test_config.py::test_bad_config_is_a_clear_error[gpu = "H100:0"-gpu]': 0.142,
    'tests/config/test_config.py::test_bad_config_is_a_clear_error[gpu = "TPUv9"-unknown GPU]': 0.158,
    "tests/config/test_config.py::test_bad_config_is_a_clear_error[max-file-size = 0-max-file-size]": 0.144,
    'tests/config/test_config.py::test_bad_config_is_a_clear_error[rules-dir = "missing"-not a directory]': 0.143,
    "tests/config/test_config.py::test_bad_config_is_a_clear_error[select = ['VL999']-unknown rule 'VL999']": 0.148,
    "tests/config/test_config.py::test_bad_config_is_a_clear_error[select = [-not valid TOML]": 0.102,
    "tests/config/test_config.py::test_bad_config_is_a_clear_error[selekt = []-known keys:]": 0.143,
    'tests/config/test_config.py::test_bad_config_is_a_clear_error[vllm-version = "latest"-vllm-version]': 0.143,
    "tests/config/test_config.py::test_cli_flags_win": 0.554,
    "tests/config/test_config.py::test_exclude_and_per_file_ignores": 0.378,
    "tests/config/test_config.py::test_extend_select_ignore_and_fail_on": 0.407,
    "tests/config/test_config.py::test_found_upward_and_dot_file_wins": 0.406,
    "tests/config/test_config.py::test_gpu_model_paths_and_rules_dir": 0.202,
    "tests/config/test_config.py::test_no_config_imports_neither_toml_nor_jsonschema": 0.158,
    "tests/config/test_config_hierarchy.py::test_a_baseline_that_is_not_a_regular_file_is_an_error_not_a_hang": 0.214,
    "tests/config/test_config_hierarchy.py::test_a_config_in_the_repository_names_no_baseline_outside_it": 0.175,
    "tests/config/test_config_hierarchy.py::test_a_config_in_the_repository_names_only_paths_inside_it": 0.776,
    "tests/config/test_config_hierarchy.py::test_a_config_in_the_repository_that_links_outside_is_not_read": 0.104,
    "tests/config/test_config_hierarchy.py::test_a_custom_rule_file_linking_out_of_its_folder_is_not_read": 0.304,
    "tests/config/test_config_hierarchy.py::test_a_file_without_a_config_above_it_gets_the_current_folders": 0.208,
    "tests/config/test_config_hierarchy.py::test_bad_extend_and_per_path_are_errors_naming_the_file[files0-loop]": (
        0.177
    ),
    "tests/config/test_config_hierarchy.py::test_bad_extend_and_per_path_are_errors_naming_the_file[files1-base.toml is not a file]": 0.171,  # noqa: E501
    "tests/config/test_config_hierarchy.py::test_bad_extend_and_per_path_are_errors_naming_the_file[files2-is not a .toml file]": 0.164,  # noqa: E501
    "tests/config/test_config_hierarchy.py::test_bad_extend_and_per_path_are_errors_naming_the_file[files3-base.toml: (top level)]": 0.173,  # noqa: E501
    "tests/config/test_config_hierarchy.py::test_bad_extend_and_per_path_are_errors_naming_the_file[files4-per-path.k8s/**]": 0.161,  # noqa: E501
    "tests/config/test_config_hierarchy.py::test_config_gpu_and_version_are_defaults_only_where_the_file_states_nothing": 0.433,  # noqa: E501
    "tests/config/test_config_hierarchy.py::test_each_file_gets_its_nearest_config_whatever_is_linted_with_it": 1.045,
    "tests/config/test_config_hierarchy.py::test_explain_size_and_fix_read_the_same_configuration": 1.184,
    "tests/config/test_config_hierarchy.py::test_explain_with_a_configured_gpu_does_not_say_gpu_unknown": 0.404,
    "tests/config/test_config_hierarchy.py::test_extend_inherits_and_the_extending_file_wins": 0.428,
    "tests/config/test_config_hierarchy.py::test_per_path_tables": 0.685,
    "tests/config/test_config_hierarchy.py::test_rule_options_in_config": 0.919,
    "tests/config/test_config_hierarchy.py::test_show_settings_says_where_each_setting_comes_from": 0.416,
    "tests/config/test_config_hierarchy.py::test_the_guides_example_repository_behaves_as_the_guide_says": 1.270,
    "tests/commands/test_docs.py::test_generated_rule_pages_are_current": 1.598,
    "tests/commands/test_docs.py::test_index_lists_every_rule": 1.650,
    "tests/report/test_explain.py::test_bar_segments_legend_colour_and_columns": 0.674,
    "tests/fix/test_fix.py::test_budget_fix_comes_before_the_fixes_computed_from_it": 0.121,
    "tests/fix/test_fix.py::test_compose_helm_dockerfile[compose]": 0.129,
    "tests/fix/test_fix.py::test_corpus_fixes_parse_and_clear_their_findings": 11.770,
    "tests/fix/test_fix.py::test_kubernetes_args_lists_block_and_flow": 0.122,
    "tests/fix/test_fix_semantics.py::test_plain_fix_changes_nothing_vllm_does": 0.190,
    "tests/fix/test_fix_semantics.py::test_size_write_without_concurrency_keeps_vllms_max_num_seqs": 0.545,
    "tests/fix/test_fix_semantics.py::test_unsafe_fixes_apply_one_way_out_and_relint_clean": 0.508,
    "tests/config/test_models_config.py::test_a_config_inside_the_root_maps_only_to_folders_inside_it": 0.490,
    "tests/config/test_models_config.py::test_model_config_is_read_wherever_it_is": 0.258,
    "tests/config/test_models_config.py::test_models_folder_is_relative_to_the_config_that_states_it": 0.405,
    "tests/config/test_models_config.py::test_per_path_models_apply_to_the_files_they_match": 0.413,
    "tests/checks/test_oracle.py::test_every_disagreement_is_listed_with_its_reason": 17.599,
    "tests/integration/test_precommit.py::test_real_pre_commit_run": 0.598,
    "tests/launch/test_reach.py::test_size_without_gpu_considers_the_reference_gpus": 0.100,
    "tests/launch/test_reach.py::test_summary_is_the_same_with_worker_processes": 0.349,
    "tests/report/test_sarif.py::test_corpus_sarif_validates": 2.448,
    "tests/commands/test_schema_cmd.py::test_export_is_a_json_schema_for_config_files": 0.288,
    "tests/argspec/test_schema_index.py::test_bundle_is_fresh": 0.374,
    "tests/suppression/test_suppressions_cli.py::test_add_suppressions_then_nothing_is_reported": 0.900,
    "tests/suppression/test_suppressions_cli.py::test_blanket_suppression": 0.866,
    "tests/suppression/test_suppressions_cli.py::test_prefixes_and_names_in_disable": 0.339,
    "tests/integration/test_wheel.py::test_text_output_and_rules_from_the_wheel": 0.555,
    "tests/integration/test_wheel.py::test_the_installed_package_is_not_the_source_tree": 6.197,
    "tests/integration/test_wheel.py::test_vlint_examples_from_the_wheel": 0.229,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.10.0]": 0.125,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.10.1.1]": 0.132,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.10.1]": 0.133,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.10.2]": 0.136,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.11.0]": 0.141,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.11.1]": 0.152,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.11.2]": 0.160,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.12.0]": 0.160,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.13.0]": 0.163,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.14.0]": 0.185,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.14.1]": 0.181,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.15.0]": 0.179,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.15.1]": 0.203,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.16.0]": 0.201,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.17.0]": 0.185,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.17.1]": 0.176,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.18.0]": 0.176,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.18.1]": 0.183,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.19.0]": 0.424,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.19.1]": 0.194,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.20.0]": 0.192,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.20.1]": 0.193,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.20.2]": 0.191,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.21.0]": 0.191,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.22.0]": 0.204,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.22.1]": 0.207,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.23.0]": 0.204,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.24.0]": 0.206,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.25.0]": 0.211,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.25.1]": 0.210,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.26.0]": 0.213,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.27.0]": 0.218,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.27.1]": 0.220,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.28.0]": 0.221,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.29.0]": 0.230,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.30.0]": 0.234,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.31.0]": 0.248,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.32.0]": 0.310,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.33.0]": 0.320,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.6.6]": 0.132,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.9.0.1]": 0.211,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.9.0]": 0.108,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.9.1]": 0.149,
    "tests/tools/test_gen_vllm_schema.py::test_bundled_schema_shape[0.9.2]": 0.122,
}


if __name__ == "__main__":
    sys.exit(main())
