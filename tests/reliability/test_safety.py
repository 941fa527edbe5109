"""Safety guarantees: no network unless --online, nothing read is imported or executed, no process is
started, and secrets never appear in any output."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main

from .hostile import lint, write_tree
from .seeds import MODEL, SEEDS

FORMATS = ("text", "json", "sarif", "github", "gitlab")


def invoke(cwd: Path, *args: str) -> tuple[int, str]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        r = CliRunner().invoke(main, list(args), catch_exceptions=False, env={"GITHUB_ACTIONS": None})
    finally:
        os.chdir(old)
    return r.exit_code, r.output


def trees(shared: Path | None, tmp: Path) -> list[Path]:
    """The real corpus when present, and the built-in seeds (every source) always."""
    write_tree(tmp, SEEDS)
    return [tmp] + ([shared / "corpus" / "real"] if shared is not None else [])


@pytest.fixture
def maybe_shared(request: pytest.FixtureRequest) -> Path | None:
    """The ``shared`` fixture's folder, or None where it is absent (the seeds still run)."""
    try:
        return Path(request.getfixturevalue("shared"))
    except pytest.skip.Exception:
        return None


# -- network ------------------------------------------------------------------------------------------
class Forbidden(AssertionError):
    pass


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every way out to the network raises (and is recorded, in case something swallows the error)."""
    calls: list[str] = []

    def refuse(what: str):  # type: ignore[no-untyped-def]
        def fn(*a: object, **kw: object) -> object:
            calls.append(f"{what}{a[1:2] if what.startswith('socket.connect') else a[:1]}")
            raise Forbidden(f"network access: {what}")

        return fn

    monkeypatch.setattr(socket.socket, "connect", refuse("socket.connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("socket.connect_ex"))
    monkeypatch.setattr(socket.socket, "sendto", refuse("socket.sendto"))
    monkeypatch.setattr(socket, "create_connection", refuse("create_connection"))
    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    monkeypatch.setattr(socket, "gethostbyname", refuse("gethostbyname"))
    return calls


def test_the_network_guard_works(no_network: list[str]) -> None:
    with pytest.raises(Forbidden):
        socket.create_connection(("huggingface.co", 443))
    assert no_network


def test_no_network_during_a_corpus_run(
    tmp_path: Path, no_network: list[str], maybe_shared: Path | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub: list[str] = []
    from vlint.resolve.hub import HubResult

    monkeypatch.setattr("vlint.resolve.hub.fetch_model_arch", lambda repo: hub.append(repo) or HubResult(None))
    for tree in trees(maybe_shared, tmp_path):
        run = lint(tree, ".")
        assert not any("internal error" in (f["error"] or {}).get("message", "") for f in run.report["files"])
        assert run.report["summary"]["launches"] > 5
    for fmt in FORMATS:
        invoke(tmp_path, "--isolated", "-j", "1", "--format", fmt, ".")
    invoke(tmp_path, "explain", "start.sh")
    assert no_network == [] and hub == []


def test_online_is_what_allows_the_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub (the only network code) is asked for an unknown model with --online, never without."""
    hub: list[str] = []
    from vlint.resolve.hub import HubResult

    monkeypatch.setattr("vlint.resolve.hub.fetch_model_arch", lambda repo: hub.append(repo) or HubResult(None))
    write_tree(tmp_path, {"start.sh": "vllm serve acme/unknown-model-7b --max-model-len 4096\n"})
    lint(tmp_path, "start.sh")
    assert hub == []
    lint(tmp_path, "--online", "start.sh")
    assert hub == ["acme/unknown-model-7b"]


# -- nothing read is imported or executed ---------------------------------------------------------------
def marker_files(root: Path) -> dict[str, str]:
    """Files that would create ``root/MARKER-*`` if imported, executed or evaluated."""
    m = str(root / "MARKER")
    return {
        "app.py": (
            f"import pathlib\npathlib.Path({m + '-import'!r}).write_text('imported')\n"
            "import config\nfrom vllm import LLM\n"
            f"LLM(model=config.MODEL, max_model_len=int(open({m + '-eval'!r}, 'w').write('x')))\n"
        ),
        "config.py": f"import os\nos.system('touch {m}-sibling')\nMODEL = '{MODEL}'\n",
        "start.sh": (
            f"touch {m}-shell\nexport M=$(touch {m}-subst)\nX=`touch {m}-backtick`\n"
            f"vllm serve {MODEL} --max-model-len $(touch {m}-arg; echo 4096)\n"
        ),
        "Dockerfile": f'FROM vllm/vllm-openai:v0.10.2\nRUN touch {m}-docker\nCMD ["--model", "$(touch {m}-cmd)"]\n',
        ".env": f"A=$(touch {m}-dotenv)\n",
        "docker-compose.yml": (
            f"services:\n  v:\n    image: vllm/vllm-openai:v0.10.2\n    command: --model {MODEL} $(touch {m}-compose)\n"
        ),
        "serve.yaml": f"model: !!python/object/apply:os.system ['touch {m}-yaml']\nmax-model-len: 4096\n",
        "deploy.yaml": SEEDS["deploy.yaml"].replace('"8192"', f'"$(touch {m}-k8s)"'),
    }


def test_files_are_never_imported_or_executed(tmp_path: Path) -> None:
    write_tree(tmp_path, marker_files(tmp_path))
    modules = set(sys.modules)
    run = lint(tmp_path, ".")
    for fmt in FORMATS:
        invoke(tmp_path, "--isolated", "-j", "1", "--format", fmt, ".")
    invoke(tmp_path, "explain", ".")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("MARKER")) == []
    assert not {"app", "config"} & (set(sys.modules) - modules)
    # and the files were read: the Python launch and its sibling module's constant were found
    assert run.file("app.py")["launches"] == 1 and run.file("start.sh")["launches"] == 1


# -- no process is started ----------------------------------------------------------------------------------
@pytest.fixture
def no_processes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []

    def refuse(what: str):  # type: ignore[no-untyped-def]
        def fn(*a: object, **kw: object) -> object:
            calls.append(what)
            raise Forbidden(f"started a process: {what}")

        return fn

    monkeypatch.setattr(subprocess, "Popen", refuse("subprocess.Popen"))
    for name in ("system", "popen", "posix_spawn", "posix_spawnp", "execv", "execve", "execvp", "execvpe", "spawnv"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse(f"os.{name}"))
    return calls


def test_no_process_is_started(tmp_path: Path, no_processes: list[str], maybe_shared: Path | None) -> None:
    for tree in trees(maybe_shared, tmp_path / "seeds"):
        lint(tree, ".")
    for fmt in FORMATS:
        invoke(tmp_path, "--isolated", "--format", fmt, "-j", "2", ".")
    invoke(tmp_path, "explain", str(tmp_path / "seeds" / "start.sh"))
    invoke(tmp_path, "rules")
    with pytest.raises(Forbidden):
        subprocess.run(["true"])  # the guard works
    assert no_processes == ["subprocess.Popen"]


def test_workers_are_forks_not_programs(tmp_path: Path, no_processes: list[str]) -> None:
    write_tree(tmp_path, {f"f{i:03d}.sh": SEEDS["start.sh"] for i in range(60)})
    code, out = invoke(tmp_path, "--isolated", "--format", "json", "-j", "2", ".")
    assert code in (0, 1) and '"launches": 60' in out
    assert no_processes == []


# -- secrets ---------------------------------------------------------------------------------------------
HF = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
API = "sk-" + "live-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
PLAIN = "s3cr3t-Pa55w0rd-value"
SECRET_FILES = {
    "start.sh": (
        f"export HF_TOKEN={HF}\nDB_PASSWORD={PLAIN}\n"
        f"vllm serve {MODEL} --api-key {API} --max-model-len 4096 --gpu-memory-utilization 0.99\n"
    ),
    "serve.yaml": f"model: {MODEL}\napi-key: {API}\nmax-model-len: 4096\n",
    "deploy.yaml": SEEDS["deploy.yaml"].replace(
        "        resources:", f"        env:\n        - name: HF_TOKEN\n          value: {HF}\n        resources:"
    ),
    "docker-compose.yml": (
        f"services:\n  v:\n    image: vllm/vllm-openai:v0.10.2\n    environment:\n      HF_TOKEN: {HF}\n"
        f"    command: --model {MODEL} --api-key {API}\n"
    ),
    ".env": f"HF_TOKEN={HF}\nVLLM_API_KEY={API}\n",
    "Dockerfile": f'FROM vllm/vllm-openai:v0.10.2\nENV HF_TOKEN={HF}\nCMD ["--model", "{MODEL}"]\n',
    "app.py": f"import os\nfrom vllm import LLM\nos.environ['HF_TOKEN'] = '{HF}'\nLLM(model='{MODEL}')\n",
    ".github/workflows/ci.yml": SEEDS[".github/workflows/ci.yml"].replace(
        "    steps:", f"    env:\n      HF_TOKEN: {HF}\n    steps:"
    ),
}


def assert_no_secret(text: str, what: str) -> None:
    for value in (HF, API, PLAIN):
        assert value not in text, f"{what} shows {value}"
        assert value[8:] not in text, f"{what} shows the tail of {value}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_secrets_are_masked_in_every_output(tmp_path: Path, fmt: str) -> None:
    write_tree(tmp_path, SECRET_FILES)
    code, out = invoke(tmp_path, "--isolated", "-j", "1", "--format", fmt, "--extend-select", "ALL", ".")
    assert code == 1 and "VL5" in out  # the secrets are reported…
    assert "hf_A****" in out  # …masked
    assert_no_secret(out, fmt)


def test_secrets_are_masked_in_the_baseline_and_in_explain(tmp_path: Path) -> None:
    write_tree(tmp_path, SECRET_FILES)
    invoke(tmp_path, "--isolated", "--write-baseline", "baseline.json", ".")
    assert_no_secret((tmp_path / "baseline.json").read_text(), "the baseline")
    for args in (("explain", "start.sh", "serve.yaml", "app.py"), ("explain", "--format", "json", ".")):
        _, out = invoke(tmp_path, *args)
        assert_no_secret(out, " ".join(args))
    _, out = invoke(tmp_path, "--isolated", "--format", "json", "--output", "report.json", ".")
    assert_no_secret((tmp_path / "report.json").read_text() + out, "--output")
