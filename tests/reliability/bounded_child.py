"""The child process of :func:`reliability.hostile.lint_bounded_many`: lints several cases one after the
other, each under its own CPU-time deadline, in one interpreter (one start and one ``import vlint`` for
all of them).

Input on stdin: ``{"cpu_seconds": N, "cases": [{"id": …, "cwd": …, "args": […]}, …]}`` (a case with
``"python": CODE`` instead runs that code: the test that the deadline works). For each case it
prints a ``{"start": id}`` line, then lowers ``RLIMIT_CPU``'s soft limit to the CPU time used so far plus
``N`` seconds (the kernel sends SIGXCPU when it is passed, whatever the case is doing: a regular expression
backtracking in C included), runs ``vlint --format json --isolated -j 1 ARGS`` from ``cwd`` (click's
``CliRunner``, the same ``main`` the command runs) and prints one result line. A case over its deadline
kills this process: the parent reports that case and starts a new child for the ones after it.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import traceback


def main() -> None:
    job = json.load(sys.stdin)
    from click.testing import CliRunner

    from vlint.cli import main as vlint

    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click < 8.2
    except TypeError:
        runner = CliRunner()  # click >= 8.2 keeps stderr apart by itself
    deadline = int(job["cpu_seconds"])
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    out = sys.stdout
    for case in job["cases"]:
        used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
        soft = int(used) + 1 + deadline
        resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
        out.write(json.dumps({"start": case["id"]}) + "\n")
        out.flush()
        os.chdir(case["cwd"])
        start = time.perf_counter()
        if "python" in case:  # the deadline's own test: code, not a lint
            exec(case["python"], {})
            out.write(json.dumps({"id": case["id"], "exit_code": 0, "stdout": "{}", "stderr": "", "seconds": 0}) + "\n")
            continue
        r = runner.invoke(vlint, ["--format", "json", "--isolated", "-j", "1", *case["args"]])
        seconds = time.perf_counter() - start
        cpu = sum(resource.getrusage(resource.RUSAGE_SELF)[:2]) - used
        err = r.stderr
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            err += "".join(traceback.format_exception(r.exception))
        result = {"id": case["id"], "exit_code": r.exit_code, "stdout": r.stdout, "stderr": err}
        out.write(json.dumps({**result, "seconds": seconds, "cpu_seconds": cpu}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
