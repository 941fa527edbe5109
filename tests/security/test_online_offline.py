"""``--online`` on a machine without a network fails fast, says what it could not fetch, and caps
what it downloads.

The hub endpoint is a local socket that accepts connections and never answers (the worst case: a
firewall that drops packets), so every request can only end by its timeout.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("huggingface_hub", reason="--online needs huggingface_hub (pip install 'vlint[online]')")

ROOT = Path(__file__).resolve().parents[2]
MODELS = [f"acme/unknown-model-{i}b" for i in range(6)]


@pytest.fixture
def black_hole() -> str:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
                held.append(conn)  # never read, never answered
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}"
    stop.set()
    t.join()
    for c in held:
        c.close()
    srv.close()


def test_no_network_fails_fast_and_names_what_was_not_fetched(tmp_path: Path, black_hole: str) -> None:
    (tmp_path / "serve.sh").write_text(
        "".join(f"vllm serve {m} --max-model-len 4096 &\n" for m in MODELS), encoding="utf-8"
    )
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        HF_ENDPOINT=black_hole,
        HF_HUB_CACHE=str(tmp_path / "hub-cache"),
        HF_HUB_DISABLE_TELEMETRY="1",
    )
    env.pop("HF_HUB_OFFLINE", None)
    start = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "vlint.cli", "explain", "--online", "--gpu", "L4", "--format", "json", "serve.sh"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    seconds = time.monotonic() - start
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    doc = json.loads(r.stdout)
    reasons = [d["memory_unavailable"] for d in doc["deployments"]]
    assert len(reasons) == len(MODELS)
    # one request timed out; every later model was skipped at once, each saying why
    assert seconds < 30, seconds
    for model, reason in zip(MODELS, reasons, strict=True):
        assert model in reason and "not reachable" in reason, reason
