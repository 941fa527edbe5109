"""LICENSE, CHANGELOG.md and SECURITY.md: present, what pyproject says, in the shapes people expect."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_license_is_the_apache_2_text_pyproject_declares() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_changelog_follows_keep_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog")
    assert "https://keepachangelog.com/en/1.1.0/" in text
    assert "## [Unreleased]" in text
    headings = re.findall(r"^### (.+)$", text, re.MULTILINE)
    assert headings, "no change-type sections"
    assert set(headings) <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    # every release heading has a link reference at the bottom
    for version in re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE):
        assert re.search(rf"^\[{re.escape(version)}\]: \S+", text, re.MULTILINE), version


def test_security_policy_points_to_the_security_guide() -> None:
    text = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    assert "docs/security.md" in text and "--isolated" in text
    if not (ROOT / "docs" / "security.md").is_file():
        pytest.skip("docs/security.md (written with the lint-root work, issue 11) is not in this tree yet")


def test_the_readme_says_what_the_examples_give(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's first line exits 1 on the examples' deliberate mistakes and says so; good.sh exits 0; the
    examples' policy rules are not listed as files without a launch."""
    import json

    from click.testing import CliRunner

    from vlint.cli import main

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m pip install . && vlint examples/" in readme and "**exits 1**" in readme
    monkeypatch.chdir(ROOT)
    res = CliRunner().invoke(main, ["--isolated", "--format", "json", "examples/"])
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert [f["path"] for f in doc["files"] if f["skipped"]] == [] and doc["summary"]["skipped"] == 0
    assert CliRunner().invoke(main, ["--isolated", "examples/good.sh"]).exit_code == 0
