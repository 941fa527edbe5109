"""Long-budget fuzzing of vlint, in-process (no subprocess per input).

    python bench/fuzz.py --minutes 30            # all CPUs, every output format
    python bench/fuzz.py --minutes 5 --seed 7 -j 1
    python bench/fuzz.py --hypothesis            # the property tests with their long budget

``--hypothesis`` runs the suite's property and fuzz tests (tests/reliability/test_fuzz.py,
tests/sources/test_shell_properties.py) under the ``long`` hypothesis profile of tests/budgets.py:
10× the examples the CI run draws (3,000 inputs of the fuzz tests instead of ~300).

Each worker draws inputs from the generators and mutations of ``tests/reliability/fuzzing.py``
(vLLM YAML configs, command lines, Kubernetes/compose/Helm/Dockerfile/Python/SkyPilot/GitHub/Ray
wrappers, valid and mutated; byte flips, line drops, token swaps… of the real corpus in
``../shared/corpus/real`` when present, of the built-in seed files otherwise), lints each one with the
library (one engine per worker) and renders it in every format. Property: exit code 0/1/2, a
well-formed report, no exception, no internal error, and each input done within ``--input-seconds``
(a SIGALRM deadline per input: a hang is a failure, not a stalled run). Failures are saved with their input under
``bench/fuzz-failures/`` (or ``--out``) and listed at the end; the exit status is 1 when any was found.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import shared_dir  # noqa: E402
from tests.reliability.fuzzing import (  # noqa: E402
    FORMATS,
    GENERATORS,
    Case,
    Checker,
    corpus_files,
    mutate,
    mutated_corpus_case,
)


def draw(r: random.Random, corpus: list[tuple[str, bytes]], seeds: list[tuple[str, bytes]]) -> tuple[str, Case]:
    """(kind, case): half generated (40 % of those mutated), half mutated real files."""
    k = r.random()
    if k < 0.5:
        name = r.choice(sorted(GENERATORS))
        case = GENERATORS[name](r)
        if r.random() < 0.4:
            f = r.choice(sorted(case))
            case[f] = mutate(r, case[f])
            name += "+mutated"
        return name, case
    if k < 0.6 or not corpus:
        return "seed-mutation", mutated_corpus_case(r, seeds)
    return "corpus-mutation", mutated_corpus_case(r, corpus)


class SlowInput(BaseException):
    """Raised by the per-input alarm (a BaseException: vlint's per-file safety net must not catch it)."""


def _alarm(signum: int, frame: object) -> None:
    raise SlowInput


def run_bounded(checker: Checker, case: Case, seconds: float) -> list[str]:
    """``checker.run(case)``, or a failure when it takes longer than ``seconds``."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return checker.run(case)
    except SlowInput:
        return [f"no result within {seconds:g} s (a hang or a super-linear path)"]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def worker(args: tuple[int, float, int, list[str], bool, str, float]) -> dict[str, object]:
    index, deadline, seed, formats, validate_sarif, out, input_seconds = args
    r = random.Random(seed * 1_000_003 + index)
    shared = shared_dir()
    corpus = corpus_files(shared) if shared is not None else []
    seeds = corpus_files(None)
    scratch = Path(tempfile.mkdtemp(prefix=f"vlint-fuzz-{index}-"))
    checker = Checker(scratch / "case", formats=formats, validate_sarif=validate_sarif)
    kinds: Counter[str] = Counter()
    failures: list[dict[str, str]] = []
    tried = 0
    while time.time() < deadline:
        kind, case = draw(r, corpus, seeds)
        problems = run_bounded(checker, case, input_seconds)
        tried += 1
        kinds[kind] += 1
        if problems:
            where = Path(out) / f"w{index}-{tried}"
            for rel, content in case.items():
                p = where / "input" / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content)
            (where / "failure.txt").write_text("\n\n".join(problems), encoding="utf-8")
            failures.append({"kind": kind, "where": str(where), "problem": problems[0][-2000:]})
    return {"tried": tried, "kinds": dict(kinds), "failures": failures, "stats": checker.stats}


#: the property tests ``--hypothesis`` runs with the long budget
PROPERTY_TESTS = ("tests/reliability/test_fuzz.py", "tests/sources/test_shell_properties.py")


def run_property_tests(extra: list[str]) -> int:
    """The suite's property tests under the ``long`` hypothesis profile (pytest in a child process)."""
    import subprocess

    cmd = [sys.executable, "-m", "pytest", "-p", "no:randomly", "--hypothesis-profile=long", *PROPERTY_TESTS, *extra]
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--hypothesis",
        action="store_true",
        help="run the suite's property tests with the long budget (other options are passed to pytest)",
    )
    ap.add_argument("--minutes", type=float, default=1.0, help="time budget (default 1)")
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100_000, help="random seed (default: the clock)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPUs)")
    ap.add_argument("--formats", default=",".join(FORMATS), help="output formats to render (default: all)")
    ap.add_argument("--validate-sarif", action="store_true", help="validate each SARIF report against the schema")
    ap.add_argument("--out", default=str(ROOT / "bench" / "fuzz-failures"), help="where failing inputs are saved")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--input-seconds", type=float, default=20.0, help="longest time one input may take (default 20)")
    a, extra = ap.parse_known_args(argv)
    if a.hypothesis:
        return run_property_tests(extra)
    if extra:
        ap.error(f"unrecognized arguments: {' '.join(extra)}")
    formats = [f for f in a.formats.split(",") if f]
    start = time.time()
    deadline = start + a.minutes * 60
    jobs = [(i, deadline, a.seed, formats, a.validate_sarif, a.out, a.input_seconds) for i in range(max(1, a.jobs))]
    if len(jobs) == 1:
        results = [worker(jobs[0])]
    else:
        with multiprocessing.get_context("fork").Pool(len(jobs)) as pool:
            results = pool.map(worker, jobs)
    seconds = time.time() - start
    kinds: Counter[str] = Counter()
    stats: Counter[str] = Counter()
    for res in results:
        kinds.update(res["kinds"])  # type: ignore[arg-type]
        stats.update(res["stats"])  # type: ignore[arg-type]
    failures = [f for res in results for f in res["failures"]]  # type: ignore[attr-defined]
    tried = sum(int(res["tried"]) for res in results)  # type: ignore[call-overload]
    summary = {
        "inputs": tried,
        "failures": len(failures),
        "seconds": round(seconds, 1),
        "inputs_per_second": round(tried / seconds, 1) if seconds else 0,
        "workers": len(jobs),
        "seed": a.seed,
        "formats": formats,
        "kinds": dict(sorted(kinds.items())),
        "launches": stats["launches"],
        "findings": stats["findings"],
        "file_errors": stats["file_errors"],
        "corpus": "shared/corpus/real" if shared_dir() is not None else "built-in seeds",
    }
    if a.json:
        print(json.dumps({**summary, "failed": failures}, indent=2))
    else:
        print(
            f"{tried:,} inputs in {seconds:.0f} s ({summary['inputs_per_second']}/s, {len(jobs)} workers, "
            f"seed {a.seed}): {len(failures)} failures"
        )
        print(
            f"  rendered as {', '.join(formats)}; {stats['launches']:,} launches, {stats['findings']:,} findings, "
            f"{stats['file_errors']:,} per-file errors"
        )
        for kind, n in sorted(kinds.items()):
            print(f"  {kind:28s} {n:>9,}")
        for f in failures[:20]:
            print(f"FAILED {f['kind']}: {f['where']}\n  {f['problem'].splitlines()[-1][:300]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
