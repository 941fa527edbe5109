"""Reach of the memory model over the shared corpus: for how many launches does ``vlint explain`` answer?

    python bench/reach.py                          # the tables, as Markdown
    python bench/reach.py --write docs/accuracy.md # and replace the reach section there
    python bench/reach.py --json                   # the numbers as JSON

A launch is *answered* when ``vlint explain --format json`` gives it ``memory`` (the full estimate on the
GPU the files name) or ``gpu_fit`` (no GPU named: the estimate over the reference GPUs). Every other
launch carries ``memory_unavailable``, a reason with its fix; the tables count them per kind of
reason (:mod:`vlint.launch.memory_status`) and per format (the corpus folder of the file). The run is what
``vlint explain`` does with no configuration: offline, the bundled catalog, no Hugging Face cache (the
bench points ``HF_HUB_CACHE`` at an empty folder so that the machine's own downloads do not count).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import shared_dir  # noqa: E402

MARK_BEGIN = "<!-- bench/reach.py: begin -->"
MARK_END = "<!-- bench/reach.py: end -->"


def measure(corpus: Path) -> dict[str, Any]:
    """Explain every launch of ``corpus`` and count the answers: per kind of reason, per format."""
    from vlint.commands.explain import _collect
    from vlint.commands.settings import CliSettings, RunSettings
    from vlint.launch.memory_status import GROUP, memory_status
    from vlint.report.explain import explain_dict
    from vlint.security.lint_root import find_root

    # as `vlint explain --isolated --format json CORPUS` (no configuration: what vlint knows on its own)
    settings = RunSettings(CliSettings(isolated=True))
    settings.lint_root = find_root([corpus], None)
    deployments, errors = _collect((corpus,), None, settings)
    per_kind: Counter[str] = Counter()
    per_format: dict[str, Counter[str]] = defaultdict(Counter)
    #: how answered launches were answered: model facts (own / inferred from the name), device
    how: Counter[str] = Counter()
    unanswered: list[dict[str, Any]] = []
    for dep in deployments:
        doc = explain_dict(dep)
        answered = doc["memory"] is not None or doc["gpu_fit"] is not None
        status = memory_status(dep)
        if answered:
            how["facts inferred from the name" if dep.arch and dep.arch.inferred_from_name else "own facts"] += 1
            kind = (doc["gpu_fit"] or [{}])[0].get("kind") if doc["gpu_fit"] else None
            platform = (doc["memory"] or {}).get("platform", "cuda") if doc["memory"] else None
            how[f"device: {kind or ('GPU' if platform in (None, 'cuda') else platform.upper())}"] += 1
        assert answered == (status.answer is not None), (dep.path, doc["memory_unavailable"])
        assert answered or doc["memory_unavailable"], f"{dep.path}: no answer and no reason"
        key = status.answer or status.kind
        per_kind[key] += 1
        fmt = _format_of(Path(dep.path), corpus)
        per_format[fmt][status.answer or "unanswered"] += 1
        if not answered:
            unanswered.append(
                {
                    "file": str(Path(dep.path).relative_to(corpus)),
                    "line": dep.invocation.span.line,
                    "kind": status.kind,
                    "model": dep.model,
                }
            )
    total = len(deployments)
    answered_n = per_kind["memory"] + per_kind["gpu_fit"]
    return {
        "launches": total,
        "answered": answered_n,
        "coverage": answered_n / total if total else 0.0,
        "memory": per_kind["memory"],
        "gpu_fit": per_kind["gpu_fit"],
        "per_kind": {k: per_kind[k] for k in sorted(per_kind, key=lambda k: (-per_kind[k], k))},
        "kind_names": dict(GROUP),
        "how": dict(sorted(how.items())),
        "per_format": {f: dict(c) for f, c in sorted(per_format.items())},
        "file_errors": len(errors),
        "unanswered": unanswered,
    }


def _format_of(path: Path, corpus: Path) -> str:
    try:
        return path.resolve().relative_to(corpus.resolve()).parts[0]
    except (ValueError, IndexError):
        return "(other)"


#: harvest copies a config.json can be rebuilt from, best first (an ``excerpt`` is partial)
_USABLE = ("verbatim", "transcribed", "python-literal")


def fake_cache_from_harvest(harvest: Path, cache: Path) -> int:
    """The harvest's ``config.json`` copies (verbatim, else transcribed) laid out as a hub cache."""
    import shutil

    from vlint.resolve.hf_cache import repo_folder

    manifest = json.loads((harvest / "MANIFEST.json").read_text(encoding="utf-8"))
    n = 0
    for hf_id, copies in manifest.items():
        ranked = [c for kind in _USABLE for c in copies if c.get("kind") == kind]
        chosen = ranked[0] if ranked else None
        folder = repo_folder(hf_id, cache)
        if chosen is None or folder is None or not (harvest / "files" / chosen["file"]).is_file():
            continue
        snap = folder / "snapshots" / ("0" * 40)
        snap.mkdir(parents=True, exist_ok=True)
        (folder / "refs").mkdir(exist_ok=True)
        (folder / "refs" / "main").write_text("0" * 40)
        shutil.copyfile(harvest / "files" / chosen["file"], snap / "config.json")
        n += 1
    return n


def render(r: dict[str, Any]) -> str:
    pct = 100 * r["coverage"]
    lines = [
        "## Reach: launches the memory model answers for",
        "",
        "Generated by `bench/reach.py` over the shared corpus (`corpus/real`, real files from public "
        "repositories), offline, with no configuration and an empty Hugging Face cache — what a first "
        "`vlint explain --format json` says. *Answered*: `memory` (the device is known: a GPU, a TPU or Gaudi "
        "type, the CPU backend's KV space) or `gpu_fit` (the estimate over a list: reference GPUs when none is "
        "named or the catalog does not know it, a SkyPilot task's accelerator options, reference TPUs or Gaudi "
        "devices, reference CPU hosts). Every other launch has `memory_unavailable`, a reason with its fix.",
        "",
        f"**{r['answered']} of {r['launches']} launches answered ({pct:.1f} %)**: {r['memory']} with `memory`, "
        f"{r['gpu_fit']} with `gpu_fit`; {r['launches'] - r['answered']} with a reason.",
        "",
        "How the answered ones were answered: "
        + "; ".join(f"{k} {n}" for k, n in r.get("how", {}).items())
        + ". *Facts inferred from the name*: no config.json of the model was found, and vlint took the facts of "
        "the catalog model the name stands for (a folder or re-upload named like it, a quantized checkpoint by "
        "its publisher's suffix, a chat variant or fine-tune named after it): low confidence, every error on "
        "them reported as a warning.",
        "",
        "| answer or reason | launches | share |",
        "|---|---:|---:|",
    ]
    names = {"memory": "`memory` (GPU known)", "gpu_fit": "`gpu_fit` (reference GPUs)", **r["kind_names"]}
    for k, n in r["per_kind"].items():
        lines.append(f"| {names.get(k, k)} | {n} | {100 * n / max(r['launches'], 1):.1f} % |")
    lines += [
        "",
        "| format | launches | `memory` | `gpu_fit` | no answer | answered |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for fmt, c in r["per_format"].items():
        n = sum(c.values())
        ok = c.get("memory", 0) + c.get("gpu_fit", 0)
        lines.append(
            f"| {fmt} | {n} | {c.get('memory', 0)} | {c.get('gpu_fit', 0)} | {c.get('unanswered', 0)} | "
            f"{100 * ok / n:.0f} % |"
        )
    unknown = Counter(u["model"] for u in r["unanswered"] if u["kind"] == "model_unknown" and u["model"])
    if unknown:
        shown = ", ".join(f"`{m}`" + (f" ({n})" if n > 1 else "") for m, n in sorted(unknown.items(), key=_by_count))
        lines += [
            "",
            f"Models the corpus names that the bundled catalog lacks ({len(unknown)}; launches in brackets where "
            f"more than one): {shown}.",
        ]
    lines += [
        "",
        "No offline fact answers a model folder outside the lint root whose name stands for no catalog model "
        "(`/models`, `/mnt/models`, a fine-tune's export folder), a model in a variable the files never set, or "
        "a platform vlint does not model (Neuron, XPU): the fix is to say it (`[tool.vlint] models`, "
        "`--model-config`, `--gpu`). *Model unknown* shrinks as the bundled catalog grows.",
    ]
    return "\n".join(lines) + "\n"


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0].lower()


def write_section(path: Path, section: str) -> None:
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    block = f"{MARK_BEGIN}\n{section}{MARK_END}\n"
    if MARK_BEGIN in text and MARK_END in text:
        head, rest = text.split(MARK_BEGIN, 1)
        text = head + block + rest.split(MARK_END, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, help="the corpus folder [default: ../shared/corpus/real]")
    ap.add_argument("--write", type=Path, help="replace the reach section of this Markdown file")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON")
    ap.add_argument(
        "--project-harvest",
        type=Path,
        metavar="DIR",
        help="a projection, not the measurement: also read the config.json copies of a harvest folder "
        "(../shared/models/harvest: MANIFEST.json + files/) through a temporary Hugging Face cache, as the "
        "catalog will once it holds them",
    )
    a = ap.parse_args(argv)
    corpus = a.corpus
    if corpus is None:
        shared = shared_dir()
        if shared is None:
            print("no ../shared/corpus/real: nothing to measure (pass --corpus DIR)", file=sys.stderr)
            return 2
        corpus = shared / "corpus" / "real"
    with tempfile.TemporaryDirectory() as cache:
        os.environ["HF_HUB_CACHE"] = cache
        if a.project_harvest is not None:
            n = fake_cache_from_harvest(a.project_harvest, Path(cache))
            print(f"projection: {n} harvested config.json files in a temporary Hugging Face cache", file=sys.stderr)
        result = measure(corpus)
    if a.project_harvest is not None:
        result["projection"] = f"with the config.json copies of {a.project_harvest}"
    if a.json:
        print(json.dumps(result, indent=1))
    else:
        print(render(result), end="")
    if a.write is not None:
        write_section(a.write, render(result))
        print(f"wrote the reach section of {a.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
