"""Running an outside tool (``kubectl kustomize``, ``kustomize build``, ``helm template``, and ``git`` to
read a file as a commit has it, for ``vlint check --diff-base``): the one place vlint starts another
program.

Every run is confined the same way:

* only a tool found on ``PATH`` (never downloaded) whose real path lies outside every lint root (a
  ``kubectl`` in a folder of the pull request is the pull request's program), started without a shell;
* a scrubbed environment: an empty ``PATH`` (the tool is started by its absolute path, so it finds no
  ``git``, ``ssh`` or plugin to start), a temporary ``HOME``/``TMPDIR`` and the tool's own settings
  pointing into that folder — no CI variable (tokens, cloud credentials, ``KUBECONFIG``) reaches the
  child; git is told no protocol is allowed and ssh is ``false``; ``HTTP(S)_PROXY`` point at a closed
  local port so that a request the checks before the run did not foresee fails at once;
* the working folder is the temporary folder; a time budget (:class:`Budget`: one per run, shared by
  every render, each render at most :data:`TIMEOUT`; the whole process group is killed), a memory cap
  (``RLIMIT_AS``, :data:`MAX_MEMORY`) and an output cap (``RLIMIT_FSIZE`` on the file the output goes
  to: the child cannot write more, and a larger output is refused, never truncated silently).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import record
from vlint.sources.render import RUN_BUDGET, TIMEOUT, Budget, settings

if sys.platform != "win32":
    import resource

#: bytes of address space a tool may map (kustomize renders a large overlay in well under 1 GiB)
MAX_MEMORY = 3 * 2**30
#: bytes of output read from a tool (a rendered chart of a few hundred objects is well below)
MAX_OUTPUT = 16 * 2**20
#: what a child that hit its memory cap prints (Go's runtime, Python, glibc)
_OUT_OF_MEMORY = lazy_compile(r"out of memory|cannot allocate memory|MemoryError|std::bad_alloc", re.IGNORECASE)
#: a port nothing listens on: a request through the proxy fails immediately
_DEAD_PROXY = "http://127.0.0.1:9"


@record(slots=True)
class ToolRun:
    ok: bool
    output: str = ""
    #: why the run failed, one line (the tool's first error line, the timeout, the cap)
    error: str = ""
    #: the standard output as bytes (``output`` is it decoded as UTF-8)
    data: bytes = b""
    #: the exit code (None: it did not start, or was stopped)
    code: int | None = None


def find_tool(name: str) -> str | None:
    """The tool's path on ``PATH``, or None — also when its real path lies inside the run's lint root
    (:func:`not_found`)."""
    found = shutil.which(name)
    if found is None or _inside_root(found) is not None:
        return None
    return found


def not_found(names: tuple[str, ...], missing: str) -> str:
    """Why :func:`find_tool` found none of ``names``: ``missing`` (not on PATH, and how to install),
    or that the one on PATH lies inside the lint root."""
    for name in names:
        found = shutil.which(name)
        inside = _inside_root(found) if found is not None else None
        if inside is not None:
            return inside
    return missing


def _inside_root(found: str, folders: tuple[Path, ...] | None = None) -> str | None:
    """Why a tool at ``found`` is the linted files' own program: its real path lies in the lint root
    (``folders``; default: the run's) or the folder vlint runs from (a checkout CI lints is both)."""
    real = Path(os.path.realpath(found))
    refused = settings().tool_folders_refused if folders is None else folders
    for folder in (*refused, Path.cwd().resolve()):
        if real == folder or folder in real.parents:
            name = Path(found).name
            return f"{name} on PATH is {found}, inside the lint root: a program of the files linted is never run"
    return None


def scrubbed_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        # empty: the tool is started by its absolute path and must start nothing else (git, ssh, plugins)
        "PATH": str(home / "no-programs"),
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
        "GIT_ALLOW_PROTOCOL": "",
        "GIT_SSH_COMMAND": "false",
        "GIT_SSH": "false",
        "GIT_PROTOCOL_FROM_USER": "0",
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
    max_memory: int = MAX_MEMORY,
    budget: Budget | None = None,
) -> ToolRun:
    """Run ``argv`` (``argv[0]`` a path from :func:`find_tool`) confined as the module says; its
    standard output as text when it exits 0. With ``budget``, the run's time budget caps the timeout
    and pays for the time taken."""
    if budget is not None:
        if budget.used_up:
            return ToolRun(False, error=f"the run's rendering time budget ({RUN_BUDGET:.0f} s) is used up")
        timeout = min(timeout, budget.take())
    started = time.monotonic()
    try:
        return _run(argv, extra_env, timeout, max_output, max_memory)
    finally:
        if budget is not None:
            budget.spend(time.monotonic() - started)


#: seconds one git command may run (``git show`` of one file answers in milliseconds)
GIT_TIMEOUT = 10.0
#: what git is told on top of the scrubbed environment: no pager, no lock files written, no lazy fetch of a
#: partial clone's missing objects, no replace refs, no system or user attributes
_GIT_ENV = {
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_ADVICE": "0",
}
#: configuration given on git's command line: no file-system monitor program, no protocol at all
#: (nothing is fetched), no hooks
_GIT_CONFIG = ("core.fsmonitor=false", "protocol.allow=never", "core.hooksPath=/dev/null")


def find_git(root_folders: tuple[Path, ...]) -> tuple[str | None, str]:
    """(git's path on ``PATH``, "") or (None, why not): absent, or inside the lint root."""
    found = shutil.which("git")
    if found is None:
        return None, "git is not on PATH (install git, or run without --diff-base)"
    inside = _inside_root(found, root_folders)
    if inside is not None:
        return None, inside
    return found, ""


def run_git(
    git: str,
    work_tree: Path,
    args: list[str],
    *,
    timeout: float = GIT_TIMEOUT,
    max_output: int = MAX_OUTPUT,
) -> ToolRun:
    """``git -C WORK_TREE ARGS`` confined as the module says (scrubbed environment: no user or system
    configuration, no credentials, no network; a timeout; an output cap), git never looking above the
    work tree for a repository (``GIT_CEILING_DIRECTORIES``). ``git`` comes from :func:`find_git`."""
    argv = [git, "--no-pager", "-C", str(work_tree)]
    for c in _GIT_CONFIG:
        argv += ["-c", c]
    extra = dict(_GIT_ENV, GIT_CEILING_DIRECTORIES=str(work_tree.parent))
    return _run([*argv, *args], extra, timeout, max_output, MAX_MEMORY)


def _run(
    argv: list[str], extra_env: dict[str, str] | None, timeout: float, max_output: int, max_memory: int
) -> ToolRun:
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
                    preexec_fn=_limits(max_output, max_memory) if sys.platform != "win32" else None,
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
            if code < 0 or _OUT_OF_MEMORY.search(stderr):
                first = first if "memory" in first else ""
                return ToolRun(
                    False,
                    error=first[:300]
                    or f"{Path(argv[0]).name} ran out of its memory cap ({max_memory // 2**30} GiB) or was killed",
                )
            return ToolRun(False, error=first[:300] or f"exit code {code}", code=code)
        data = out_path.read_bytes()
        return ToolRun(True, data.decode("utf-8", errors="replace"), data=data, code=0)


def _limits(max_output: int, max_memory: int):  # type: ignore[no-untyped-def]
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_output, max_output))
        resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))
        # a write over the limit then fails with EFBIG instead of killing the child with SIGXFSZ
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    return apply


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        proc.kill()
    proc.wait()
