"""A small LSP client for the tests and the benchmark: starts ``vlint server`` as an editor does
(a child process speaking JSON-RPC over its stdin/stdout) and sends and waits for raw messages.

It answers the requests a server sends to its client (``workspace/configuration`` with the
configured settings, ``client/registerCapability`` with null) and records every notification.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SKIP_REASON = "the language server needs pygls 2.x: pip install -e '.[server]' (the test extra installs it too)"


def require_pygls() -> None:
    """Skip the calling test module when pygls 2.x (and lsprotocol) cannot be imported."""
    import pytest

    pytest.importorskip("pygls.lsp.server", reason=SKIP_REASON)
    pytest.importorskip("lsprotocol.types", reason=SKIP_REASON)


#: the capabilities of a present-day editor (VS Code's, cut down to what vlint uses)
CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "workspace": {
        "configuration": True,
        "workspaceEdit": {"documentChanges": True},
        "didChangeConfiguration": {"dynamicRegistration": True},
        "didChangeWatchedFiles": {"dynamicRegistration": True},
        "workspaceFolders": True,
    },
    "textDocument": {
        "synchronization": {"didSave": True, "dynamicRegistration": True},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True, "codeDescriptionSupport": True},
        "codeAction": {
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["", "quickfix", "source", "source.fixAll"]},
            },
            "isPreferredSupport": True,
            "disabledSupport": True,
            "dataSupport": True,
            "resolveSupport": {"properties": ["edit"]},
        },
        "hover": {"contentFormat": ["markdown", "plaintext"]},
    },
}


class LspClient:
    def __init__(
        self,
        cmd: list[str] | None = None,
        *,
        cwd: Path | None = None,
        settings: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.cmd = cmd or [sys.executable, "-m", "vlint", "server"]
        self.settings = settings
        full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
        full_env.pop("GITHUB_ACTIONS", None)
        self.proc = subprocess.Popen(
            self.cmd,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._id = 0
        self._responses: dict[int, dict[str, Any]] = {}
        self._cond = threading.Condition()
        #: every notification received, in order; and those no wait has returned yet
        self.seen: list[dict[str, Any]] = []
        self._unread: list[dict[str, Any]] = []
        self._stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- transport -------------------------------------------------------------------------------
    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            msg = json.loads(out.read(length))
            if "method" in msg and "id" in msg:
                self._answer(msg)
            elif "method" in msg:
                with self._cond:
                    self.seen.append(msg)
                    self._unread.append(msg)
                    self._cond.notify_all()
            else:
                with self._cond:
                    self._responses[msg["id"]] = msg
                    self._cond.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def _answer(self, msg: dict[str, Any]) -> None:
        """Requests from the server: configuration (our settings), capability registration (ok)."""
        result: Any = None
        if msg["method"] == "workspace/configuration":
            result = [self.settings for _ in msg["params"]["items"]]
        self._send({"id": msg["id"], "result": result})

    # -- requests and notifications ----------------------------------------------------------------
    def request(self, method: str, params: Any, timeout: float = 30.0) -> Any:
        self._id += 1
        rid = self._id
        self._send({"id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        with self._cond:
            while rid not in self._responses:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no answer to {method} within {timeout} s; server stderr:\n{self.stderr}")
                self._cond.wait(left)
            msg = self._responses.pop(rid)
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error']}")
        return msg.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def wait_for(
        self, method: str, pred: Callable[[dict[str, Any]], bool] = lambda p: True, timeout: float = 30.0
    ) -> dict[str, Any]:
        """The params of the first notification ``method`` not waited for yet for which ``pred``
        holds (the others stay for later waits)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i, msg in enumerate(self._unread):
                    if msg["method"] == method and pred(msg["params"]):
                        del self._unread[i]
                        return msg["params"]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {method} within {timeout} s; server stderr:\n{self.stderr}")
                self._cond.wait(left)

    def diagnostics(
        self,
        uri: str,
        version: int | None = None,
        where: Callable[[list[dict[str, Any]]], bool] = lambda ds: True,
        timeout: float = 30.0,
    ) -> list[dict[str, Any]]:
        """The first diagnostics not waited for yet published for ``uri`` (for ``version`` when
        given; for which ``where`` holds)."""

        def match(p: dict[str, Any]) -> bool:
            return p["uri"] == uri and (version is None or p.get("version") == version) and where(_shown(p))

        return _shown(self.wait_for("textDocument/publishDiagnostics", match, timeout))

    # -- the editor's side ----------------------------------------------------------------------
    def initialize(self, folder: Path, options: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": folder.as_uri(),
                "workspaceFolders": [{"uri": folder.as_uri(), "name": folder.name}],
                "capabilities": CAPABILITIES,
                "initializationOptions": options,
            },
        )
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str | None = None, version: int = 1, language: str = "plaintext") -> str:
        uri = path.as_uri()
        content = path.read_text(encoding="utf-8") if text is None else text
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": language, "version": version, "text": content}},
        )
        return uri

    def change(self, uri: str, version: int, text: str) -> None:
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )

    def shutdown(self, timeout: float = 30.0) -> int:
        """shutdown, then exit; the server's exit code."""
        self.request("shutdown", None, timeout)
        self.notify("exit", None)
        try:
            return self.proc.wait(timeout)
        finally:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()


def apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """Apply LSP text edits (UTF-16 positions) to ``text`` as an editor does: all against the
    original text, from the last to the first."""
    lines = text.split("\n")

    def offset(pos: dict[str, int]) -> int:
        line = pos["line"]
        before = sum(len(x) + 1 for x in lines[:line])
        cur = lines[line] if line < len(lines) else ""
        units, i = 0, 0
        while i < len(cur) and units < pos["character"]:
            units += 2 if ord(cur[i]) > 0xFFFF else 1
            i += 1
        return before + i

    spans = sorted(
        ((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits), reverse=True
    )
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


def _shown(published: dict[str, Any]) -> list[dict[str, Any]]:
    """The diagnostics the tests look at: VL230 (no GPU named: where the launch starts on the reference
    GPUs, an info on every launch of these files) is left out."""
    return [d for d in published["diagnostics"] if d.get("code") != "VL230"]
