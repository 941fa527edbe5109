"""``vlint server`` without pygls says what to install (this test runs whether pygls is installed or not)."""

from __future__ import annotations

import subprocess
import sys

from tests.server.lsp_client import ROOT

WITHOUT_PYGLS = """
import sys
sys.modules["pygls"] = None  # as if pygls were not installed: `import pygls…` raises ImportError
from vlint.cli import main
sys.argv = ["vlint", "server"]
main()
"""


def test_without_pygls_the_server_names_the_extra() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT_PYGLS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert "pip install 'vlint[server]'" in proc.stderr
    assert proc.stdout == ""


def test_the_server_is_listed_and_the_cli_does_not_import_pygls() -> None:
    code = (
        "import sys; from vlint import cli; cli.main(['--help'], standalone_mode=False); print('pygls' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "server" in proc.stdout
    assert proc.stdout.strip().endswith("False")
