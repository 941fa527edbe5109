"""Removed / too-new flags and environment variables, from the cross-version history (synthetic releases,
so the tests do not depend on which schemas are bundled)."""

from __future__ import annotations

import pytest

from vlint.argspec import history as history_mod
from vlint.argspec.parse import parse_invocation
from vlint.argspec.spec import ArgSpec, Argument
from vlint.core.invocation import Invocation, Token
from vlint.core.span import Span
from vlint.core.version import V

S = Span("start.sh", 1, 1, 1, 2)


def _spec(version: str, *options: str) -> ArgSpec:
    args = [Argument(dest="model_tag", name="model_tag", option_strings=(), positional=True, nargs="?")]
    for o in options:
        args.append(Argument(dest=o.lstrip("-").replace("-", "_"), name=o, option_strings=(o,), kind="int"))
    return ArgSpec(version=V(version), arguments=args)


@pytest.fixture
def fake_history(monkeypatch: pytest.MonkeyPatch) -> history_mod.History:
    h = history_mod.History(
        versions=(V("0.10.2"), V("0.17.1"), V("0.19.1"), V("0.33.0")),
        options={
            "--swap-space": [[0, 1]],
            "--new-thing": [[3, 3]],
            "--max-model-len": [[0, 3]],
            "--disable-log-requests": [[0, 0], [3, 3]],
        },
        dests={},
        env_vars={"VLLM_USE_V1": [[0, 0]]},
    )
    monkeypatch.setattr(history_mod, "history", lambda: h)
    return h


def _issues(spec: ArgSpec, *words: str) -> list[tuple[str, str]]:
    inv = Invocation(source="t", program="vllm serve", span=S, args=[Token(w, S) for w in ("m", *words)])
    return [(i.code, i.message) for i in parse_invocation(inv, spec).issues]


def test_removed_flag_names_the_release_and_replacement(fake_history: history_mod.History) -> None:
    issues = _issues(_spec("0.19.1", "--max-model-len"), "--swap-space", "4")
    assert [c for c, _ in issues] == ["VL002"]
    msg = issues[0][1]
    assert "removed in vLLM 0.19.1 (last seen in 0.17.1)" in msg
    assert "--kv-offloading-size" in msg  # the cited replacement


def test_flag_newer_than_the_target(fake_history: history_mod.History) -> None:
    issues = _issues(_spec("0.19.1", "--max-model-len"), "--new-thing", "1")
    assert issues[0][0] == "VL003"
    assert "not available before vLLM 0.33.0" in issues[0][1]


def test_flag_removed_then_readded_uses_the_target_side(fake_history: history_mod.History) -> None:
    # gone in 0.17.1/0.19.1, back in 0.33.0 (vLLM's EnableDisableAction): on 0.19.1 it is "removed"
    assert _issues(_spec("0.19.1", "--max-model-len"), "--disable-log-requests")[0][0] == "VL002"


def test_never_existed_is_unknown_with_suggestion(fake_history: history_mod.History) -> None:
    issues = _issues(_spec("0.19.1", "--max-model-len"), "--max-modle-len", "5")
    assert issues[0][0] == "VL001"
    assert "did you mean --max-model-len" in issues[0][1]


def test_removed_flag_as_an_abbreviation_is_noted(fake_history: history_mod.History) -> None:
    fake_history.options["--device"] = [[0, 0]]
    issues = _issues(_spec("0.19.1", "--device-ids"), "--device", "3")
    assert issues[0][0] == "VL005"
    assert "was its own option until vLLM 0.10.2" in issues[0][1]


def test_removed_flag_now_an_ambiguous_prefix_is_vl002_alone(fake_history: history_mod.History) -> None:
    """argparse refuses ``--device`` as ambiguous once --device-ids and --device-memory-utilization both
    start with it ([0.33.0] vllm/engine/arg_utils.py:1195, :1390); the removal is the cause: one VL002."""
    fake_history.options["--device"] = [[0, 0]]
    issues = _issues(_spec("0.33.0", "--device-ids", "--device-memory-utilization"), "--device", "cpu")
    assert [c for c, _ in issues] == ["VL002"]
    assert issues[0][1] == (
        "ambiguous option: --device: removed in vLLM 0.17.1 (last seen in 0.10.2); "
        "now an ambiguous prefix of --device-ids, --device-memory-utilization"
    )


def test_removed_ambiguous_flag_gets_the_removal_fix(fake_history: history_mod.History) -> None:
    fake_history.options["--device"] = [[0, 0]]
    inv = Invocation(
        source="t", program="vllm serve", span=S, args=[Token(w, S) for w in ("m", "--device=cpu", "--device-ids", "1")]
    )
    parsed = parse_invocation(inv, _spec("0.33.0", "--device-ids", "--device-memory-utilization"))
    assert [i.code for i in parsed.issues] == ["VL002"]
    assert parsed.issues[0].data["matches"] == ["--device-ids", "--device-memory-utilization"]
    assert parsed.issues[0].fix is not None and "remove --device" in parsed.issues[0].fix.description
    assert parsed.value("device_ids") == 1  # parsing goes on after it


def test_ambiguous_prefix_that_never_was_a_flag_stays_vl006(fake_history: history_mod.History) -> None:
    issues = _issues(_spec("0.33.0", "--device-ids", "--device-memory-utilization"), "--devi", "cpu")
    assert [c for c, _ in issues] == ["VL006"]
    assert "was its own option" not in issues[0][1] and "removed" not in issues[0][1]


# -- VL016 where the release is pinned in another file --------------------------------------------


def _lint_tree(tmp_path, files: dict[str, str]):  # type: ignore[no-untyped-def]
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.run.lint import LintOptions, lint_paths
    from vlint.security.lint_root import LintRoot

    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    opts = LintOptions(root=tmp_path, lint_root=LintRoot(tmp_path.resolve()))
    return lint_paths([tmp_path], Engine(load_catalog()), opts).findings


PY_LAUNCH = "from vllm import LLM\nllm = LLM(model='Qwen/Qwen2.5-0.5B-Instruct', max_model_len=2048)\n"


def test_a_release_pinned_in_another_file_is_reported_at_the_launch_naming_the_pin(tmp_path) -> None:  # type: ignore[no-untyped-def]
    files = {
        "app/Dockerfile": "FROM python:3.10\nRUN pip install vllm==0.4.3\nCOPY serve.py .\n",
        "app/serve.py": PY_LAUNCH,
    }
    (hit,) = [f for f in _lint_tree(tmp_path, files) if f.code == "VL016"]
    assert hit.span.path == "app/serve.py" and hit.span.line == 2
    assert "vLLM 0.4.3 (pinned at app/Dockerfile:2) is older" in hit.message


def test_a_release_pinned_in_the_launchs_own_file_stays_at_the_pin(tmp_path) -> None:  # type: ignore[no-untyped-def]
    files = {"Dockerfile": 'FROM vllm/vllm-openai:v0.5.4\nCMD ["--model", "Qwen/Qwen2.5-0.5B-Instruct"]\n'}
    (hit,) = [f for f in _lint_tree(tmp_path, files) if f.code == "VL016"]
    assert (hit.span.path, hit.span.line) == ("Dockerfile", 1) and "pinned at" not in hit.message
