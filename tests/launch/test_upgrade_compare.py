"""``vlint upgrade``'s comparison (vlint/launch/upgrade.py) on real release pairs, each difference proven by
the bundled schemas (a flag, a choice or a variable one release has and the other has not) or by the recorded
oracle data (tests/data/oracle: what each vLLM release's own startup code did with a launch), not by
expectations written by hand."""

from __future__ import annotations

import fnmatch
import sys
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import yaml

from vlint.argspec.history import history
from vlint.argspec.spec import bundled_versions, load_spec
from vlint.core.version import Version
from vlint.launch.resolver import ResolveOptions
from vlint.launch.upgrade import GROUP_OF, Change, Comparison
from vlint.report.explain import explain_dict
from vlint.report.upgrade import explain_view
from vlint.run.lint import LintOptions
from vlint.run.upgrade import upgrade

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import oracle  # noqa: E402  (bench/oracle.py: the recorded launch cases and how vlint lints them)

V = Version.parse


@cache
def _engine() -> Any:
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine

    return Engine(load_catalog())


def compare_files(root: Path, files: dict[str, str], src: str, dst: str, gpu: str | None = None) -> Comparison:
    """The one launch of ``start.sh`` (with ``files`` beside it), from ``src`` to ``dst``."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    opts = LintOptions(resolve=ResolveOptions(gpu=gpu), root=root)
    run = upgrade(
        [root / "start.sh"],
        _engine(),
        opts,
        target=V(dst),
        target_why=f"--to {dst}",
        source=V(src),
        source_why=f"--from {src}",
        explain=explain_view,
    )
    (result,) = run.launches
    assert result.comparison is not None, result.unresolved
    return result.comparison


def launch(tmp_path: Path, line: str, src: str, dst: str, gpu: str | None = None, env: str = "") -> Comparison:
    return compare_files(tmp_path, {"start.sh": f"#!/bin/sh\n{env}{line}\n"}, src, dst, gpu)


def changes(cmp: Comparison, kind: str, setting: str | None = None) -> list[Change]:
    return [c for c in cmp.changes if c.kind == kind and (setting is None or c.setting == setting)]


def removed_in(option: str, after: Version) -> str:
    """The first bundled release after ``after`` without ``option`` (from the bundled schemas' index)."""
    present = set(history().present_in(option))
    return str(next(v for v in bundled_versions() if v > after and v not in present))


LLAMA = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"


# -- breaks: proven by the bundled schemas --------------------------------------------------------
def test_removed_flag(tmp_path: Path) -> None:
    src, dst = "0.17.1", "0.19.1"
    assert load_spec(V(src)).lookup("--swap-space") is not None and load_spec(V(dst)).lookup("--swap-space") is None
    cmp = launch(tmp_path, f"{LLAMA} --swap-space 8", src, dst)
    (c,) = changes(cmp, "removed", "--swap-space")
    assert c.new and c.code == "VL002" and c.fixable  # "nothing" replaces it: removing it is the migration
    assert c.data["removed_in"] == removed_in("--swap-space", V(src)) == "0.18.0"
    assert {src, dst, "0.18.0"} <= set(c.releases) and c.group == "breaks"
    assert c in cmp.breaks


def test_renamed_flag_is_fixable(tmp_path: Path) -> None:
    src, dst = "0.12.0", "0.13.0"
    old, new = "--disable-mm-preprocessor-cache", "--mm-processor-cache-gb"
    assert load_spec(V(src)).lookup(old) is not None and load_spec(V(dst)).lookup(old) is None
    assert load_spec(V(dst)).lookup(new) is not None
    cmp = launch(tmp_path, f"vllm serve Qwen/Qwen2.5-VL-7B-Instruct --max-model-len 8192 {old}", src, dst)
    (c,) = changes(cmp, "renamed", old)
    assert c.after == f"{new} 0" and c.fixable and c.new


def test_replaced_flag_without_mechanical_rename(tmp_path: Path) -> None:
    """--guided-decoding-backend moved into --structured-outputs-config: renamed, but not fixable."""
    src, dst = "0.11.2", "0.12.0"
    assert load_spec(V(dst)).lookup("--guided-decoding-backend") is None
    assert load_spec(V(dst)).lookup("--structured-outputs-config") is not None
    cmp = launch(tmp_path, f"{LLAMA} --guided-decoding-backend xgrammar", src, dst)
    (c,) = changes(cmp, "renamed", "--guided-decoding-backend")
    assert not c.fixable and "--structured-outputs-config" in str(c.after)


def test_choice_gone(tmp_path: Path) -> None:
    src, dst = "0.10.1.1", "0.10.2"
    was, now = (
        load_spec(V(src)).lookup("--prefix-caching-hash-algo"),
        load_spec(V(dst)).lookup("--prefix-caching-hash-algo"),
    )
    assert was is not None and now is not None
    assert "builtin" in (was[0].choices or ()) and "builtin" not in (now[0].choices or ())
    cmp = launch(tmp_path, f"{LLAMA} --prefix-caching-hash-algo builtin", src, dst)
    (c,) = changes(cmp, "removed", "--prefix-caching-hash-algo")
    assert c.code == "VL004" and c.before == "builtin" and c.data == {"choice": True}


def test_removed_environment_variable(tmp_path: Path) -> None:
    src, dst = "0.11.0", "0.11.2"
    present = set(history().env_present_in("VLLM_USE_V1"))
    assert V(src) in present and V(dst) not in present
    cmp = launch(tmp_path, LLAMA, src, dst, env="export VLLM_USE_V1=1\n")
    (c,) = changes(cmp, "removed", "VLLM_USE_V1")
    assert c.code == "VL014" and c.data["removed_in"] == "0.11.1"


def test_still_rejected_is_listed_but_not_new(tmp_path: Path) -> None:
    cmp = launch(tmp_path, f"{LLAMA} --no-such-flag", "0.19.1", "0.20.0")
    (c,) = [c for c in cmp.changes if c.code == "VL001"]
    assert not c.new and c.group == "breaks" and c not in cmp.breaks


def test_downgrade_lists_flags_the_older_release_lacks(tmp_path: Path) -> None:
    src, dst = "0.33.0", "0.10.2"
    assert load_spec(V(dst)).lookup("--kv-offloading-size") is None
    cmp = launch(tmp_path, f"{LLAMA} --kv-offloading-size 8", src, dst)
    (c,) = changes(cmp, "removed", "--kv-offloading-size")
    assert c.code == "VL003" and c.new


# -- deprecations: a flag the target accepts and a later bundled release removes ----------------------
def test_deprecation_names_the_release_that_removes_it(tmp_path: Path) -> None:
    src, dst = "0.10.2", "0.13.0"
    cmp = launch(tmp_path, f"{LLAMA} --swap-space 4", src, dst)
    assert not changes(cmp, "removed", "--swap-space")
    (c,) = changes(cmp, "deprecated", "--swap-space")
    assert c.data["removed_in"] == removed_in("--swap-space", V(dst)) and c.data["last_in"] == "0.17.1"
    assert c.group == "deprecations" and dst in c.releases


def test_deprecated_by_the_parser_itself(tmp_path: Path) -> None:
    cmp = launch(
        tmp_path, "vllm serve --model meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192", "0.19.1", "0.33.0"
    )
    (c,) = changes(cmp, "deprecated", "--model")
    assert c.code == "VL009"


# -- behaviour and refusals: proven by the recorded oracle data --------------------------------------
RECORDS = [r for r in oracle.load_records(oracle.DATA) if r["verdict"] in ("accept", "reject")]
ENTRIES = yaml.safe_load((oracle.DATA / "disagreements.yaml").read_text()) or []


def _disagrees(rec: dict[str, Any], what: str) -> bool:
    """Listed in disagreements.yaml: vlint does not reproduce this record (for ``what``)."""
    for e in ENTRIES:
        rels = e.get("releases", "all")
        applies = rels == "all" or rec["release"] in [str(x) for x in rels]
        if applies and fnmatch.fnmatchcase(rec["id"], str(e["id"])) and what in e["what"]:
            return True
    return False


def _by_case() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in RECORDS:
        out.setdefault(r["id"], []).append(r)
    return {k: sorted(v, key=lambda r: oracle.vkey(r["release"])) for k, v in out.items()}


def _transitions() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(accepted at A, refused at the next recorded release B) where vlint agrees with both records."""
    out = []
    for recs in _by_case().values():
        for a, b in pairwise(recs):
            if a["verdict"] == "accept" and b["verdict"] == "reject":
                if "verdict" in a.get("platform_sensitive", []) + b.get("platform_sensitive", []):
                    continue
                if not (_disagrees(a, "verdict") or _disagrees(b, "verdict")):
                    out.append((a, b))
    return out


def _default_changes() -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    """(record at A, record at the next recorded release B, setting) where both accepted, the recorded
    value differs, and vlint reproduces it at both (no value disagreement listed)."""
    out = []
    for recs in _by_case().values():
        for a, b in pairwise(recs):
            if a["verdict"] != "accept" or b["verdict"] != "accept":
                continue
            for k in oracle.COMPARED:
                va, vb = (a.get("values") or {}).get(k), (b.get("values") or {}).get(k)
                skip = set(a.get("platform_sensitive", [])) | set(b.get("platform_sensitive", []))
                if va is None or vb is None or va == vb or k in skip:
                    continue
                if k == "max_cudagraph_capture_size" and (
                    (a.get("values") or {}).get("enforce_eager") or (b.get("values") or {}).get("enforce_eager")
                ):
                    continue
                if not (_disagrees(a, f"value:{k}") or _disagrees(b, f"value:{k}")):
                    out.append((a, b, k))
    return out


def _spread(items: list[Any], n: int, key: Any) -> list[Any]:
    """``n`` items, one per distinct ``key`` first (deterministic)."""
    seen: set[Any] = set()
    first, rest = [], []
    for it in sorted(items, key=lambda x: str(x)):
        (rest if key(it) in seen else first).append(it)
        seen.add(key(it))
    return (first + rest)[:n]


TRANSITIONS = _spread(_transitions(), 8, key=lambda ab: ab[1]["stage"] + ab[1]["release"])
DEFAULTS = _spread(_default_changes(), 10, key=lambda abk: abk[2])


def test_the_oracle_proves_enough_pairs() -> None:
    assert len(TRANSITIONS) >= 6 and len({t[1]["stage"] for t in TRANSITIONS}) >= 2
    assert len(DEFAULTS) >= 6 and len({k for _, _, k in DEFAULTS}) >= 4, sorted({k for _, _, k in DEFAULTS})


@pytest.mark.parametrize(
    ("a", "b"), TRANSITIONS, ids=[f"{a['id']}-{a['release']}-{b['release']}" for a, b in TRANSITIONS]
)
def test_a_refusal_the_target_adds_is_a_break(tmp_path: Path, a: dict[str, Any], b: dict[str, Any]) -> None:
    """vLLM A accepted the launch and vLLM B refused it (recorded): upgrading A → B lists a new break."""
    cmp = compare_files(tmp_path, oracle.launch_files(b), a["release"], b["release"], b["case"].get("gpu"))
    assert cmp.breaks, f"{b['id']}: vLLM {b['release']} refused ({b.get('message', '')[:120]}); upgrade lists no break"
    assert all(c.group == "breaks" and b["release"] in c.releases for c in cmp.breaks)


@pytest.mark.parametrize(
    ("a", "b", "key"), DEFAULTS, ids=[f"{a['id']}-{a['release']}-{b['release']}-{k}" for a, b, k in DEFAULTS]
)
def test_a_setting_the_releases_resolve_differently_is_a_behaviour_change(
    tmp_path: Path, a: dict[str, Any], b: dict[str, Any], key: str
) -> None:
    """Both releases accepted the launch and resolved ``key`` to different values (recorded): the change
    is listed with exactly vLLM's two values, and it cites both releases."""
    cmp = compare_files(tmp_path, oracle.launch_files(b), a["release"], b["release"], b["case"].get("gpu"))
    (c,) = changes(cmp, "default_changed", key)
    assert (c.before, c.after) == (a["values"][key], b["values"][key])
    assert a["release"] in c.releases and b["release"] in c.releases
    assert c.message and c.group == "behaviour"


def test_where_a_default_changed_is_cited(tmp_path: Path) -> None:
    """gpu_memory_utilization's default went from 0.9 to 0.92 in 0.20.0 (vLLM's cache config): the change
    names the release and the source line of vlint's defaults, and so does the walk through the releases."""
    cmp = launch(tmp_path, LLAMA, "0.10.2", "0.33.0", gpu="H100")
    (c,) = changes(cmp, "default_changed", "gpu_memory_utilization")
    assert (c.before, c.after) == (0.9, 0.92)
    assert [s["release"] for s in c.data["changed_in"]] == ["0.20.0"]
    assert "[0.20.0] vllm/config/cache.py:66" in c.cites and "0.20.0" in c.releases


# -- memory: explain's numbers for both releases --------------------------------------------------
def test_memory_is_explains_for_both_releases(tmp_path: Path) -> None:
    cmp = launch(tmp_path, LLAMA, "0.8.5", "0.33.0", gpu="H100")
    assert cmp.explain_before["memory"] == explain_dict(cmp.before)["memory"]
    assert cmp.explain_after["memory"] == explain_dict(cmp.after)["memory"]
    mem = {c.setting: c for c in changes(cmp, "memory")}
    kv = mem["kv_cache_gib"]
    assert (kv.before, kv.after) == (
        cmp.explain_before["memory"]["kv_cache_gib"],
        cmp.explain_after["memory"]["kv_cache_gib"],
    )
    assert kv.before != kv.after and "0.8.5" in kv.message and "0.33.0" in kv.message
    assert cmp.verdict_before is not None and cmp.verdict_before.verdict == "starts"
    assert cmp.verdict_after is not None and cmp.verdict_after.uncertainty_gib


def test_a_will_not_start_that_appears_is_a_break(tmp_path: Path) -> None:
    """Llama 3.1 8B on an L4 at growing context lengths, between 0.8.5 and 0.33.0 (both ways): where the
    memory model's verdict turns into "will not start" at the target (from "starts" or "too close to call"),
    that is a new refused break (VL210), and the verdict change lists both verdicts with their margins."""
    seen = 0
    for src, dst in (("0.8.5", "0.33.0"), ("0.33.0", "0.8.5")):
        for mml in range(20000, 44001, 8000):
            cmp = launch(tmp_path, f"vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len {mml}", src, dst, "L4")
            vb, va = cmp.verdict_before, cmp.verdict_after
            assert vb is not None and va is not None
            if vb.verdict != "will not start" and va.verdict == "will not start":
                assert any(c.code == "VL210" and c.kind == "refused" and c.new for c in cmp.breaks), cmp.breaks
                (v,) = changes(cmp, "memory", "verdict")
                assert (v.before["verdict"], v.after["verdict"]) == (vb.verdict, "will not start")
                assert v.after["margin_gib"] < 0 and v.after["uncertainty_gib"] > 0
                seen += 1
            elif va.verdict != "will not start":
                assert not any(c.code == "VL210" for c in cmp.breaks)
    assert seen, "no context length turned into a will-not-start between the two releases"


def test_every_kind_has_its_group() -> None:
    assert set(GROUP_OF) == {"removed", "renamed", "refused", "default_changed", "memory", "deprecated", "warning"}
