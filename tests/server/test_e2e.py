"""End to end: the real ``vlint server`` in a child process, driven over stdio as an editor drives it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.lsp_client import require_pygls

require_pygls()

from tests.server.lsp_client import LspClient, apply_edits  # noqa: E402

MODEL = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[LspClient]:
    c = LspClient(cwd=tmp_path)
    try:
        yield c
    finally:
        c.close()


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def position(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


def edits_for(result: dict[str, Any], uri: str) -> list[dict[str, Any]]:
    return [
        e
        for change in result["edit"]["documentChanges"]
        if change["textDocument"]["uri"] == uri
        for e in change["edits"]
    ]


def test_an_editor_session(tmp_path: Path, client: LspClient) -> None:
    text = f'NOTE="🦙 llama" vllm serve {MODEL} \\\n  --max-num-seq 8 \\\n  --max-model-len 8192\n'
    (tmp_path / "serve.sh").write_text(f"vllm serve {MODEL} --max-model-len 8192\n")  # the disk is not what is linted
    caps = client.initialize(tmp_path)["capabilities"]
    assert caps["positionEncoding"] == "utf-16"
    assert caps["textDocumentSync"]["change"] == 2  # incremental
    assert caps["hoverProvider"] and caps["codeActionProvider"]["resolveProvider"]
    assert set(caps["codeActionProvider"]["codeActionKinds"]) == {"quickfix", "source.fixAll.vlint"}

    uri = client.open(tmp_path / "serve.sh", text, language="shellscript")
    (d,) = client.diagnostics(uri, 1)
    assert d["code"] == "VL005" and d["source"] == "vlint" and d["severity"] == 2
    assert d["codeDescription"]["href"].endswith("docs/rules/VL005.md")
    assert d["range"] == {"start": position(1, 2), "end": position(1, 2 + len("--max-num-seq"))}

    # the launch word of line 0, after a non-BMP character: hover gives the memory summary
    col = utf16(text[: text.index("vllm serve")])
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position(0, col + 1)})
    assert hover["contents"]["kind"] == "markdown"
    assert "memory model" in hover["contents"]["value"] or "KV cache" in hover["contents"]["value"]
    assert hover["range"]["start"] == position(0, col)

    actions = client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": {"start": position(1, 4), "end": position(1, 4)},
            "context": {"diagnostics": [d]},
        },
    )
    titles = [a["title"] for a in actions]
    assert titles[0].startswith("Fix VL005") and any(t.startswith("Disable VL005") for t in titles)
    fix = actions[0]
    assert fix["kind"] == "quickfix" and fix["isPreferred"] is True
    assert fix["edit"]["documentChanges"][0]["textDocument"] == {"uri": uri, "version": 1}
    fixed = apply_edits(text, edits_for(fix, uri))
    assert fixed == text.replace("--max-num-seq ", "--max-num-seqs ")

    client.change(uri, 2, fixed)
    assert client.diagnostics(uri, 2) == []

    # an incremental change that brings a problem back, published after the debounce
    client.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 3},
            "contentChanges": [{"range": {"start": position(2, 2), "end": position(2, 2)}, "text": "--max-num-seq 4 "}],
        },
    )
    d = next(d for d in client.diagnostics(uri, 3) if d["code"] == "VL005")
    assert d["range"]["start"] == position(2, 2)

    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    closed = client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri and p.get("version") is None)
    assert closed["diagnostics"] == []
    assert client.shutdown() == 0


def test_settings_from_initialization_options_and_configuration_changes(tmp_path: Path, client: LspClient) -> None:
    launch = f"vllm serve {MODEL} --max-num-seq 8 --gpu-memory-utilization 0.97 --max-model-len 8192\n"
    (tmp_path / "run.sh").write_text(launch)
    (tmp_path / "pyproject.toml").write_text('[tool.vlint]\nignore = ["VL201"]\n')
    client.initialize(tmp_path, {"vlint": {"extendSelect": ["VL9"]}})
    uri = client.open(tmp_path / "run.sh")
    assert [d["code"] for d in client.diagnostics(uri)] == ["VL005"]  # VL201 ignored by the workspace's config
    client.notify("workspace/didChangeConfiguration", {"settings": {"vlint": {"ignore": ["VL005"]}}})
    assert client.diagnostics(uri, where=lambda ds: not ds) == []
    # settings the server cannot use are logged, never silently dropped
    client.notify("workspace/didChangeConfiguration", {"settings": {"vlint": {"online": True}}})
    msg = client.wait_for("window/logMessage", lambda p: "online" in p["message"])
    assert msg["type"] == 2
    assert client.shutdown() == 0


def test_the_server_asks_for_the_vlint_section(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text(f"vllm serve {MODEL} --max-num-seq 8 --gpu-memory-utilization 0.97\n")
    client = LspClient(cwd=tmp_path, settings={"ignore": ["VL005", "VL203"]})  # answers workspace/configuration
    try:
        client.initialize(tmp_path)
        uri = client.open(tmp_path / "run.sh")
        codes = [d["code"] for d in client.diagnostics(uri, where=lambda ds: all(d["code"] == "VL201" for d in ds))]
        assert codes == ["VL201"]
        assert client.shutdown() == 0
    finally:
        client.close()


def test_a_change_to_a_linked_buffer_lints_the_launch_again(tmp_path: Path, client: LspClient) -> None:
    (tmp_path / "run.sh").write_text(f"vllm serve {MODEL} --config cfg.yaml --max-model-len 8192\n")
    (tmp_path / "cfg.yaml").write_text("max-num-seqs: 8\ngpu-memory-utilization: 0.97\n")
    client.initialize(tmp_path)
    cfg = client.open(tmp_path / "cfg.yaml", language="yaml")
    (d,) = client.diagnostics(cfg)
    assert d["code"] == "VL201" and "relatedInformation" not in d  # alone: a bare config file
    run = client.open(tmp_path / "run.sh")
    (d,) = client.diagnostics(run)
    assert d["code"] == "VL201" and d["message"].startswith("in cfg.yaml:2:1: ")
    assert d["range"]["start"] == position(0, len(f"vllm serve {MODEL} "))  # on the launch's --config
    # now the server knows run.sh reads cfg.yaml: cfg.yaml is linted again, through that launch
    (d,) = client.diagnostics(cfg, 1)
    assert d["relatedInformation"][0]["location"]["uri"] == run
    client.change(cfg, 2, "max-num-seqs: 8\nenable-prefix-caching: false\n")
    (d,) = client.diagnostics(run, where=lambda ds: ds[:1] != [] and ds[0]["code"] != "VL201")
    assert d["code"] == "VL011" and d["relatedInformation"][0]["location"]["uri"] == cfg
    (d,) = client.diagnostics(cfg, 2)
    assert d["code"] == "VL011" and d["range"]["start"] == position(1, 0)
    assert client.shutdown() == 0


def test_fix_all_is_resolved_when_chosen(tmp_path: Path, client: LspClient) -> None:
    text = f"vllm serve {MODEL} --max-num-seq 8 --no-enable-chunked-prefill --max-model-len 8192\n"
    (tmp_path / "run.sh").write_text(text)
    client.initialize(tmp_path)
    uri = client.open(tmp_path / "run.sh")
    assert {d["code"] for d in client.diagnostics(uri)} == {"VL005", "VL101"}
    (action,) = client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": {"start": position(0, 0), "end": position(0, 0)},
            "context": {"diagnostics": [], "only": ["source.fixAll"]},
        },
    )
    assert action["kind"] == "source.fixAll.vlint" and "edit" not in action
    resolved = client.request("codeAction/resolve", action)
    fixed = apply_edits(text, edits_for(resolved, uri))
    # the safe fixes only: removing --no-enable-chunked-prefill (VL101) turns chunked prefill on
    assert fixed == f"vllm serve {MODEL} --max-num-seqs 8 --no-enable-chunked-prefill --max-model-len 8192\n"
    client.change(uri, 2, fixed)
    assert [d["code"] for d in client.diagnostics(uri, 2)] == ["VL101"]
    assert client.shutdown() == 0


CRASHING_SERVER = """
import sys
import vlint.suppression.inline as suppress

real = suppress.apply_suppressions

def crash_on_some_files(results, *args, **kwargs):
    if any("crash" in fr.path for fr in results):
        raise RuntimeError("injected crash")
    return real(results, *args, **kwargs)

suppress.apply_suppressions = crash_on_some_files
from vlint.cli import main
sys.argv = ["vlint", "server"]
main()
"""


def test_a_crash_in_one_buffer_is_logged_and_the_server_keeps_serving(tmp_path: Path) -> None:
    launch = f"vllm serve {MODEL} --max-num-seq 8 --max-model-len 8192\n"
    (tmp_path / "crash.sh").write_text(launch)
    (tmp_path / "fine.sh").write_text(launch)
    client = LspClient([sys.executable, "-c", CRASHING_SERVER], cwd=tmp_path)
    try:
        client.initialize(tmp_path)
        bad = client.open(tmp_path / "crash.sh")
        assert client.diagnostics(bad) == []
        log = client.wait_for("window/logMessage", lambda p: "crash.sh" in p["message"])
        assert log["type"] == 1 and "injected crash" in log["message"] and "Traceback" in log["message"]
        good = client.open(tmp_path / "fine.sh")
        assert [d["code"] for d in client.diagnostics(good)] == ["VL005"]
        assert client.request("textDocument/hover", {"textDocument": {"uri": good}, "position": position(0, 1)})
        # the editor goes away without shutdown: the server does not outlive it
        assert client.proc.stdin is not None
        client.proc.stdin.close()
        assert client.proc.wait(30) is not None
    finally:
        client.close()
