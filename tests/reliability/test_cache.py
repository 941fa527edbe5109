"""The rule-catalog cache (start-up speed): the same rules as parsing the YAML, rebuilt when a rule file
changes, ignored when unusable, off with VLINT_NO_CACHE; it never holds anything the user lints."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from vlint.core.paths import cache_dir, rules_dir
from vlint.engine import catalog as rules


@pytest.fixture
def rules_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "rules"
    shutil.copytree(rules_dir(), folder)
    monkeypatch.setenv("VLINT_CACHE_DIR", str(tmp_path / "cache"))
    return folder


def parsed(folder: Path) -> list[dict]:
    return [yaml.safe_load(p.read_bytes()) for p in sorted(folder.glob("*.yaml"))]


def test_cached_rules_are_the_parsed_rules(rules_copy: Path, tmp_path: Path) -> None:
    paths = sorted(rules_copy.glob("*.yaml"))
    first = rules._cached_rule_docs(paths)  # parses, writes the cache: the lean copy and the full one
    assert len(list((tmp_path / "cache").glob("rules-*.json"))) == 2
    second = rules._cached_rule_docs(paths)  # reads it
    assert first == second == parsed(rules_copy)
    lean = rules._cached_rule_docs(paths, lean=True)  # what every start reads: no docs, references, cases
    assert lean == [{k: v for k, v in d.items() if k not in ("docs", "references", "cases")} for d in first]


def test_bundled_rules_read_their_docs_and_cases_when_asked() -> None:
    """A lint run reads the lean copy; a rule's docs, references and cases come from the full one."""
    by_code = {str(d["code"]): d for d in parsed(rules_dir())}
    for rule in rules.load_catalog().rules:
        d = by_code[rule.code]
        assert rule.docs == str(d.get("docs", "")).strip()
        assert rule.references == tuple(str(r) for r in d.get("references") or ())
        assert rule.case_data == tuple(c for c in d.get("cases") or () if isinstance(c, dict))


def test_an_edited_rule_file_is_read_again(rules_copy: Path, tmp_path: Path) -> None:
    paths = sorted(rules_copy.glob("*.yaml"))
    rules._cached_rule_docs(paths)
    text = paths[0].read_text()
    paths[0].write_text(text.replace("summary:", "summary: Edited.", 1) if "summary: |" not in text else text + "\n")
    docs = rules._cached_rule_docs(paths)
    assert docs == parsed(rules_copy)
    assert len(list((tmp_path / "cache").glob("rules-*.json"))) == 4


def test_a_broken_cache_is_ignored(rules_copy: Path, tmp_path: Path) -> None:
    paths = sorted(rules_copy.glob("*.yaml"))
    rules._cached_rule_docs(paths)
    (cached,) = (tmp_path / "cache").glob("rules-*-full.json")
    (lean,) = set((tmp_path / "cache").glob("rules-*.json")) - {cached}
    for junk in (b"{not json", b"[]", b'[{"code": 1}]', b"\xff\xfe"):
        cached.write_bytes(junk)
        lean.write_bytes(junk)
        assert rules._cached_rule_docs(paths) == parsed(rules_copy)
        assert rules._cached_rule_docs(paths, lean=True) == [
            {k: v for k, v in d.items() if k not in ("docs", "references", "cases")} for d in parsed(rules_copy)
        ]


def test_an_unwritable_cache_folder_is_no_error(
    rules_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("VLINT_CACHE_DIR", str(tmp_path / "file" / "sub"))  # a file where a folder should be
    assert rules._cached_rule_docs(sorted(rules_copy.glob("*.yaml"))) == parsed(rules_copy)


def test_no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLINT_NO_CACHE", "1")
    assert cache_dir() is None
    monkeypatch.delenv("VLINT_NO_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", "/x")
    monkeypatch.delenv("VLINT_CACHE_DIR", raising=False)
    assert cache_dir() == Path("/x/vlint")


def test_a_broken_rule_file_is_still_an_error(rules_copy: Path) -> None:
    (rules_copy / "VL999-broken.yaml").write_text("code: VL999\nname: [\n")
    with pytest.raises(rules.RuleError, match=r"VL999-broken\.yaml: cannot read rule"):
        rules._cached_rule_docs(sorted(rules_copy.glob("*.yaml")))
    (rules_copy / "VL999-broken.yaml").write_text("- a list\n")
    with pytest.raises(rules.RuleError, match="a rule file is a mapping"):
        rules._cached_rule_docs(sorted(rules_copy.glob("*.yaml")))


def test_old_catalog_copies_are_pruned_and_nothing_else(rules_copy: Path, tmp_path: Path) -> None:
    """Each vlint version (or rule edit) writes its own copy; past KEPT_RULE_COPIES the oldest go, so that
    upgrades do not pile up in the cache folder. Files that are not vlint's catalog copies stay."""
    import os

    folder = tmp_path / "cache"
    folder.mkdir()
    stale = []
    for i in range(rules.KEPT_RULE_COPIES + 3):
        for suffix in ("", "-full"):
            p = folder / f"rules-{i:08x}{suffix}.json"
            p.write_text("[]")
            os.utime(p, ns=(10**18 + i * 10**9, 10**18 + i * 10**9))
            stale.append(p)
    other = folder / "rules-notes.json"
    other.write_text("mine")
    paths = sorted(rules_copy.glob("*.yaml"))
    rules._cached_rule_docs(paths)  # writes this version's copy (the newest), then prunes
    left = sorted(p.name for p in folder.glob("rules-*.json"))
    assert other.name in left
    copies = {n.removesuffix(".json").removesuffix("-full") for n in left if n != other.name}
    assert len(copies) == rules.KEPT_RULE_COPIES
    # the newest stale ones and this run's own are kept, the oldest removed
    assert f"rules-{rules.KEPT_RULE_COPIES + 2:08x}" in copies and "rules-00000000" not in copies
    assert rules._cached_rule_docs(paths) == parsed(rules_copy)
