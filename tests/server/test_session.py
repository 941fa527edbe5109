"""The language server's answers, in process (the protocol is covered by test_e2e.py): buffers linted
from memory through the same pipeline as ``vlint check``, ranges, linked files, configuration, the
lint root, masking, code actions and hover."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.server.lsp_client import require_pygls

require_pygls()

from lsprotocol import types  # noqa: E402

from tests.server.lsp_client import apply_edits  # noqa: E402
from vlint.core.record import fields  # noqa: E402
from vlint.engine.catalog import load_catalog  # noqa: E402
from vlint.engine.runner import Engine  # noqa: E402
from vlint.run.lint import LintOptions, lint_paths  # noqa: E402
from vlint.security.lint_root import LintRoot, real_path  # noqa: E402
from vlint.server.actions import code_actions, resolve_action  # noqa: E402
from vlint.server.session import Session  # noqa: E402
from vlint.server.setup import EditorSettings  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
TOKEN = "hf_abcdefghijklmnopqrstuvwxyz0123456789"


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = folder / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def opened(session: Session, path: Path, text: str | None = None, version: int = 1) -> Path:
    session.open(path.as_uri(), path, version, path.read_text(encoding="utf-8") if text is None else text)
    return path


def shown(result) -> list[types.Diagnostic]:  # type: ignore[no-untyped-def]
    """The diagnostics these tests look at: VL230 (no GPU named: where the launch starts on the
    reference GPUs, an info on every launch here) is left out."""
    return [d for d in result.diagnostics if d.code != "VL230"]


def codes(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(d.code) for d in shown(result)]


def edit_of(action: types.CodeAction, path: Path) -> list[dict[str, object]]:
    assert action.edit is not None and action.edit.document_changes
    out = []
    for change in action.edit.document_changes:
        assert isinstance(change, types.TextDocumentEdit)
        if change.text_document.uri == path.as_uri():
            for e in change.edits:
                r = e.range
                out.append(
                    {
                        "range": {
                            "start": {"line": r.start.line, "character": r.start.character},
                            "end": {"line": r.end.line, "character": r.end.character},
                        },
                        "newText": e.new_text,
                    }
                )
    return out


def line_range(line: int) -> types.Range:
    return types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0))


# -- diagnostics ------------------------------------------------------------------------------------
def test_the_unsaved_buffer_is_linted_not_the_file_on_disk(tmp_path: Path) -> None:
    write(tmp_path, {"serve.sh": f"vllm serve {MODEL} --max-model-len 8192\n"})
    s = Session([tmp_path])
    text = f'NOTE="🦙🦙" vllm serve {MODEL} --max-num-seq 8 --max-model-len 8192\n'
    p = opened(s, tmp_path / "serve.sh", text)
    result = s.lint(p)
    assert codes(result) == ["VL005"]
    d = shown(result)[0]
    col = text.index("--max-num-seq")
    utf16 = len(text[:col].encode("utf-16-le")) // 2
    assert utf16 == col + 2  # two emoji before the flag: two more UTF-16 units than characters
    assert (d.range.start.line, d.range.start.character) == (0, utf16)
    assert d.range.end.character == utf16 + len("--max-num-seq")
    assert d.severity == types.DiagnosticSeverity.Warning and d.source == "vlint"
    assert d.code_description is not None and d.code_description.href.endswith("/docs/rules/VL005.md")
    # what is on disk is still clean, and the CLI says so
    assert "--max-num-seq " not in (tmp_path / "serve.sh").read_text()


def test_ranges_follow_the_encoding_the_client_chose(tmp_path: Path) -> None:
    text = f'NOTE="🦙" vllm serve {MODEL} --max-num-seq 8 --max-model-len 8192\n'
    write(tmp_path, {"serve.sh": text})
    col = text.index("--max-num-seq")
    for encoding, width in (("utf-8", len(text[:col].encode())), ("utf-32", col)):
        s = Session([tmp_path], encoding=encoding)
        (d,) = shown(s.lint(opened(s, tmp_path / "serve.sh")))
        assert d.range.start.character == width


def _cli(folder: Path) -> dict[str, set[tuple[str, int, int]]]:
    opts = LintOptions(root=folder, lint_root=LintRoot(real_path(folder)))
    report = lint_paths([folder], Engine(load_catalog()), opts)
    out: dict[str, set[tuple[str, int, int]]] = {}
    for f in report.findings:
        out.setdefault(f.span.path, set()).add((f.code, f.span.line, f.span.column))
    return out


def test_the_editor_and_vlint_check_report_the_same_findings(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "ws")
    ws = tmp_path / "ws"
    write(ws, {"run.sh": "vllm serve --config serve.yaml --max-num-seq 8\n"})  # serve.yaml is read by run.sh
    expected = _cli(ws)
    assert expected.get("serve.yaml") and expected.get("run.sh"), "the examples should have findings"
    s = Session([ws])
    files = sorted(p for p in ws.rglob("*") if p.is_file())
    for p in files:  # serve.yaml is opened before the file that reads it, and linted again after
        opened(s, p)
    for _ in range(2):
        got: dict[str, set[tuple[str, int, int]]] = {}
        for p in files:
            result = s.lint(p)
            shown = p.relative_to(ws).as_posix()
            for e in result.entries:
                if e.finding.span.path == shown:
                    got.setdefault(shown, set()).add((e.finding.code, e.finding.span.line, e.finding.span.column))
    assert got == expected


def test_a_linked_config_is_read_from_its_open_buffer_else_from_disk(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "run.sh": f"vllm serve {MODEL} --config cfg.yaml --max-model-len 8192\n",
            "cfg.yaml": "max-num-seqs: 8\nenable-prefix-caching: false\n",
        },
    )
    s = Session([tmp_path])
    run = opened(s, tmp_path / "run.sh")
    result = s.lint(run)
    assert codes(result) == ["VL011"]  # reported in cfg.yaml, shown on the launch's --config
    d = shown(result)[0]
    line = (tmp_path / "run.sh").read_text()
    assert d.range.start.character == line.index("--config")
    assert d.message.startswith("in cfg.yaml:2:1: ")
    assert d.related_information and d.related_information[0].location.uri == (tmp_path / "cfg.yaml").as_uri()
    assert d.related_information[0].location.range.start.line == 1
    cfg = opened(s, tmp_path / "cfg.yaml", "max-num-seqs: 8\n")  # the unsaved buffer drops the line
    assert s.dependents(cfg) == [run]
    assert codes(s.lint(run)) == []
    s.close(cfg)
    assert codes(s.lint(run)) == ["VL011"]


def test_a_config_file_is_linted_through_the_launch_that_reads_it(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "run.sh": f"vllm serve {MODEL} --config cfg.yaml --max-model-len 8192\n",
            "cfg.yaml": "max-num-seqs: 8\nenable-prefix-caching: false\n",
        },
    )
    s = Session([tmp_path])
    cfg = opened(s, tmp_path / "cfg.yaml")
    assert s.lint(cfg).paths == [cfg]  # alone: a bare config file, as `vlint cfg.yaml` lints it
    opened(s, tmp_path / "run.sh")
    assert s.lint(tmp_path / "run.sh").relink == {cfg}  # now the session knows run.sh reads cfg.yaml
    result = s.lint(cfg)
    assert result.paths == [tmp_path / "cfg.yaml", tmp_path / "run.sh"]
    assert codes(result) == ["VL011"]
    related = result.diagnostics[0].related_information
    assert related and related[0].location.uri == (tmp_path / "run.sh").as_uri()
    assert "reads this file" in related[0].message


def test_a_file_error_is_a_diagnostic(tmp_path: Path) -> None:
    write(tmp_path, {"cfg.yaml": "max-num-seqs: 8\n"})
    s = Session([tmp_path])
    p = opened(s, tmp_path / "cfg.yaml", "model: x\nmax-num-seqs: [8\nmax-model-len: 1\n")
    result = s.lint(p)
    assert len(result.diagnostics) == 1
    d = shown(result)[0]
    assert d.severity == types.DiagnosticSeverity.Error and d.code is None and d.range.start.line >= 1


def test_broken_yaml_is_reported_only_when_it_is_about_vllm(tmp_path: Path) -> None:
    # the folder walk of `vlint check .` reports a YAML file that does not parse only when it names
    # vLLM (or has vLLM options); the editor does the same
    write(tmp_path, {"ci.yaml": "jobs: [\n", "cfg.yaml": "model: x\nmax-num-seqs: [8\n"})
    s = Session([tmp_path])
    assert s.lint(opened(s, tmp_path / "ci.yaml")).diagnostics == []
    assert len(s.lint(opened(s, tmp_path / "cfg.yaml", "# vllm serve --config\nmax-num-seqs: [8\n")).diagnostics) == 1


def test_files_vlint_check_does_not_read_get_no_diagnostics(tmp_path: Path) -> None:
    write(tmp_path, {"README.md": f"vllm serve {MODEL} --max-num-seq 8\n", "node_modules/x/run.sh": "vllm serve\n"})
    s = Session([tmp_path])
    for name in ("README.md", "node_modules/x/run.sh"):
        result = s.lint(opened(s, tmp_path / name))
        assert result.diagnostics == [] and result.skipped


# -- configuration ----------------------------------------------------------------------------------
LAUNCH = f"vllm serve {MODEL} --max-num-seq 8 --gpu-memory-utilization 0.97 --max-model-len 8192\n"


def test_the_workspace_config_and_the_editor_settings_apply(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(tmp_path, {".vlint.toml": 'ignore = ["VL201"]\n'})  # above the workspace: never read
    write(ws, {"deploy/run.sh": LAUNCH})
    s = Session([ws])
    p = opened(s, ws / "deploy/run.sh")
    assert codes(s.lint(p)) == ["VL005", "VL201"]
    write(ws, {"pyproject.toml": '[tool.vlint]\nignore = ["VL005"]\n'})
    assert codes(s.lint(p)) == ["VL201"]  # the config changed on disk: the setup is rebuilt
    s.set_settings(EditorSettings(ignore=("VL201",)))
    assert codes(s.lint(p)) == []
    s.set_settings(EditorSettings(isolated=True))
    assert codes(s.lint(p)) == ["VL005", "VL201"]


def test_a_broken_config_is_said_once_per_buffer(tmp_path: Path) -> None:
    write(tmp_path, {"run.sh": LAUNCH, ".vlint.toml": "select = 5\n"})
    s = Session([tmp_path])
    result = s.lint(opened(s, tmp_path / "run.sh"))
    assert len(result.diagnostics) == 1
    assert result.diagnostics[0].message.startswith("vlint is not configured: ")
    assert ".vlint.toml" in result.diagnostics[0].message


def test_editor_settings_from_json() -> None:
    settings, problems = EditorSettings.from_json(
        {"vlint": {"extendSelect": ["VL9"], "vllm-version": "0.10.2", "gpu": "L4", "debounceMs": 10, "online": True}}
    )
    assert settings.extend_select == ("VL9",) and settings.vllm_version == "0.10.2" and settings.gpu == "L4"
    assert settings.debounce_ms == 10
    assert len(problems) == 1 and "online" in problems[0]
    settings, problems = EditorSettings.from_json({"ignore": "VL005, VL201", "gpuMemoryGib": "lots"})
    assert settings.ignore == ("VL005", "VL201") and settings.gpu_memory_gib is None
    assert "gpuMemoryGib" in problems[0]
    assert EditorSettings.from_json(None) == (EditorSettings(), [])


def test_a_bad_editor_setting_is_a_diagnostic_not_a_crash(tmp_path: Path) -> None:
    write(tmp_path, {"run.sh": LAUNCH})
    s = Session([tmp_path], EditorSettings(gpu="no-such-gpu"))
    result = s.lint(opened(s, tmp_path / "run.sh"))
    assert "unknown GPU" in result.diagnostics[0].message


# -- what is read -----------------------------------------------------------------------------------
def test_nothing_outside_the_workspace_is_read(tmp_path: Path) -> None:
    write(
        tmp_path, {"outside.yaml": "max-num-seqs: 8\n", "ws/run.sh": f"vllm serve {MODEL} --config ../outside.yaml\n"}
    )
    ws = tmp_path / "ws"
    s = Session([ws])
    result = s.lint(opened(s, ws / "run.sh"))
    assert "VL060" in codes(result)
    assert tmp_path / "outside.yaml" not in result.deps


def test_a_file_outside_every_folder_reads_nothing_else(tmp_path: Path) -> None:
    write(tmp_path, {"cfg.yaml": "max-num-seqs: 8\n", "run.sh": f"vllm serve {MODEL} --config cfg.yaml\n"})
    s = Session([tmp_path / "elsewhere"])
    result = s.lint(opened(s, tmp_path / "run.sh"))
    assert "VL060" in codes(result)
    assert result.deps == {tmp_path / "run.sh"}


def test_secrets_are_masked(tmp_path: Path) -> None:
    write(tmp_path, {"run.sh": f"vllm serve {MODEL} --max-num-seqs {TOKEN} --max-model-len 8192\n"})
    s = Session([tmp_path])
    p = opened(s, tmp_path / "run.sh")
    result = s.lint(p)
    assert codes(result) == ["VL004", "VL502"]  # a token on the command line is a plaintext secret too
    assert all(TOKEN[:8] not in d.message for d in result.diagnostics)
    assert "hf_a****" in shown(result)[0].message


# -- code actions -----------------------------------------------------------------------------------
def test_a_quick_fix_applies_cleanly_and_clears_its_finding(tmp_path: Path) -> None:
    text = f'NOTE="🦙" vllm serve {MODEL} \\\n  --max-num-seq 8 \\\n  --max-model-len 8192\n'
    write(tmp_path, {"run.sh": text})
    s = Session([tmp_path])
    p = opened(s, tmp_path / "run.sh")
    actions = code_actions(s, p, line_range(1), ["quickfix"])
    fix = next(a for a in actions if a.title.startswith("Fix VL005"))
    assert fix.is_preferred and fix.kind == types.CodeActionKind.QuickFix
    assert fix.diagnostics and fix.diagnostics[0].code == "VL005"
    fixed = apply_edits(text, edit_of(fix, p))
    assert fixed == text.replace("--max-num-seq ", "--max-num-seqs ")
    s.change(p.as_uri(), p, 2, fixed)
    assert codes(s.lint(p)) == []


def test_an_unsafe_fix_is_offered_but_not_preferred(tmp_path: Path) -> None:
    write(tmp_path, {"run.sh": f"vllm serve {MODEL} --gpu-memory-utilization 0.97 --max-model-len 8192\n"})
    s = Session([tmp_path])
    p = opened(s, tmp_path / "run.sh")
    fix = next(a for a in code_actions(s, p, line_range(0)) if a.title.startswith("Fix"))
    assert "unsafe" in fix.title and not fix.is_preferred
    fixed = apply_edits(p.read_text(), edit_of(fix, p))
    assert "--gpu-memory-utilization 0.9 " in fixed


def test_a_typo_with_a_unique_did_you_mean_is_a_quick_fix(tmp_path: Path) -> None:
    """VL001 --gpu-memory-utilisation: the editor offers the rename the CLI's `vlint fix --unsafe-fixes`
    applies (the same Fix); unsafe (vLLM refused the launch as written), so not preferred."""
    text = f"vllm serve {MODEL} --gpu-memory-utilisation 0.85 --max-model-len 8192\n"
    write(tmp_path, {"run.sh": text})
    s = Session([tmp_path])
    p = opened(s, tmp_path / "run.sh")
    fix = next(a for a in code_actions(s, p, line_range(0)) if a.title.startswith("Fix"))
    assert "VL001" in fix.title and "rename --gpu-memory-utilisation to --gpu-memory-utilization" in fix.title
    assert not fix.is_preferred
    fixed = apply_edits(text, edit_of(fix, p))
    assert fixed == text.replace("utilisation", "utilization")
    s.change(p.as_uri(), p, 2, fixed)
    assert codes(s.lint(p)) == []


@pytest.mark.parametrize(
    ("name", "text", "line", "expect"),
    [
        ("run.sh", f"vllm serve {MODEL} --max-num-seq 8 --max-model-len 8192\n", 0, "# vlint: disable=VL005"),
        # a continued command: the comment goes above it (an end-of-line comment would end the command)
        (
            "run.sh",
            f"vllm serve {MODEL} \\\n  --max-num-seq 8 \\\n  --max-model-len 8192\n",
            1,
            "# vlint: disable=VL005\nvllm serve",
        ),
        (
            "k8s.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.10.2\n"
            f"        args:\n        - {MODEL}\n        - --max-num-seq\n        - '8'\n"
            "        - --max-model-len\n        - '8192'\n",
            11,
            "- --max-num-seq  # vlint: disable=VL005",
        ),
        ("Dockerfile", f'FROM vllm/vllm-openai:v0.10.2\nCMD ["{MODEL}", "--max-num-seq", "8"]\n', 1, None),
    ],
)
def test_disable_for_this_line_suppresses_the_finding(
    tmp_path: Path, name: str, text: str, line: int, expect: str | None
) -> None:
    write(tmp_path, {name: text})
    s = Session([tmp_path])
    p = opened(s, tmp_path / name)
    before = s.lint(p)
    assert "VL005" in codes(before)
    action = next(a for a in code_actions(s, p, line_range(line)) if a.title.startswith("Disable VL005"))
    new = apply_edits(text, edit_of(action, p))
    if expect is not None:
        assert expect in new
    if name == "Dockerfile":  # comments only on lines of their own
        assert new.splitlines()[1].startswith("# vlint: disable=VL005")
    s.change(p.as_uri(), p, 2, new)
    after = s.lint(p)
    assert "VL005" not in codes(after) and "VL901" not in codes(after)
    assert len(after.diagnostics) == len(before.diagnostics) - 1


def test_disable_adds_to_a_comment_already_there(tmp_path: Path) -> None:
    text = f"vllm serve {MODEL} --max-num-seq 8 --gpu-memory-utilization 0.97  # vlint: disable=VL201\n"
    write(tmp_path, {"run.sh": text})
    s = Session([tmp_path])
    p = opened(s, tmp_path / "run.sh")
    action = next(a for a in code_actions(s, p, line_range(0)) if a.title.startswith("Disable VL005"))
    assert apply_edits(text, edit_of(action, p)).endswith("# vlint: disable=VL201,VL005\n")


def test_fix_all_safe_fixes_the_document(tmp_path: Path) -> None:
    shutil.copy(ROOT / "examples/start.sh", tmp_path / "start.sh")
    s = Session([tmp_path])
    p = opened(s, tmp_path / "start.sh")
    before = codes(s.lint(p))
    actions = code_actions(s, p, line_range(0), ["source.fixAll"], resolve=True)
    assert [a.kind for a in actions] == ["source.fixAll.vlint"] and actions[0].edit is None
    action = resolve_action(s, p, actions[0])
    fixed = apply_edits(p.read_text(), edit_of(action, p))
    s.change(p.as_uri(), p, 2, fixed)
    after = codes(s.lint(p))
    # VL005 (spelling) is the safe fix; VL101's removal turns chunked prefill on: unsafe, left alone
    assert {"VL005", "VL101"} <= set(before) and "VL005" not in after
    assert set(after) == set(before) - {"VL005"}  # unsafe fixes are left alone


def test_a_fix_in_a_linked_file_edits_that_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"run.sh": f"vllm serve {MODEL} --config cfg.yaml --max-model-len 8192\n", "cfg.yaml": "max-num-seq: 8\n"},
    )
    s = Session([tmp_path])
    p = opened(s, tmp_path / "run.sh")
    assert codes(s.lint(p)) == ["VL005"]
    fix = next(a for a in code_actions(s, p, line_range(0)) if a.title.startswith("Fix VL005"))
    cfg = tmp_path / "cfg.yaml"
    assert apply_edits(cfg.read_text(), edit_of(fix, cfg)) == "max-num-seqs: 8\n"


# -- hover ------------------------------------------------------------------------------------------
def test_hover_on_the_model_shows_the_memory_summary(tmp_path: Path) -> None:
    shutil.copy(ROOT / "examples/k8s/llama-l4.yaml", tmp_path / "llama.yaml")
    s = Session([tmp_path])
    p = opened(s, tmp_path / "llama.yaml")
    lines = p.read_text().splitlines()
    row = next(i for i, t in enumerate(lines) if MODEL in t)
    h = s.hover(p, types.Position(line=row, character=lines[row].index(MODEL) + 3))
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    text = h.contents.value
    for needle in ("model weights", "GPU KV cache size", "max concurrency", "what if --max-model-len", "L4"):
        assert needle in text
    assert h.range is not None and h.range.start.line == row
    flag = next(i for i, t in enumerate(lines) if "--max-model-len" in t)
    assert s.hover(p, types.Position(line=flag, character=lines[flag].index("--max") + 1)) is not None
    assert s.hover(p, types.Position(line=0, character=0)) is None  # apiVersion: nothing to say


def test_the_vscode_extension_contributes_exactly_the_servers_settings() -> None:
    import json

    props = json.loads((ROOT / "editors/vscode/package.json").read_text())["contributes"]["configuration"]["properties"]
    defaults = {key.removeprefix("vlint."): p["default"] for key, p in props.items()}
    settings, problems = EditorSettings.from_json({"vlint": defaults})  # what VS Code sends out of the box
    assert problems == [] and settings == EditorSettings()
    camel = {f.name.split("_")[0] + "".join(w.title() for w in f.name.split("_")[1:]) for f in fields(EditorSettings)}
    assert set(defaults) - {"path"} == camel


def test_the_editor_never_runs_kubectl_or_helm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rendering a kustomize overlay takes a tool run of up to 30 s: the editor lints without it
    and the overlay's VL630 note says so (vlint check renders)."""
    import textwrap

    from tests.sources.render.test_kustomize import BASE, OVERLAY
    from vlint.sources.render import tools

    def no_tool(*args: object, **kwargs: object) -> None:
        raise AssertionError("the language server ran an outside tool")

    monkeypatch.setattr(tools, "run_tool", no_tool)
    write(tmp_path, {k: textwrap.dedent(v) for k, v in {**BASE, **OVERLAY}.items()})
    s = Session([tmp_path])
    result = s.lint(opened(s, tmp_path / "k8s/overlays/l4/kustomization.yaml"))
    notes = [d for d in result.diagnostics if str(d.code) == "VL630"]
    assert len(notes) == 1 and "the editor does not render" in notes[0].message, result.diagnostics
