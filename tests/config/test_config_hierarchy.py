"""Hierarchical configuration, as a team adopting vlint meets it (issue 17, item 1 and 2): a scratch
git repository with config files, and the ``vlint`` command run in it.

- the nearest ``.vlint.toml`` / ``[tool.vlint]`` above each file applies, whatever else is linted in
  the same run (pre-commit passes a few files at a time);
- ``extend`` inherits, ``per-path`` tables set per-glob settings;
- ``gpu`` / ``vllm-version`` in a config are defaults: never over what the file states;
- ``--show-settings FILE`` says what applies and where it comes from;
- ``explain``, ``size`` and ``fix`` read the same configuration, and ``--isolated`` none.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from userrepo import ROOT, Repo

from tests.conftest import load_script
from vlint.argspec.spec import bundled_versions

SCRIPT = "vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.97 --no-enable-chunked-prefill\n"
L4_MANIFEST = (ROOT / "examples" / "k8s" / "llama-l4.yaml").read_text(encoding="utf-8")
#: a launch that fits an H100 and not an L4 (the memory model: 8 GiB of KV cache needed, 4.13 on an L4)
LONG = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 65536 --gpu-memory-utilization 0.9\n"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "app")


def setting(shown: str, key: str) -> tuple[str, str]:
    """(value, where) of one ``--show-settings`` line."""
    for line in shown.splitlines():
        parts = line.strip().split("  ")
        if parts[0] == key:
            rest = "  ".join(p for p in parts[1:] if p).strip()
            value, _, where = rest.rpartition("  [")
            return value.strip(), where.rstrip("]")
    raise AssertionError(f"no {key} in:\n{shown}")


def findings_of(res_json: dict, path: str) -> list[str]:
    return sorted(f["code"] for f in res_json["findings"] if f["path"] == path)


def test_config_gpu_and_version_are_defaults_only_where_the_file_states_nothing(repo: Repo) -> None:
    versions = [str(v) for v in bundled_versions()]
    assert "0.10.2" in versions and "0.19.1" in versions
    repo.write("pyproject.toml", '[project]\nname = "app"\n\n[tool.vlint]\ngpu = "H100"\nvllm-version = "0.19.1"\n')
    repo.write("k8s/llama-l4.yaml", L4_MANIFEST)  # nodeSelector L4, image v0.10.2
    repo.write("scripts/start.sh", LONG)  # states neither
    res = repo.lint_json(".")
    doc = res.json
    files = {f["path"]: f for f in doc["files"]}
    # the manifest keeps its own GPU (L4: VL210) and release (the image tag)
    assert "VL210" in findings_of(doc, "k8s/llama-l4.yaml")
    assert files["k8s/llama-l4.yaml"]["vllm_versions"] == ["0.10.2"]
    # the script gets the config's defaults: H100 (fits) and 0.19.1
    assert "VL210" not in findings_of(doc, "scripts/start.sh")
    assert files["scripts/start.sh"]["vllm_versions"] == ["0.19.1"]
    # the command line still overrides what the files say
    doc = repo.lint_json("--gpu", "H100", "--vllm-version", "0.19.1", "k8s").json
    assert "VL210" not in findings_of(doc, "k8s/llama-l4.yaml")
    assert doc["files"][0]["vllm_versions"] == ["0.19.1"]


def test_each_file_gets_its_nearest_config_whatever_is_linted_with_it(repo: Repo) -> None:
    repo.write(".vlint.toml", 'ignore = ["VL101"]\n')
    repo.write("scripts/.vlint.toml", 'select = ["VL101"]\n')
    repo.write("scripts/a.sh", SCRIPT)
    repo.write("deploy/b.sh", SCRIPT)
    whole = repo.lint_json(".").json
    assert findings_of(whole, "scripts/a.sh") == ["VL101"], "scripts/.vlint.toml applies in `vlint .`"
    assert "VL101" not in findings_of(whole, "deploy/b.sh") and findings_of(whole, "deploy/b.sh")
    # the same result whichever files are linted together (pre-commit batches) and from where
    for args, cwd in ((("scripts/a.sh", "deploy/b.sh"), ""), (("scripts/a.sh",), ""), (("a.sh",), "scripts")):
        doc = repo.lint_json(*args, cwd=cwd).json
        name = "a.sh" if cwd else "scripts/a.sh"
        assert findings_of(doc, name) == ["VL101"], (args, cwd)
    alone = repo.lint_json("deploy/b.sh").json
    assert findings_of(alone, "deploy/b.sh") == findings_of(whole, "deploy/b.sh")


def test_a_file_without_a_config_above_it_gets_the_current_folders(repo: Repo, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "start.sh").write_text(SCRIPT)
    repo.write(".vlint.toml", 'select = ["VL201"]\n')
    doc = repo.lint_json(str(outside / "start.sh")).json
    assert sorted({f["code"] for f in doc["findings"]}) == ["VL201"]


def test_extend_inherits_and_the_extending_file_wins(repo: Repo) -> None:
    repo.write(".vlint.toml", 'ignore = ["VL101"]\nfail-on = "error"\n[severity]\nVL201 = "info"\n')
    repo.write("team/.vlint.toml", 'extend = "../.vlint.toml"\nfail-on = "info"\n[severity]\nVL203 = "error"\n')
    repo.write("team/start.sh", SCRIPT)
    res = repo.lint_json("team")
    by_code = {f["code"]: f["severity"] for f in res.json["findings"]}
    assert "VL101" not in by_code, "ignore inherited from ../.vlint.toml"
    assert by_code["VL201"] == "info" and by_code["VL203"] == "error", "severity tables merged"
    assert res.code == 1
    shown = repo.vlint("--show-settings", "team/start.sh").out
    assert "team/.vlint.toml ← .vlint.toml" in shown
    assert setting(shown, "ignore") == ("VL101", ".vlint.toml")
    assert setting(shown, "fail-on") == ("info", "team/.vlint.toml")
    assert setting(shown, "severity.VL201") == ("info", ".vlint.toml")


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({".vlint.toml": 'extend = "team/.vlint.toml"\n', "team/.vlint.toml": 'extend = "../.vlint.toml"\n'}, "loop"),
        ({".vlint.toml": 'extend = "base.toml"\n'}, "base.toml is not a file"),
        ({".vlint.toml": 'extend = "notes.txt"\n', "notes.txt": "x = 1\n"}, "is not a .toml file"),
        ({".vlint.toml": 'extend = "base.toml"\n', "base.toml": "selekt = []\n"}, "base.toml: (top level)"),
        ({".vlint.toml": '[per-path."k8s/**"]\nexclude = ["x"]\n'}, "per-path.k8s/**"),
    ],
)
def test_bad_extend_and_per_path_are_errors_naming_the_file(repo: Repo, files: dict[str, str], message: str) -> None:
    for rel, text in files.items():
        repo.write(rel, text)
    repo.write("start.sh", SCRIPT)
    res = repo.lint_json(".")
    assert res.code == 2 and not res.out, res.out
    assert message in res.err and ".toml" in res.err, res.err


def test_per_path_tables(repo: Repo) -> None:
    repo.write(
        ".vlint.toml",
        'gpu = "H100"\n'
        '[per-path."k8s/l4/**"]\ngpu = "L4"\n'
        '[per-path."bench/*.sh"]\nignore = ["VL201"]\nfail-on = "error"\n',
    )
    repo.write("k8s/l4/start.sh", LONG)
    repo.write("k8s/h100/start.sh", LONG)
    repo.write("bench/run.sh", SCRIPT)
    res = repo.lint_json(".")
    doc = res.json
    assert "VL210" in findings_of(doc, "k8s/l4/start.sh"), "per-path gpu L4: does not start"
    assert "VL210" not in findings_of(doc, "k8s/h100/start.sh"), "top-level gpu H100"
    assert "VL201" not in findings_of(doc, "bench/run.sh")
    shown = repo.vlint("--show-settings", "k8s/l4/start.sh").out
    assert '.vlint.toml [per-path."k8s/l4/**"]' in shown and "GPU L4" in shown
    # fail-on per file: bench/ fails only on errors, so only the k8s findings make the exit code 1
    only_bench = repo.lint_json("bench")
    assert only_bench.json["findings"] and only_bench.code == 0


def test_show_settings_says_where_each_setting_comes_from(repo: Repo) -> None:
    repo.write("pyproject.toml", '[tool.vlint]\nvllm-version = "0.19.1"\ngpu = "H100:2"\nextend-select = ["VL105"]\n')
    repo.write("k8s/llama-l4.yaml", L4_MANIFEST)
    res = repo.vlint("--show-settings", "k8s/llama-l4.yaml", "--fail-on", "error")
    assert res.code == 0, res.err
    out = res.out
    assert "configuration: pyproject.toml" in out
    assert setting(out, "vllm-version") == ("0.19.1 (where the files state none)", "pyproject.toml")
    assert setting(out, "gpu") == ("H100:2 (where the files state none)", "pyproject.toml")
    assert setting(out, "fail-on") == ("error", "--fail-on")
    assert "vLLM 0.10.2  [image tag vllm/vllm-openai:v0.10.2]" in out
    assert "GPU L4  [nodeSelector" in out
    assert "1 GPU(s) from resources.limits" in out, "the count the manifest states, not the config's :2"
    assert "lint root: " + str(repo.root.resolve()) in out
    isolated = repo.vlint("--show-settings", "k8s/llama-l4.yaml", "--isolated").out
    assert "configuration: none (--isolated)" in isolated


def test_explain_size_and_fix_read_the_same_configuration(repo: Repo) -> None:
    repo.write(".vlint.toml", 'gpu = "L4"\nvllm-version = "0.10.2"\n')
    repo.write("start.sh", LONG)
    explained = repo.vlint("explain", "--format", "json", "start.sh")
    assert explained.code == 0, explained.err
    (dep,) = explained.json["deployments"]
    assert dep["gpu"]["name"] == "L4" and dep["vllm_version"] == "0.10.2"
    isolated = repo.vlint("explain", "--format", "json", "--isolated", "start.sh").json["deployments"][0]
    assert isolated["gpu"]["name"] is None
    # fix: the memory model runs on the configured L4, so the unsafe max-model-len fix is offered
    diff = repo.vlint("fix", "--diff", "--unsafe-fixes", "start.sh")
    assert "-vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 65536" in diff.out, diff.out + diff.err
    assert repo.vlint("fix", "--diff", "--unsafe-fixes", "--isolated", "start.sh").out == ""
    # size: the config's vllm-version is the default target
    size = ("size", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--format", "json")
    sized = repo.vlint(*size, "--prompt-p99", "1000", "--max-tokens", "1000")
    assert sized.code == 0, sized.err
    assert sized.json["vllm_version"] == "0.10.2"
    sized = repo.vlint(*size, "--prompt-p99", "1000", "--max-tokens", "1000", "--isolated")
    assert sized.json["vllm_version"] == str(bundled_versions()[-1])


def test_explain_with_a_configured_gpu_does_not_say_gpu_unknown(repo: Repo) -> None:
    repo.write("pyproject.toml", '[tool.vlint]\ngpu = "H100"\n')
    repo.write("start.sh", SCRIPT)
    text = repo.vlint("explain", "start.sh", "--no-color").out
    assert "H100" in text and "GPU unknown" not in text and "no GPU" not in text.lower()
    assert json.loads(repo.vlint("explain", "--format", "json", "--model", "Qwen/Qwen2.5-7B-Instruct").out)[
        "deployments"
    ][0]["gpu"]["name"].startswith("H100")


def test_the_guides_example_repository_behaves_as_the_guide_says(repo: Repo) -> None:
    """docs/guide.md "An example: one repository, three teams": the files as the guide shows them."""
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    section = guide.split("### An example: one repository, three teams", 1)[1].split("\n### ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in section.split("```toml\n")[1:]]
    tomls = {b.split("\n", 1)[0].lstrip("# ").strip(): b.split("\n", 1)[1] for b in blocks}
    assert set(tomls) == {"pyproject.toml", "k8s/.vlint.toml", "bench/.vlint.toml"}
    for rel, text in tomls.items():
        repo.write(rel, text)
    manifest = L4_MANIFEST
    repo.write("k8s/l4/chat.yaml", manifest)
    repo.write(
        "k8s/a100/batch.yaml",
        manifest.replace("      nodeSelector:\n        cloud.google.com/gke-accelerator: nvidia-l4\n", ""),
    )
    bench_script = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.95"
    repo.write("bench/run.sh", bench_script + " --no-enable-chunked-prefill\n")
    whole = repo.lint_json(".").json
    files = {f["path"]: f for f in whole["files"]}
    assert files["k8s/l4/chat.yaml"]["vllm_versions"] == ["0.10.2"]
    assert "VL210" in findings_of(whole, "k8s/l4/chat.yaml")
    a100 = repo.vlint("--show-settings", "k8s/a100/batch.yaml").out
    assert 'GPU A100-SXM4-80GB  [gpu A100-80GB in k8s/.vlint.toml [per-path."a100/**"]' in a100, a100
    assert "vLLM 0.10.2  [image tag" in a100
    bench = findings_of(whole, "bench/run.sh")
    assert "VL101" not in bench and "VL201" in bench
    assert findings_of(repo.lint_json("bench/run.sh").json, "bench/run.sh") == bench
    shown = repo.vlint("--show-settings", "bench/run.sh").out
    assert "GPU H100-SXM-80GB  [gpu H100 in pyproject.toml]" in shown and setting(shown, "fail-on")[0] == "error"
    # bench fails on errors only: its warnings do not fail a run of bench/ alone
    assert repo.lint_json("bench").code == 0
    # the 64k context that does not start on the L4 fits the A100-80GB of the per-path default
    assert "VL210" not in findings_of(whole, "k8s/a100/batch.yaml") and repo.lint_json("k8s/a100").code == 0


def test_per_path_keys_match_the_schema() -> None:
    from vlint.config.files import PER_PATH_KEYS

    schema = json.loads((ROOT / "schemas" / "config.schema.json").read_text(encoding="utf-8"))
    assert set(schema["properties"]["per-path"]["additionalProperties"]["properties"]) == PER_PATH_KEYS


def test_rule_options_in_config(repo: Repo) -> None:
    """[tool.vlint.rules.CODE] options: validated by the config schema, applied per file, shown by
    --show-settings; the guide's table lists every option the rules declare."""
    script = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.96\n"
    repo.write("a/start.sh", script)
    repo.write("b/start.sh", script)
    repo.write("b/.vlint.toml", "[rules.gpu-memory-utilization-no-headroom]\nthreshold = 0.97\n")
    doc = repo.lint_json(".").json
    assert "VL201" in findings_of(doc, "a/start.sh") and "VL201" not in findings_of(doc, "b/start.sh")
    shown = repo.vlint("--show-settings", "b/start.sh").out
    assert "options of VL201: threshold=0.97" in shown
    assert setting(shown, "rules.gpu-memory-utilization-no-headroom.threshold") == ("0.97", "b/.vlint.toml")
    for text, message in (
        ("[rules.VL201]\nthreshhold = 0.9\n", "rules.VL201: Additional properties are not allowed ('threshhold'"),
        ("[rules.VL201]\nthreshold = 1.5\n", "rules.VL201.threshold: 1.5 is greater than the maximum of 1"),
        ("[rules.VL101]\nthreshold = 0.9\n", "'VL101' was unexpected"),
    ):
        repo.write("b/.vlint.toml", text)
        res = repo.lint_json(".")
        assert res.code == 2 and message in res.err and "b/.vlint.toml" in res.err, res.err
    from vlint.engine.catalog import load_catalog

    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    table = guide.split("### Rule options", 1)[1].split("```", 1)[0]
    for rule in load_catalog().rules:
        for name, spec in rule.options.items():
            assert f"| [{rule.code}](rules/{rule.code}.md) | `{name}` | {spec['default']} |" in table, (rule.code, name)


def test_config_schema_rule_options_are_generated_from_the_rules() -> None:
    gen_docs = load_script("gen_docs", "tools/gen_docs.py")
    assert not gen_docs.schema_stale(), "schemas/config.schema.json is out of date: run python tools/gen_docs.py"


def test_a_config_in_the_repository_names_only_paths_inside_it(repo: Repo, tmp_path: Path) -> None:
    """A pull request can write .vlint.toml: its extend and rules-dir may not make vlint read files
    elsewhere on the machine (as rules or configuration). The --config file and configs outside the
    repository are the user's own."""
    outside = tmp_path / "outside"
    (outside / "rules").mkdir(parents=True)
    (outside / "base.toml").write_text('ignore = ["VL101"]\n')
    repo.write("start.sh", SCRIPT)
    for text in (f'rules-dir = "{outside / "rules"}"\n', 'extend = "../outside/base.toml"\n'):
        repo.write(".vlint.toml", text)
        res = repo.lint_json(".")
        assert res.code == 2 and "lies outside the lint root" in res.err and "--config" in res.err, res.err
    # trusted: passed with --config
    res = repo.lint_json("--config", ".vlint.toml", ".")
    assert res.code in (0, 1) and "VL101" not in res.codes(), res.err
    # a config above the repository (the user's own) may extend anything
    (repo.root / ".vlint.toml").unlink()
    (tmp_path / "pyproject.toml").write_text('[tool.vlint]\nextend = "outside/base.toml"\n')
    assert "VL101" not in repo.lint_json(".").codes()


def test_a_config_in_the_repository_names_no_baseline_outside_it(repo: Repo, tmp_path: Path) -> None:
    """baseline = "…" in a repository's config is read only inside the root (it is vlint's own read)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "b.json").write_text('{"tool": "vlint", "format_version": 1, "findings": []}')
    repo.write("start.sh", SCRIPT)
    repo.write(".vlint.toml", f'baseline = "{outside / "b.json"}"\n')
    res = repo.lint_json(".")
    assert res.code == 2 and "baseline:" in res.err and "lies outside the lint root" in res.err, res.err


def test_a_config_in_the_repository_that_links_outside_is_not_read(repo: Repo, tmp_path: Path) -> None:
    """A .vlint.toml that is a symbolic link to a file elsewhere is not read as the repository's
    configuration (its text could be anything on the machine, and errors quote it)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "cfg.toml").write_text('ignore = ["VL101"]\n')
    repo.write("start.sh", SCRIPT)
    (repo.root / ".vlint.toml").symlink_to(outside / "cfg.toml")
    res = repo.lint_json(".")
    assert res.code == 2 and "symbolic link to a file outside the lint root" in res.err, res.err
    assert "--config" in res.err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_baseline_that_is_not_a_regular_file_is_an_error_not_a_hang(repo: Repo) -> None:
    repo.write("start.sh", SCRIPT)
    os.mkfifo(repo.root / "b.json")
    repo.write(".vlint.toml", 'baseline = "b.json"\n')
    res = repo.lint_json(".")
    assert res.code == 2 and "not a regular file" in res.err, res.err


def test_an_oversized_config_or_baseline_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vlint.config import files as config
    from vlint.suppression import baseline

    b = tmp_path / "b.json"
    b.write_text('{"tool": "vlint", "format_version": 1, "findings": []}' + " " * 200)
    assert baseline.read_entries(b) == []
    monkeypatch.setattr(baseline, "MAX_BASELINE_BYTES", 100)
    with pytest.raises(baseline.BaselineError, match="over 100 bytes"):
        baseline.read_entries(b)
    c = tmp_path / "vlint.toml"
    c.write_text('ignore = ["VL101"]\n' + "#" * 200)
    monkeypatch.setattr(config, "MAX_CONFIG_BYTES", 100)
    with pytest.raises(config.ConfigError, match="over"):
        config.read_table(c)


def test_a_custom_rule_file_linking_out_of_its_folder_is_not_read(repo: Repo, tmp_path: Path) -> None:
    """rules-dir may be the pull request's: a rule file there that links to a file elsewhere (whose
    text a YAML error would quote) is refused by path, and a FIFO is an error, not a hang."""
    secret = tmp_path / "outside" / "credentials.yaml"
    secret.parent.mkdir()
    secret.write_text("[default\naws_secret_access_key: wJalrXUtnFEMIK7MDENGbPxRfiCYzq81Kx9Lmq\n")
    repo.write("start.sh", SCRIPT)
    (repo.root / "rules").mkdir()
    (repo.root / "rules" / "evil.yaml").symlink_to(secret)
    repo.write(".vlint.toml", 'rules-dir = "rules"\n')
    res = repo.lint_json(".")
    assert res.code == 2 and "symbolic link out of the rules folder" in res.err, res.err
    assert "wJalrXUtnFEMIK7" not in res.err + res.out
    (repo.root / "rules" / "evil.yaml").unlink()
    if hasattr(os, "mkfifo"):
        os.mkfifo(repo.root / "rules" / "pipe.yaml")
        res = repo.lint_json(".")
        assert res.code == 2 and "not a regular file" in res.err, res.err
