"""Where a corpus run's time goes: ``vlint --isolated -j 1 --format json`` over ``../shared/corpus/real``,
in this process, each phase timed by wrapping the function that does it (median of N runs, each in a
fresh interpreter so that imports and first-time memo fills count as they do for a user).

    python bench/phases.py                              # the table, as Markdown, on stdout
    python bench/phases.py --runs 5 --write docs/performance.md   # and replace its "where the time goes" section

Phases (exclusive: a phase's time does not include the phases nested in it):

* **start-up**: the interpreter and process (the run's wall time, measured outside, minus the time
  inside); **imports before the run**: vlint's modules the command needs first;
* **extract**: reading, sniffing and extracting each file's launches (``run.lint._extract``);
* **resolve**: argument parsing, release, model and defaults of each launch (``launch.resolver.resolve``);
* **reference GPUs**: the memory model on each reference GPU for launches that name none
  (``launch.gpu_fit.compute_gpu_fit``);
* **memory (own GPU)**: the launch's own estimate (``Deployment.memory``);
* **other checks**: every rule on every launch and file, what the memory phases above took excluded;
* **report**: the JSON report (``commands.lint_run.render``);
* **rest**: discovery, settings, suppressions, sorting.

The numbers are wall clock on a machine that may be busy: compare rows within one run.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MARK_BEGIN = "<!-- bench/phases.py: begin -->"
MARK_END = "<!-- bench/phases.py: end -->"

#: phase label → (module, attribute path) of the function whose calls are that phase
PHASES = {
    "extract": ("vlint.run.lint", "_extract"),
    "resolve": ("vlint.run.lint", "resolve"),
    "reference GPUs": ("vlint.launch.gpu_fit", "compute_gpu_fit"),
    "memory (own GPU)": ("vlint.launch.deployment", "Deployment.memory"),
    "checks": ("vlint.engine.runner", "Engine.run_deployment"),
    "file checks": ("vlint.engine.runner", "Engine.run_file"),
    "report": ("vlint.commands.lint_run", "render"),
}


def _child(corpus: str) -> None:
    """One run in this interpreter: the phases' exclusive times as JSON on stdout."""
    import contextlib
    import importlib
    import io

    t_start = time.perf_counter()
    spent: dict[str, float] = dict.fromkeys(PHASES, 0.0)
    stack: list[list[float]] = []  # per active phase: [start, time of the phases nested in it]

    def timed(label: str, fn):  # type: ignore[no-untyped-def]
        def run(*a, **k):  # type: ignore[no-untyped-def]
            stack.append([time.perf_counter(), 0.0])
            try:
                return fn(*a, **k)
            finally:
                start, nested = stack.pop()
                took = time.perf_counter() - start
                spent[label] += took - nested
                if stack:
                    stack[-1][1] += took

        return run

    for label, (module, attr) in PHASES.items():
        mod = importlib.import_module(module)
        owner, _, name = attr.rpartition(".")
        holder = getattr(mod, owner) if owner else mod
        fn = getattr(holder, name)
        if isinstance(fn, property):
            setattr(holder, name, property(timed(label, fn.fget)))
        else:
            setattr(holder, name, timed(label, fn))
    from vlint import cli

    t_run = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        cli.invoke(["--isolated", "-j", "1", "--format", "json", corpus])
    end = time.perf_counter()
    spent["checks"] += spent.pop("file checks")
    spent["imports before the run"] = t_run - t_start
    spent["rest"] = (end - t_run) - sum(v for k, v in spent.items() if k != "imports before the run")
    print(json.dumps({"phases": spent, "in_process": end - t_start}))


def measure(corpus: Path, runs: int) -> tuple[dict[str, float], float]:
    """Median exclusive time per phase (s) and the median wall time of a run (s)."""
    import statistics
    import subprocess

    per: dict[str, list[float]] = {}
    walls = []
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(corpus)], capture_output=True, text=True, check=True
        ).stdout
        walls.append(time.perf_counter() - t)
        doc = json.loads(out.strip().splitlines()[-1])
        for k, v in doc["phases"].items():
            per.setdefault(k, []).append(v)
        per.setdefault("start-up", []).append(walls[-1] - doc["in_process"])
    return {k: statistics.median(v) for k, v in per.items()}, statistics.median(walls)


def table(phases: dict[str, float], wall: float, runs: int) -> str:
    order = ["start-up", "imports before the run", "extract", "resolve", "reference GPUs", "memory (own GPU)"]
    order += ["checks", "report", "rest"]
    names = {"checks": "other checks"}
    lines = [
        f"Measured by `python bench/phases.py` on {time.strftime('%Y-%m-%d')}: one `vlint --isolated -j 1 "
        f"--format json` run over the shared corpus, median of {runs} runs, {wall * 1000:.0f} ms wall.",
        "",
        "| phase | time | share |",
        "|---|---|---|",
    ]
    total = sum(phases[k] for k in order)
    for k in order:
        lines.append(f"| {names.get(k, k)} | {phases[k] * 1000:.0f} ms | {phases[k] / total:.0%} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--write", type=Path, help="replace the marked section of this Markdown file")
    a = ap.parse_args(argv)
    from tests.conftest import shared_dir

    shared = shared_dir()
    if shared is None:
        print("no shared corpus (set VLINT_SHARED or put shared/ beside the checkout)", file=sys.stderr)
        return 2
    phases, wall = measure(shared / "corpus" / "real", a.runs)
    text = table(phases, wall, a.runs)
    print(text)
    if a.write:
        sys.path.insert(0, str(ROOT / "bench"))
        from speed import write_section

        write_section(a.write, MARK_BEGIN, MARK_END, text)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:  # one measured run: nothing imported but what vlint itself imports
        _child(sys.argv[2])
    else:
        sys.exit(main())
