"""Speed of vlint, side by side with yamllint and ``import yaml`` on this machine.

    python bench/speed.py                         # everything; numbers printed as a Markdown table
    python bench/speed.py --write docs/performance.md   # and replace the numbers section there
    python bench/speed.py --quick                 # fewer repetitions, no 10,000-file run
    python bench/speed.py --suite                 # and the test suite's time (pytest -n auto) against its budget

Every measurement is one process invocation, timed from the outside (wall clock, median of N runs):

* **corpus**: ``vlint --format json`` over the whole ``../shared/corpus/real`` tree (every source, every rule, the
  memory model) vs ``yamllint`` over the same tree's YAML files (installed for the bench only, in a
  virtual environment under the temp folder, unless ``--yamllint PATH`` names one). Target: ≤ 0.5×.
* **cold start**: ``vlint examples/serve.yaml`` vs ``python -c "import yaml"``. Target: ≤ + 60 ms.
* **scaling**: 100, 1,000 and 10,000 generated files (copies of the seed files of every source with
  varied values): the cost per file, start-up subtracted, at 10,000 files vs 100. Target: within 10 %.
  With ``-j 1`` (the algorithm) and with the default workers.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import shared_dir  # noqa: E402
from tests.reliability.seeds import SEEDS  # noqa: E402

MARK_BEGIN = "<!-- bench/speed.py: begin -->"
MARK_END = "<!-- bench/speed.py: end -->"


def run_once(cmd: list[str], cwd: Path | None = None) -> tuple[float, int]:
    """(wall seconds, peak RSS in KiB) of one process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    for name in ("GITHUB_ACTIONS", "PYTHONDONTWRITEBYTECODE"):  # byte code cached, as in an installed wheel
        env.pop(name, None)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1, 2):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}")
    return seconds, usage.ru_maxrss


def paired(a: list[str], b: list[str], n: int) -> tuple[tuple[float, int], tuple[float, int]]:
    """Medians of ``a`` and ``b`` run alternately (a, b, a, b…), so that a busy moment of the machine
    falls on both: the cold-start comparison is a paired one."""
    run_once(a)
    run_once(b)
    ra, rb = [], []
    for _ in range(n):
        ra.append(run_once(a))
        rb.append(run_once(b))
    return (
        (statistics.median(r[0] for r in ra), max(r[1] for r in ra)),
        (statistics.median(r[0] for r in rb), max(r[1] for r in rb)),
    )


def median(cmd: list[str], n: int, cwd: Path | None = None) -> tuple[float, int]:
    run_once(cmd, cwd)  # warm the file cache
    runs = [run_once(cmd, cwd) for _ in range(n)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs)


def vlint_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "vlint.cli", *args]


def yamllint_path(given: str | None) -> str:
    if given:
        return given
    found = shutil.which("yamllint")
    if found:
        return found
    venv = Path(tempfile.gettempdir()) / "vlint-bench-yamllint"
    exe = venv / "bin" / "yamllint"
    if not exe.exists():
        print(f"installing yamllint into {venv} (for the bench only)…", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "yamllint"], check=True)
    return str(exe)


def generate(folder: Path, n: int) -> None:
    """``n`` files over every source: the seed files in numbered folders, values varied."""
    names = sorted(SEEDS)
    for i in range(n):
        name = names[i % len(names)]
        p = folder / f"d{i // len(names):05d}" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(SEEDS[name].replace("8192", str(1024 * (1 + i % 64))), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="repetitions for the median (default 7)")
    ap.add_argument("--quick", action="store_true", help="3 runs, scaling to 1,000 files only")
    ap.add_argument("--yamllint", help="the yamllint executable (default: PATH, else a private venv)")
    ap.add_argument("--write", type=Path, help="replace the numbers section of this Markdown file")
    ap.add_argument(
        "--suite",
        action="store_true",
        help="also run the test suite as the README's test line does (pytest -n auto) and report its time "
        "against the 240 s budget (a few minutes)",
    )
    a = ap.parse_args(argv)
    runs = 3 if a.quick else a.runs
    import compileall

    compileall.compile_dir(ROOT / "vlint", quiet=2)  # what pip does at install time
    rows: list[tuple[str, str, str, str]] = []
    verdicts: list[str] = []

    # -- cold start ------------------------------------------------------------------------------
    (yaml_s, yaml_rss), (cold_s, cold_rss) = paired(
        [sys.executable, "-c", "import yaml"], vlint_cmd("--isolated", str(ROOT / "examples" / "serve.yaml")), runs * 3
    )
    rows.append(('cold start: `python -c "import yaml"`', f"{yaml_s * 1000:.0f} ms", f"{yaml_rss / 1024:.0f} MiB", ""))
    rows.append(
        (
            "cold start: `vlint examples/serve.yaml`",
            f"{cold_s * 1000:.0f} ms",
            f"{cold_rss / 1024:.0f} MiB",
            f"+{(cold_s - yaml_s) * 1000:.0f} ms (target ≤ +60 ms)",
        )
    )
    extra = (cold_s - yaml_s) * 1000
    verdicts.append(
        f"cold start: import yaml + {extra:.0f} ms ({'met' if extra <= 60 else 'NOT met'}: target ≤ +60 ms)"
    )

    # -- the corpus ------------------------------------------------------------------------------
    shared = shared_dir()
    if shared is None:
        print(
            "no shared corpus (set VLINT_SHARED or put shared/ beside the checkout): the corpus comparison is skipped",
            file=sys.stderr,
        )
    else:
        corpus = shared / "corpus" / "real"
        yaml_files = sorted(str(p) for p in corpus.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        yl = yamllint_path(a.yamllint)
        yl_s, yl_rss = median([yl, "-d", "relaxed", "-f", "parsable", *yaml_files], runs)
        files = sum(1 for p in corpus.rglob("*") if p.is_file() and p.name != "INDEX.md")
        for jobs in ("1", str(os.cpu_count() or 1), ""):
            # --format json, as issue 24 measures it (the report that carries every finding's data)
            j = ("-j", jobs) if jobs else ()
            v_s, v_rss = median(vlint_cmd("--isolated", "--format", "json", *j, str(corpus)), runs)
            rows.append(
                (
                    f"corpus/real ({files} files): `vlint --format json {'-j ' + jobs if jobs else '(default -j)'}`",
                    f"{v_s * 1000:.0f} ms",
                    f"{v_rss / 1024:.0f} MiB",
                    f"{v_s / yl_s:.2f}× yamllint (target ≤ 0.5×)",
                )
            )
            verdicts.append(
                f"corpus -j {jobs or 'default'}: {v_s / yl_s:.2f}× yamllint "
                f"({'met' if v_s <= 0.5 * yl_s else 'NOT met'})"
            )
        rows.append(
            (
                f"corpus/real: `yamllint -d relaxed` on its {len(yaml_files)} YAML files",
                f"{yl_s * 1000:.0f} ms",
                f"{yl_rss / 1024:.0f} MiB",
                "",
            )
        )

    # -- scaling --------------------------------------------------------------------------------
    with tempfile.TemporaryDirectory(prefix="vlint-scale-") as tmp:
        empty = Path(tmp) / "empty"
        empty.mkdir()
        start_s, _ = median(vlint_cmd("--isolated", str(empty)), runs)
        sizes = (100, 1000) if a.quick else (100, 1000, 10_000)
        # "" is the default -j (idle CPUs, workers only for enough work): never slower than -j 1
        for jobs in ("1", str(os.cpu_count() or 1), ""):
            per_file: dict[int, float] = {}
            for n in sizes:
                folder = Path(tmp) / f"n{n}"
                if not folder.exists():
                    generate(folder, n)
                j = ("-j", jobs) if jobs else ()
                s, rss = median(vlint_cmd("--isolated", *j, str(folder)), max(1, runs // (1 if n < 10_000 else 3)))
                per_file[n] = (s - start_s) / n
                ratio = per_file[n] / per_file[sizes[0]]
                rows.append(
                    (
                        f"scaling: {n:,} files, `{'-j ' + jobs if jobs else 'default -j'}`",
                        f"{s * 1000:.0f} ms",
                        f"{rss / 1024:.0f} MiB",
                        f"{per_file[n] * 1000:.2f} ms/file ({ratio:.2f}× the 100-file cost)",
                    )
                )
            last = sizes[-1]
            ratio = per_file[last] / per_file[sizes[0]]
            verdicts.append(
                f"per-file cost at {last:,} files, -j {jobs or 'default'}: {ratio:.2f}× the 100-file cost "
                f"({'met' if ratio <= 1.10 else 'NOT met'}: target within 10 %)"
            )

    if a.suite:
        rows_s, verdict = suite_time()
        rows.append(rows_s)
        verdicts.append(verdict)

    py = ".".join(map(str, sys.version_info[:3]))
    cpu = _cpu_name()
    table = [
        f"Measured by `python bench/speed.py` on {time.strftime('%Y-%m-%d')}: Python {py}, "
        f"{os.cpu_count()} CPUs ({cpu}); median of {runs} runs (wall clock, one process each); "
        "memory is the peak RSS.",
        "",
        "| run | time | memory | vs |",
        "|---|---|---|---|",
        *[f"| {r} | {t} | {m} | {v} |" for r, t, m, v in rows],
        "",
        *[f"- {v}" for v in verdicts],
    ]
    text = "\n".join(table)
    print(text)
    if a.write:
        write_section(a.write, MARK_BEGIN, MARK_END, text)
    return 0


def write_section(path: Path, begin: str, end: str, text: str) -> None:
    """Replace the text between the markers ``begin`` and ``end`` of the Markdown file ``path`` (markers
    kept), or append the marked block when the file has none."""
    doc = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    block = f"{begin}\n{text}\n{end}"
    path.write_text(pattern.sub(lambda m: block, doc) if pattern.search(doc) else doc + "\n" + block + "\n")


#: issue 24: `.ci/run` on a clean clone in at most 240 s on 2 cores (pip install included); the suite's
#: own part is what this measures
SUITE_BUDGET_S = 240.0


def suite_time() -> tuple[tuple[str, str, str, str], str]:
    """The README's test line (``pytest -n auto``) in this checkout: wall time and pytest's own total
    (from its junit file, as bench/ci_time.py reads it), against the suite's budget."""
    sys.path.insert(0, str(ROOT / "bench"))
    import ci_time

    with tempfile.TemporaryDirectory(prefix="vlint-bench-suite-") as tmp:
        junit = Path(tmp) / "junit.xml"
        wall, rc = ci_time.run_suite("auto", junit, ["-q", "-p", "no:cacheprovider"])
        run = ci_time.read_junit(junit) if junit.exists() else None
    total = f"pytest's total {run.total:.0f} s, {run.tests:,} tests" if run else "no junit report"
    row = ("test suite: `python -m pytest -n auto`", f"{wall:.0f} s", "", f"{total} (budget ≤ {SUITE_BUDGET_S:.0f} s)")
    ok = rc in (0, 5) and wall <= SUITE_BUDGET_S
    state = "met" if ok else ("NOT met" if rc in (0, 5) else f"NOT met: pytest exited {rc}")
    return (
        row,
        f"test suite: {wall:.0f} s wall ({state}: budget ≤ {SUITE_BUDGET_S:.0f} s for `.ci/run`, install included)",
    )


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
