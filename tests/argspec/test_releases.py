"""Every vLLM release is bundled, resolved exactly, and each release's added/removed flags behave as
that release's own parser says (cases generated from the bundled history, not hand-picked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.argspec.bundle import expand, index
from vlint.argspec.parse import parse_invocation
from vlint.argspec.spec import Argument, bundled_versions, load_spec, resolve_release
from vlint.cli import main
from vlint.core.invocation import Invocation, Token
from vlint.core.span import Span
from vlint.core.version import V, Version

ROOT = Path(__file__).resolve().parents[2]
S = Span("start.sh", 1, 1, 1, 2)


def recorded_releases() -> list[str]:
    text = (ROOT / "tools" / "vllm_releases.txt").read_text(encoding="utf-8")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def test_recorded_release_list_is_pypi_shaped() -> None:
    rel = recorded_releases()
    assert rel[0] == "0.6.0" and len(rel) == len(set(rel)) >= 66
    assert [V(v) for v in rel] == sorted(V(v) for v in rel)


def test_schema_versions_lists_every_release_on_pypi() -> None:
    r = CliRunner().invoke(main, ["schema", "versions", "--format", "json"])
    assert r.exit_code == 0, r.output
    listed = [row["version"] for row in json.loads(r.output)]
    assert listed == recorded_releases()
    assert [str(v) for v in bundled_versions()] == recorded_releases()


def test_aliases_point_at_stored_releases_of_the_same_series() -> None:
    doc = index()
    for alias, base in doc["aliases"].items():
        assert V(alias).minor == V(base).minor and V(base) < V(alias)
        assert base not in doc["aliases"]
        assert load_spec(V(alias)).version == V(alias)  # the exact release reaches the spec
        assert load_spec(V(alias)).meta["stored_as"] == base


# -- resolution -------------------------------------------------------------------------------


def test_bundled_release_is_used_as_is() -> None:
    for v in (V("0.8.5"), V("0.8.5.post1"), V("0.19.0"), V("0.10.1.1")):
        res = resolve_release(v)
        assert (res.version, res.exact, res.note, res.outside) == (v, True, "", "")


def test_post_release_and_its_base_are_one_series() -> None:
    assert V("0.8.5") < V("0.8.5.post1") < V("0.9.0")
    assert V("0.8.5").minor == V("0.8.5.post1").minor == (0, 8)


def test_unknown_release_inside_the_range_uses_its_series_with_a_note() -> None:
    res = resolve_release(V("0.10.1.2"))
    assert res.version == V("0.10.1.1") and not res.exact and not res.outside
    assert "0.10 series" in res.note
    res = resolve_release(V("0.9.0rc1"))  # before every release of its series: the series' first
    assert res.version == V("0.9.0") and "0.9 series" in res.note


def test_newer_than_newest_is_a_warning_never_silent() -> None:
    res = resolve_release(V("9.9"))
    newest = bundled_versions()[-1]
    assert (res.version, res.exact, res.outside) == (newest, False, "newer")
    assert f"up to {newest}" in res.note and "update vlint" in res.note


def test_older_than_oldest_is_a_warning() -> None:
    res = resolve_release(V("0.5.4"))
    assert (res.version, res.outside) == (V("0.6.0"), "older")


def test_cli_9_9_reports_vl016_and_the_release_checked(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n")
    r = CliRunner().invoke(main, ["check", "--vllm-version", "9.9", str(f)])
    assert "VL016" in r.output and "update vlint" in r.output
    assert f"Target vLLM {bundled_versions()[-1]}" in r.output


@pytest.mark.parametrize("bad", ["0.x", "latest", "v", "0..1"])
def test_malformed_version_is_a_usage_error(tmp_path: Path, bad: str) -> None:
    f = tmp_path / "start.sh"
    f.write_text("vllm serve m\n")
    r = CliRunner().invoke(main, ["check", "--vllm-version", bad, str(f)])
    assert r.exit_code == 2 and "not a vLLM version" in r.output


def test_report_says_which_release_and_why(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n")
    r = CliRunner().invoke(main, ["check", "--vllm-version", "0.10.1.2", str(f)])
    assert "Target vLLM 0.10.1.1 (--vllm-version 0.10.1.2; 0.10.1.2 is not a vLLM release vlint knows" in r.output


# -- every release's added and removed flags, from the history -------------------------------------


def _value_for(arg: Argument) -> list[str]:
    """A value the argument's own parser accepts (or none for a flag)."""
    if not arg.takes_value:
        return []
    if arg.choices:
        return [str(next(c for c in arg.choices if c is not None))]
    kind = arg.kind
    if kind in ("int", "human_int", "human_int_or_auto"):
        return ["1"]
    if kind == "float":
        return ["0.5"]
    if kind in ("json", "json_or_str"):
        return ["{}"]
    if kind == "bool":
        return ["true"]
    return ["x"]


def _verdict(version: Version, *words: str) -> list[str]:
    inv = Invocation(
        source="t", program="vllm serve", span=S, args=[Token(w, S) for w in ("Qwen/Qwen2.5-7B-Instruct", *words)]
    )
    return sorted({i.code for i in parse_invocation(inv, load_spec(version)).issues if i.code != "VL009"})


#: options with their own handling (the model positional's spelling, --config expansion, help)
SPECIAL = {"--model", "--config", "--help"}


def _changes() -> list[tuple[str, str, str, str]]:
    """(release, previous release, option, "added"/"removed") for every long option, every release."""
    doc = index()
    versions = doc["versions"]
    present: dict[int, set[str]] = {i: set() for i in range(len(versions))}
    for opt, ranges in doc["options"].items():
        if opt.startswith("--") and opt not in SPECIAL:
            for i in expand(ranges):
                present[i].add(opt)
    out = []
    for i in range(1, len(versions)):
        for opt in sorted(present[i] - present[i - 1]):
            out.append((versions[i], versions[i - 1], opt, "added"))
        for opt in sorted(present[i - 1] - present[i]):
            out.append((versions[i], versions[i - 1], opt, "removed"))
    return out


CHANGES = _changes()


def test_history_has_changes_in_most_releases() -> None:
    changed = {c[0] for c in CHANGES}
    stored = [v for v in index()["versions"] if v not in index()["aliases"]]
    assert len(changed) >= len(stored) // 2, "the history looks empty"


def _arg(version: str, option: str) -> tuple[Argument, bool] | None:
    return load_spec(V(version)).lookup(option)


@pytest.mark.parametrize(
    ("release", "prev", "option", "change"), CHANGES, ids=[f"{c[0]}:{c[3]}:{c[2]}" for c in CHANGES]
)
def test_flag_change_in_each_release(release: str, prev: str, option: str, change: str) -> None:
    if change == "added":
        hit = _arg(release, option)
        assert hit is not None
        arg, negated = hit
        words = [option, *([] if negated else _value_for(arg))]
        assert _verdict(V(release), *words) == [], f"{option} is new in {release}: it must be accepted there"
        # and the release before reports it (too new), unless it is a prefix of an option there
        before = _verdict(V(prev), *words)
        assert before, f"{option} did not exist in {prev}: must be reported there"
    else:
        hit = _arg(prev, option)
        assert hit is not None
        arg, negated = hit
        words = [option, *([] if negated else _value_for(arg))]
        assert _verdict(V(prev), *words) == [], f"{option} existed in {prev}"
        got = _verdict(V(release), *words)
        spec = load_spec(V(release))
        if spec.prefix_matches(option):  # argparse would take it as an abbreviation of a longer option
            assert got != [] or any(o != option for o in spec.prefix_matches(option))
        else:
            assert "VL002" in got, f"{option} was removed in {release}: got {got}"
