"""A check may defer its fix (a function the engine calls when it makes the finding): computed for a
report, left out by :meth:`Engine.without_fixes` (``vlint fix`` verifying an edit compares findings)."""

from __future__ import annotations

from pathlib import Path

from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, lint_paths

# on an L40S few requests of the full context fit: VL211 (low concurrency), whose fix sizes the launch again
LAUNCH = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072 --gpu-memory-utilization 0.95\n"


def _vl211(engine: Engine, tmp_path: Path) -> list:  # type: ignore[type-arg]
    (tmp_path / "start.sh").write_text(LAUNCH)
    opts = LintOptions(root=tmp_path)
    opts.resolve.gpu = "L40S"
    report = lint_paths([tmp_path / "start.sh"], engine, opts)
    return [f for f in report.findings if f.code == "VL211"]


def test_a_deferred_fix_is_computed_for_a_report_and_left_out_without_fixes(tmp_path: Path) -> None:
    engine = Engine(load_catalog())
    (shown,) = _vl211(engine, tmp_path)
    assert shown.fix is not None and shown.fix.description and not callable(shown.fix)
    (bare,) = _vl211(engine.without_fixes(), tmp_path)
    assert bare.fix is None
    same = (shown.code, shown.severity, shown.span, shown.message)
    same = (shown.code, shown.severity, shown.span, shown.message)
    assert (bare.code, bare.severity, bare.span, bare.message) == same
    assert engine.compute_fixes  # the engine it was made from still computes them
