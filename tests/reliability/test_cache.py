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
