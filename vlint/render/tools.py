"""Running an outside tool (``kubectl kustomize``, ``kustomize build``, ``helm template``): the one
place vlint starts another program.

Every run is confined the same way:

* only a tool found on ``PATH`` (never downloaded), started without a shell;
* a scrubbed environment: ``PATH``, a temporary ``HOME``/``TMPDIR`` and the tool's own settings pointing
  into that folder — no CI variable (tokens, cloud credentials, ``KUBECONFIG``) reaches the child;
  ``HTTP(S)_PROXY`` point at a closed local port so that a request the checks before the run did not
  foresee fails at once instead of reaching the network;
* the working folder is the temporary folder; a timeout (the whole process group is killed) and an
  output cap (``RLIMIT_FSIZE`` on the file the output goes to: the child cannot write more, and a
  larger output is refused, never truncated silently).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: seconds a tool may run
TIMEOUT = 30.0
#: bytes of output read from a tool (a rendered chart of a few hundred objects is well below)
MAX_OUTPUT = 16 * 2**20
#: a port nothing listens on: a request through the proxy fails immediately
_DEAD_PROXY = "http://127.0.0.1:9"


@dataclass(slots=True)
class ToolRun:
    ok: bool
    output: str = ""
    #: why the run failed, one line (the tool's first error line, the timeout, the cap)
    error: str = ""


def find_tool(name: str) -> str | None:
    """The tool's path on ``PATH``, or None."""
    return shutil.which(name)


def scrubbed_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TMPDIR": str(home),
        "LANG": "C.UTF-8",
        "KUBECONFIG": str(home / "no-kubeconfig"),
        "HTTP_PROXY": _DEAD_PROXY,
        "HTTPS_PROXY": _DEAD_PROXY,
        "http_proxy": _DEAD_PROXY,
        "https_proxy": _DEAD_PROXY,
        "NO_PROXY": "",
        "no_proxy": "",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / "no-gitconfig"),
    }
    env.update(extra or {})
    return env


def run_tool(
    argv: list[str],
    *,
    extra_env: dict[str, str] | None = None,
    timeout: float = TIMEOUT,
    max_output: int = MAX_OUTPUT,
) -> ToolRun:
    """Run ``argv`` (``argv[0]`` a path from :func:`find_tool`) confined as the module says; its
    standard output as text when it exits 0."""
    with tempfile.TemporaryDirectory(prefix="vlint-render-") as tmp:
        home = Path(tmp)
        env = scrubbed_env(home, {k: v.replace("{home}", tmp) for k, v in (extra_env or {}).items()})
        out_path = home / "stdout"
        err_path = home / "stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    cwd=tmp,
                    env=env,
                    start_new_session=True,
                    preexec_fn=_limits(max_output) if sys.platform != "win32" else None,
                )
            except OSError as e:
                return ToolRun(False, error=f"could not start {Path(argv[0]).name}: {e.strerror or e}")
            try:
                code = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill(proc)
                return ToolRun(False, error=f"{Path(argv[0]).name} did not finish within {timeout:.0f} s")
        size = out_path.stat().st_size
        if size >= max_output:
            return ToolRun(False, error=f"output over {max_output // 2**20} MiB: not read")
        stderr = err_path.read_bytes()[:4096].decode("utf-8", errors="replace")
        if code != 0:
            first = next((line.strip() for line in stderr.splitlines() if line.strip()), "")
            return ToolRun(False, error=first[:300] or f"exit code {code}")
        return ToolRun(True, out_path.read_bytes().decode("utf-8", errors="replace"))


def _limits(max_output: int):  # type: ignore[no-untyped-def]
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (max_output, max_output))
        # a write over the limit then fails with EFBIG instead of killing the child with SIGXFSZ
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    return apply


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        proc.kill()
    proc.wait()
