"""Expansion budgets and fan-out (issue 30, items 3 and 4): hostile files that make an expander
produce gigabytes, or make vlint evaluate pulled-in files again at every reference.

Each test builds the hostile repository in ``tmp_path`` beside an ordinary launch (``ok.sh``) and
runs ``vlint check`` on it in a forked copy of this process (in process, without importing vlint
again), then asserts that the lint finished, that the memory it took stayed bounded (the growth of
the child's peak resident set, :func:`resource.getrusage`), that the file whose budget ran out says
so (one VL904 notice: the values past the budget are unresolved, never guessed) and that the other
file was still linted. The fan-out tests count the evaluations of pulled-in files, a measure of work
that does not depend on the machine (wall-time asserts are not used in this project).

Before the budget a 34 KB justfile or Taskfile took 1.5 GB and a 180 KB supervisord.conf 24 GB. The
sizes here make the unbudgeted code go many times past :data:`PEAK_LIMIT` (the child's address space
is capped, so it fails with a MemoryError rather than exhaust the machine); the budgeted code stays
well below it.
"""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from vlint.sources.containers import dotenv
from vlint.sources.scripts import makefile
from vlint.sources.scripts.shell_eval import ShellEvaluator

from .leaks import invoke_in, write_tree

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="runs each lint in a forked child")

#: growth of the peak resident set one lint of these repositories may cause: a file's expansion
#: budget (a million characters of substituted text) costs well under it
PEAK_LIMIT = 320 * 2**20
#: the child's address space beyond what it inherits: an unbounded expansion fails there
ADDRESS_SPACE = 3 * 2**30
#: the ordinary launch beside every hostile file
OK = {"ok.sh": "vllm serve facebook/opt-125m --max-model-len 2048\n"}


@dataclass(slots=True)
class Run:
    report: dict[str, Any]
    #: bytes the peak resident set grew by during the lint
    peak: int
    #: calls of each counted function
    calls: dict[str, int] = field(default_factory=dict)


@pytest.fixture(scope="module", autouse=True)
def _warm(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One ordinary lint here first: the rule catalog and argument schemas are loaded once, and each
    forked child starts with them (its growth is then the hostile file's alone)."""
    repo = tmp_path_factory.mktemp("warm")
    write_tree(repo, OK)
    assert invoke_in(repo, "check", "--isolated", "--format", "json", ".").exit_code in (0, 1)


def _lint(repo: Path, counted: tuple[tuple[object, str], ...] = ()) -> Run:
    """``vlint check --format json .`` in ``repo``, in a forked child: the report, how much its peak
    resident set grew, and how often each ``(owner, function)`` of ``counted`` was called."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: lint, send back what happened, leave without running pytest's exit handlers
        os.close(r)
        try:
            payload = _child(repo, counted)
        except BaseException as e:  # a MemoryError past the address-space cap, a crash
            payload = {"failed": repr(e)[:2000]}
        with os.fdopen(w, "w") as out:
            json.dump(payload, out)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as pipe:
        received = pipe.read()
    os.waitpid(pid, 0)
    payload = json.loads(received)
    assert "failed" not in payload, payload["failed"]
    report = json.loads(payload["output"])
    assert payload["exit_code"] in (0, 1), [(f["path"], f["error"]) for f in report["files"] if f["error"]]
    return Run(report, payload["peak"], payload["calls"])


def _child(repo: Path, counted: tuple[tuple[object, str], ...]) -> dict[str, Any]:
    calls = {name: 0 for _, name in counted}
    for owner, name in counted:
        setattr(owner, name, _counter(getattr(owner, name), name, calls))
    _cap_address_space()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # the resident set at the fork
    run = invoke_in(repo, "check", "--isolated", "--format", "json", ".")
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024  # KiB on Linux
    return {"exit_code": run.exit_code, "output": run.output, "peak": peak, "calls": calls}


def _counter(real: Callable[..., Any], name: str, calls: dict[str, int]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return real(*args, **kwargs)

    return counted


def _cap_address_space() -> None:
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # not Linux: no cap
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = size + ADDRESS_SPACE
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))


def _file(report: dict[str, Any], path: str) -> dict[str, Any]:
    return next(f for f in report["files"] if f["path"] == path)


def _budget_notes(report: dict[str, Any], path: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["path"] == path and "expansion_budget" in (f.get("data") or {})]


def _check(repo: Path, hostile: str, *, budget_hit: bool, counted: tuple[tuple[object, str], ...] = ()) -> Run:
    """Lint ``repo``: bounded, ``hostile`` read without an error (with one budget notice when its
    budget was hit, none otherwise) and ``ok.sh`` linted as usual."""
    run = _lint(repo, counted)
    assert run.peak < PEAK_LIMIT, f"peak resident set grew by {run.peak / 2**20:.0f} MiB"
    assert _file(run.report, hostile)["error"] is None
    assert len(_budget_notes(run.report, hostile)) == (1 if budget_hit else 0)
    ok = _file(run.report, "ok.sh")
    assert ok["launches"] == 1 and ok["error"] is None
    return run


def _doubling(define: Callable[[int, str], str], ref: Callable[[int], str], levels: int, leaf: str = "x" * 8) -> str:
    """Definitions ``v0 = leaf``, ``v{i} = v{i-1} v{i-1}`` (each twice the one before), one per line."""
    lines = [define(0, leaf)] + [define(i, ref(i - 1) * 2) for i in range(1, levels)]
    return "\n".join(lines) + "\n"


# -- item 3: substitution with no budget ------------------------------------------------------------
def test_supervisord_program_name_repeated(tmp_path: Path) -> None:
    """``%(program_name)s`` of a long ``[program:…]`` name, thousands of times (the 180 KB file that
    took 24 GB): 16 million characters. ``%(v0)s%(v0)s``… chains are not supervisord's (it expands
    only its own names): they stay unresolved and cost nothing."""
    chain = "".join(f"%(v{i})s%(v{i})s" for i in range(100))
    command = "vllm serve m --served-model-name " + "%(program_name)s" * 8000 + " --x " + chain
    write_tree(tmp_path, {**OK, "supervisord.conf": f"[program:{'p' * 2000}]\ncommand={command}\n"})
    _check(tmp_path, "supervisord.conf", budget_hit=True)


def test_justfile_variable_repeated(tmp_path: Path) -> None:
    """A long variable used many times (16 million characters) on the recipe line before the launch:
    it takes the whole budget, so the launch's own ``{{model}}`` stays unresolved."""
    text = (
        f'a := "{"y" * 2000}"\nmodel := "facebook/opt-125m"\n'
        "serve:\n    echo " + "{{a}}" * 8000 + "\n    vllm serve {{model}} --max-model-len 2048\n"
    )
    write_tree(tmp_path, {**OK, "justfile": text})
    run = _check(tmp_path, "justfile", budget_hit=True)
    launch = _file(run.report, "justfile")["deployments"][0]
    assert launch["model"] is None and "{{model}}" in launch["memory_unavailable"]  # unresolved, not guessed


def test_taskfile_doubling_variables(tmp_path: Path) -> None:
    """``V1: '{{.V0}}{{.V0}}'``, ``V2: '{{.V1}}{{.V1}}'``…: go-task fills each from the ones before
    (21 levels: 16 million characters in all)."""
    variables = _doubling(lambda i, v: f"  V{i}: '{v}'", lambda i: f"{{{{.V{i}}}}}", 21)
    text = f"version: '3'\nvars:\n{variables}tasks:\n  serve:\n    cmds:\n      - vllm serve m --x {{{{.V20}}}}\n"
    write_tree(tmp_path, {**OK, "Taskfile.yml": text})
    _check(tmp_path, "Taskfile.yml", budget_hit=True)


def test_makefile_doubling_variables(tmp_path: Path) -> None:
    """``V1 := $(V0)$(V0)``…: the Makefile reader had a budget of its own, unreported; now it draws on
    the file's budget, and running out is reported."""
    text = _doubling(lambda i, v: f"V{i} := {v}", lambda i: f"$(V{i})", 40)
    write_tree(tmp_path, {**OK, "Makefile": text + "serve:\n\tvllm serve m --x $(V39)\n"})
    _check(tmp_path, "Makefile", budget_hit=True)


def test_shell_variable_copied(tmp_path: Path) -> None:
    """``A="$A$A"`` up to 64 K characters (under the cap on one value), then copied into 8,000
    variables (each a string of its own): 500 million characters kept."""
    lines = ["A=xxxxxxxxxxxxxxxx", *['A="$A$A"'] * 12, *(f'B{i}="$A.{i}"' for i in range(8000))]
    write_tree(tmp_path, {**OK, "run.sh": "\n".join([*lines, 'vllm serve m --x "$A"']) + "\n"})
    _check(tmp_path, "run.sh", budget_hit=True)


def test_compose_doubling_variables(tmp_path: Path) -> None:
    """``.env`` values that double (``${V0}${V0}``…, up to the 64 K cap on one value), each used in
    hundreds of ``environment:`` entries (10 million characters)."""
    env = _doubling(lambda i, v: f"V{i}={v}", lambda i: f"${{V{i}}}", 13)
    entries = "".join(f"      - X{i}=${{V12}}\n" for i in range(300))
    compose = (
        "services:\n  v:\n    image: vllm/vllm-openai:v0.10.2\n"
        '    command: ["--model", "facebook/opt-125m"]\n    environment:\n' + entries
    )
    write_tree(tmp_path, {**OK, ".env": env, "compose.yaml": compose})
    _check(tmp_path, "compose.yaml", budget_hit=True)


def test_kubernetes_dependent_env_doubling(tmp_path: Path) -> None:
    """Kubernetes expands ``$(V)`` in an env value from the variables before it: ``V1: $(V0)$(V0)``…"""
    env = "".join(f'        - name: V{i}\n          value: "$(V{i - 1})$(V{i - 1})"\n' for i in range(1, 30))
    deploy = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: v}\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.10.2\n"
        '        args: ["--model", "facebook/opt-125m", "--served-model-name", "$(V29)"]\n'
        "        env:\n        - name: V0\n          value: xxxxxxxx\n" + env
    )
    write_tree(tmp_path, {**OK, "deploy.yaml": deploy})
    _check(tmp_path, "deploy.yaml", budget_hit=True)


def test_github_actions_env_repeated(tmp_path: Path) -> None:
    """A job's ``env:`` repeats the workflow's value a hundred times, a step's the job's (200 million
    characters)."""
    a, b, c = "a" * 20000, "${{ env.A }}" * 100, "${{ env.B }}" * 100
    workflow = (
        f"on: push\nenv:\n  A: {a}\njobs:\n  serve:\n    runs-on: gpu\n    env:\n      B: '{b}'\n"
        f"    steps:\n      - env:\n          C: '{c}'\n"
        "        run: vllm serve facebook/opt-125m --max-model-len 2048\n"
    )
    write_tree(tmp_path, {**OK, ".github/workflows/serve.yml": workflow})
    _check(tmp_path, ".github/workflows/serve.yml", budget_hit=True)


def test_dockerfile_env_copied(tmp_path: Path) -> None:
    """``ENV V1=${V0}${V0}``… up to the 64 K cap on one value, then copied into hundreds of variables."""
    lines = ["FROM vllm/vllm-openai:v0.10.2", "ENV V0=xxxxxxxx"]
    lines += [f"ENV V{i}=${{V{i - 1}}}${{V{i - 1}}}" for i in range(1, 13)]
    lines += [*(f"ENV W{i}=${{V12}}" for i in range(200)), 'CMD ["--model", "facebook/opt-125m"]']
    write_tree(tmp_path, {**OK, "Dockerfile": "\n".join(lines) + "\n"})
    _check(tmp_path, "Dockerfile", budget_hit=True)


# -- item 4: fan-out --------------------------------------------------------------------------------
def test_shell_files_that_source_each_other(tmp_path: Path) -> None:
    """20 scripts that each source all the others: each was evaluated again at every ``source``
    (20³ evaluations for each of the 21 scripts linted, 45 s); now once per starting point."""
    n = 20
    files = {f"s{i}.sh": f"V{i}=v{i}\n" + "".join(f". ./s{j}.sh\n" for j in range(n) if j != i) for i in range(n)}
    files["run.sh"] = '. ./s0.sh\nvllm serve "$V5" --max-model-len 2048\n'
    write_tree(tmp_path, {**OK, **files})
    run = _check(tmp_path, "run.sh", budget_hit=False, counted=((ShellEvaluator, "commands"),))
    assert run.calls["commands"] <= 10 * n * n, run.calls  # before: about 145,000
    assert _file(run.report, "run.sh")["deployments"][0]["model"] == "v5"  # what they set is still known


def test_makefiles_that_include_each_other(tmp_path: Path) -> None:
    """Included files that include all the others were read again at every ``include`` (N⁴)."""
    n = 10
    files = {
        f"m{i}.mk": f"V{i} = v{i}\ninclude " + " ".join(f"m{j}.mk" for j in range(n) if j != i) + "\n" for i in range(n)
    }
    files["Makefile"] = "include m0.mk\nserve:\n\tvllm serve $(V5) --max-model-len 2048\n"
    write_tree(tmp_path, {**OK, **files})
    run = _check(tmp_path, "Makefile", budget_hit=False, counted=((makefile, "_read"),))
    assert run.calls["_read"] <= 10 * n * n, run.calls  # before: about 75,000
    assert _file(run.report, "Makefile")["deployments"][0]["model"] == "v5"


def test_compose_env_file_shared_by_many_services(tmp_path: Path) -> None:
    """50 services with one ``env_file``: it was read and interpolated once per service."""
    shared = "".join(f"K{i}=value{i}\n" for i in range(500))
    service = '    image: vllm/vllm-openai:v0.10.2\n    command: ["--model", "facebook/opt-125m"]\n'
    compose = "services:\n" + "".join(f"  s{i}:\n{service}    env_file: shared.env\n" for i in range(50))
    write_tree(tmp_path, {**OK, "shared.env": shared, "compose.yaml": compose})
    run = _check(tmp_path, "compose.yaml", budget_hit=False, counted=((dotenv.DotenvEntry, "token"),))
    assert run.calls["token"] <= 3 * 500, run.calls  # before: 51 × 500
    assert _file(run.report, "compose.yaml")["launches"] == 50


def test_systemd_environment_file_repeated(tmp_path: Path) -> None:
    """50 ``EnvironmentFile=`` lines naming one file: its variables were taken (and scanned for
    secrets) once per line."""
    env = "".join(f"K{i}=value{i}\n" for i in range(2000)) + "MODEL=facebook/opt-125m\n"
    unit = "[Service]\n" + "EnvironmentFile=vllm.env\n" * 50 + "ExecStart=/usr/bin/vllm serve ${MODEL}\n"
    write_tree(tmp_path, {**OK, "vllm.env": env, "vllm.service": unit})
    run = _check(tmp_path, "vllm.service", budget_hit=False, counted=((dotenv.DotenvEntry, "token"),))
    assert run.calls["token"] <= 3 * 2001, run.calls  # before: 101 × 2001
    assert _file(run.report, "vllm.service")["deployments"][0]["model"] == "facebook/opt-125m"


def test_sourced_files_that_never_repeat(tmp_path: Path) -> None:
    """Sourced files that each change a variable (``X="${X:-}."``) start from new variables every time,
    so nothing can be reused: the evaluations stop at the file's limit, which is reported. (The
    ``.inc`` files are not linted on their own: only ``run.sh`` pulls them in.)"""
    n = 20
    sources = "".join(f". ./lib/s{j}.inc\n" for j in range(n))
    files = {f"lib/s{i}.inc": 'X="${X:-}."\n' + sources for i in range(n)}
    files["run.sh"] = sources + "vllm serve facebook/opt-125m --max-model-len 2048\n"
    write_tree(tmp_path, {**OK, **files})
    run = _check(tmp_path, "run.sh", budget_hit=True, counted=((ShellEvaluator, "commands"),))
    # run.sh and ok.sh, and at most 1,000 evaluations of pulled-in files (before: 7,620)
    assert run.calls["commands"] <= 2 + 1_000, run.calls
    assert "source, include" in _budget_notes(run.report, "run.sh")[0]["message"]
