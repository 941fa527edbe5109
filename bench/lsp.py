"""Speed of ``vlint server``: how long after a change the editor has the diagnostics.

    python bench/lsp.py                               # prints the table
    python bench/lsp.py --write docs/performance.md   # and replaces the language server section there
    python bench/lsp.py --runs 10                     # fewer changes per file

The real server is started as an editor starts it (``python -m vlint server``, JSON-RPC over stdio,
driven by the tests' client, ``tests/server/lsp_client.py``). Per file: open it, then send ``--runs``
full-text changes that alternately break and repair one flag (so each change moves the diagnostics)
and time each from the moment the ``didChange`` is written to the moment the server's
``publishDiagnostics`` for that version is read: the debounce, the lint of the buffer through
``lint_paths``, the conversion and both pipes. With the default debounce (75 ms) and with
``debounceMs: 0`` (what the lint itself costs). Also the first diagnostics after ``didOpen`` on a
freshly started server, a quick fix (``codeAction``, each fix verified by linting again) and a hover.
Target: diagnostics within 200 ms of a change for a typical file.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.speed import _cpu_name  # noqa: E402
from tests.server.lsp_client import LspClient  # noqa: E402

MARK_BEGIN = "<!-- bench/lsp.py: begin -->"
MARK_END = "<!-- bench/lsp.py: end -->"
TARGET_MS = 200
#: (file under examples/, the text a change swaps in and out): a typical script, a Kubernetes
#: Deployment (model facts and the memory model on an L4), a vLLM --config file
#: (file, text a change swaps in and out, the word hovered: the launch or its model)
FILES = (
    ("start.sh", "--max-num-seq 256", "--max-num-seqs 256", "vllm serve"),
    ("k8s/llama-l4.yaml", "--max-model-len=65536", "--max-model-len=8192", "meta-llama/"),
    ("serve.yaml", "max-num-seqs: 64", "max-num-seq: 64", "Qwen/"),
)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def measure(folder: Path, debounce_ms: int | None, runs: int) -> list[dict[str, object]]:
    options = None if debounce_ms is None else {"vlint": {"debounceMs": debounce_ms}}
    client = LspClient(cwd=folder)
    rows: list[dict[str, object]] = []
    try:
        client.initialize(folder, options)
        for name, old, new, hovered in FILES:
            path = folder / name
            text = path.read_text(encoding="utf-8")
            if old not in text:
                raise SystemExit(f"{name}: {old!r} is not in the file any more; update bench/lsp.py")
            start = time.perf_counter()
            uri = client.open(path, text)
            client.diagnostics(uri, 1, timeout=60)
            first = time.perf_counter() - start
            times = []
            for k in range(runs):
                version = k + 2
                changed = text.replace(old, new) if k % 2 == 0 else text
                start = time.perf_counter()
                client.change(uri, version, changed)
                client.diagnostics(uri, version, timeout=60)
                times.append((time.perf_counter() - start) * 1000)
            line = next(i for i, t in enumerate(text.splitlines()) if old.split()[0].strip('"') in t)
            start = time.perf_counter()
            client.request(
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": uri},
                    "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
                    "context": {"diagnostics": []},
                },
            )
            action_ms = (time.perf_counter() - start) * 1000
            row, col = next((i, t.index(hovered)) for i, t in enumerate(text.splitlines()) if hovered in t)
            start = time.perf_counter()
            got = client.request(
                "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": row, "character": col + 1}}
            )
            hover_ms = (time.perf_counter() - start) * 1000
            if not got:
                raise SystemExit(f"{name}: no hover on {hovered!r}")
            rows.append(
                {
                    "file": name,
                    "first": first * 1000,
                    "median": statistics.median(times),
                    "p95": pct(times, 0.95),
                    "max": max(times),
                    "action": action_ms,
                    "hover": hover_ms,
                }
            )
        client.shutdown()
    finally:
        client.close()
    return rows


def table(runs: int) -> str:
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="vlint-bench-lsp-") as tmp:
        folder = Path(tmp) / "ws"
        shutil.copytree(ROOT / "examples", folder)
        default = measure(folder, None, runs)
        no_debounce = measure(folder, 0, runs)
    cpu = _cpu_name()
    out = [
        f"Measured by `python bench/lsp.py` on {time.strftime('%Y-%m-%d')}: Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs ({cpu}), load average {load:.1f} when it started (the machine is "
        f"shared); {runs} changes per file, each timed from writing `didChange` to reading its "
        "`publishDiagnostics`; one quick-fix request on the changed line and one hover on the launch or its model.",
        "",
        "| file | change → diagnostics (median) | p95 | max | without the debounce (median) | p95 | "
        "first diagnostics after open | quick fixes (`codeAction`) | hover |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for d, z in zip(default, no_debounce, strict=True):
        out.append(
            f"| `examples/{d['file']}` | {d['median']:.0f} ms | {d['p95']:.0f} ms | {d['max']:.0f} ms | "
            f"{z['median']:.0f} ms | {z['p95']:.0f} ms | {d['first']:.0f} ms | {d['action']:.0f} ms | "
            f"{d['hover']:.0f} ms |"
        )
    worst = max(float(d["p95"]) for d in default)  # type: ignore[arg-type]
    verdict = "met" if worst <= TARGET_MS else "NOT met"
    out += [
        "",
        f"- diagnostics within {TARGET_MS} ms of a change, default debounce (75 ms): "
        f"worst p95 {worst:.0f} ms ({verdict})",
    ]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30, help="changes per file (default 30)")
    ap.add_argument("--write", type=Path, help="replace the section between the bench/lsp.py marks in this file")
    args = ap.parse_args()
    text = table(args.runs)
    print(text)
    if args.write:
        doc = args.write.read_text(encoding="utf-8")
        pattern = re.compile(re.escape(MARK_BEGIN) + ".*?" + re.escape(MARK_END), re.DOTALL)
        if not pattern.search(doc):
            raise SystemExit(f"{args.write}: no {MARK_BEGIN} … {MARK_END} section")
        args.write.write_text(pattern.sub(lambda m: f"{MARK_BEGIN}\n{text}{MARK_END}", doc), encoding="utf-8")


if __name__ == "__main__":
    main()
