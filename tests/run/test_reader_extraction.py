"""A lint reader extracts each file once: a second lint with the same reader (``vlint upgrade``'s two
releases, the oracle replay's releases of one case) reuses the launches and gets its own file results."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.core.version import Version
from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.launch.resolver import ResolveOptions
from vlint.run import lint as lint_module
from vlint.run.lint import LintOptions, Reader, lint_paths

LAUNCH = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.99\n"


def _opts(root: Path, version: str, **kw: object) -> LintOptions:
    return LintOptions(resolve=ResolveOptions(vllm_version=Version.parse(version)), root=root, **kw)  # type: ignore[arg-type]


def _codes(report: object) -> list[tuple[str, str, int]]:
    return [(f.code, f.severity, f.span.line) for f in report.findings]  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(load_catalog())


def test_a_shared_reader_extracts_once_and_reports_as_a_fresh_one(
    tmp_path: Path, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "start.sh").write_text(LAUNCH)
    calls: list[Path] = []
    real = lint_module._extract_file
    monkeypatch.setattr(lint_module, "_extract_file", lambda p, e, r: calls.append(p) or real(p, e, r))
    reader = Reader(_opts(tmp_path, "0.10.2"))
    old = lint_paths([tmp_path / "start.sh"], engine, _opts(tmp_path, "0.10.2"), reader=reader)
    new = lint_paths([tmp_path / "start.sh"], engine, _opts(tmp_path, "0.33.0"), reader=reader)
    assert len(calls) == 1  # the second release reused the extraction
    alone = lint_paths([tmp_path / "start.sh"], engine, _opts(tmp_path, "0.33.0"))
    assert len(calls) == 2 and _codes(new) == _codes(alone)
    # each lint has its own file result: the second did not add to the first's
    (a,), (b,) = old.files, new.files
    assert a is not b and a.findings is not b.findings and a.deployments is not b.deployments
    assert str(a.deployments[0].version) == "0.10.2" and str(b.deployments[0].version) == "0.33.0"
    assert _codes(old) == _codes(lint_paths([tmp_path / "start.sh"], engine, _opts(tmp_path, "0.10.2")))


def test_another_render_setting_extracts_again(tmp_path: Path, engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "start.sh").write_text(LAUNCH)
    calls: list[Path] = []
    real = lint_module._extract_file
    monkeypatch.setattr(lint_module, "_extract_file", lambda p, e, r: calls.append(p) or real(p, e, r))
    reader = Reader(_opts(tmp_path, "0.33.0"))
    lint_paths([tmp_path / "start.sh"], engine, _opts(tmp_path, "0.33.0"), reader=reader)
    lint_paths([tmp_path / "start.sh"], engine, _opts(tmp_path, "0.33.0", render=False), reader=reader)
    assert len(calls) == 2  # charts render differently: not the same extraction
