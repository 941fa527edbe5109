"""Hostile payloads and the helpers that run vlint on them (shared by the hostile-input tests and the
fuzzer). A payload is text that replaces a value in a seed file (``SEEDS``), so that every source reads
it where it reads launch settings."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from vlint.cli import main

from .seeds import SEEDS

ROOT = Path(__file__).resolve().parents[2]
#: every hostile case must finish well inside this (they take well under a second each; the margin is
#: for slow CI machines)
TIME_LIMIT_S = 30.0
#: the address space a subprocess run gets: a YAML or shell "bomb" that expands would hit it
MEMORY_LIMIT = 2 * 2**30

N = 10_000


def billion_laughs(levels: int = 9) -> str:
    """A flow sequence holding the classic alias bomb: 9**9 strings if expanded."""
    parts = ["&l0 [" + ", ".join(["lol"] * 9) + "]"]
    parts += [f"&l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "[" + ", ".join([*parts, f"*l{levels - 1}"]) + "]"


def alias_chain(n: int = 1_000) -> str:
    """Anchors that each nest the previous one: shallow as written, ``n`` deep through the aliases."""
    return "[&c0 [x], " + ", ".join(f"&c{i} [*c{i - 1}]" for i in range(1, n)) + f", *c{n - 1}]"


#: payload name → YAML flow value (placed where the seed has ``8192``)
YAML_PAYLOADS: dict[str, str] = {
    "billion-laughs": billion_laughs(),
    "alias-chain": alias_chain(),
    "alias-cycle": "&cyc [1, *cyc]",
    "deep-sequence": "[" * N + "]" * N,
    "deep-mapping": "{a: " * N + "1" + "}" * N,
    "deep-json-string": "'" + '{"a":' * N + "1" + "}" * N + "'",
    "deep-json-array": "'" + "[" * N + "]" * N + "'",
    "int-10**400": "1" + "0" * 400,
    "float-1e309": "1e309",
    "negative": "-5",
    "nan": ".nan",
    "minus-inf": "-.inf",
    "python-tag": "!!python/object/apply:os.system ['touch PWNED']",
    "python-exec-tag": "!!python/object/apply:builtins.exec [\"open('PWNED', 'w')\"]",
    "python-new-tag": "!!python/object/new:os.system ['touch PWNED']",
    "unknown-tag": "!vlint/whatever {a: 1}",
}

#: non-YAML sources: file name → hostile contents
OTHER_PAYLOADS: dict[str, str] = {
    "shell-nested-braces.sh": "vllm serve m --max-model-len " + "${A:-" * N + "1" + "}" * N + "\n",
    "shell-nested-subst.sh": "vllm serve m --max-model-len " + "$(" * N + "echo 1" + ")" * N + "\n",
    "shell-nested-quotes.sh": 'vllm serve m --max-model-len "' + '$(echo "' * 3000 + "1" + '")' * 3000 + '"\n',
    "shell-variable-doubling.sh": "A=x\n" + 'A="$A$A"\n' * 45 + 'vllm serve m --served-model-name "$A"\n',
    "shell-array-bomb.sh": "A=(" + " x" * 9000 + ")\necho" + ' "${A[@]}"' * 2000 + "\nvllm serve m\n",
    "shell-unterminated-quote.sh": 'vllm serve m --max-model-len "4096\n',
    "shell-unterminated-single.sh": "vllm serve m --max-model-len '4096\n",
    "shell-continuation-at-eof.sh": "vllm serve m --max-model-len 4096 \\",
    "shell-unterminated-heredoc.sh": "cat > c.yaml <<EOF\nmodel: m\nvllm serve --config c.yaml\n",
    "shell-unterminated-subst.sh": "vllm serve m --max-model-len $(echo 1\n",
    "shell-deep-parens.sh": "(" * 5000 + "vllm serve m" + ")" * 5000 + "\n",
    "shell-deep-if.sh": "if true; then " * 3000 + "vllm serve m\n" + "fi\n" * 3000,
    "shell-recursive-function.sh": "f() { f; }\nf\ng() { vllm serve m; g; }\ng\n",
    "shell-sources-itself.sh": 'source ./shell-sources-itself.sh\n. "$0"\nvllm serve m\n',
    "shell-absurd-numbers.sh": (
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 1e309 --gpu-memory-utilization NaN "
        "--max-num-seqs -5 --max-num-batched-tokens " + "9" * 400 + " --tensor-parallel-size inf\n"
    ),
    "python-deep-binop.py": "from vllm import LLM\nx = " + "+".join(["1"] * 100_000) + "\nLLM(model='m')\n",
    "python-deep-attribute.py": "from vllm import LLM\nx = a" + ".b" * 100_000 + "\nLLM(model='m')\n",
    "python-deep-parens.py": "from vllm import LLM\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\nLLM(model='m')\n",
    "python-deep-unary.py": "from vllm import LLM\nx = " + "-" * 100_000 + "1\nLLM(model='m')\n",
    "python-deep-lambda.py": "from vllm import LLM\nf = " + "lambda: " * 5000 + "1\nLLM(model='m')\n",
    "python-string-doubling.py": "from vllm import LLM\ns = 'ab'\n" + "s = s + s\n" * 45 + "LLM(model=s)\n",
    "python-int-squaring.py": "from vllm import LLM\nn = 99999\n"
    + "n = n * n\n" * 45
    + "LLM(model='m', max_model_len=n)\n",
    "python-fstring-doubling.py": "from vllm import LLM\ns = 'x'\n" + "s = f'{s}{s}'\n" * 45 + "LLM(model=s)\n",
    "python-join-doubling.py": "from vllm import LLM\na = ['x']\n" + "a = a + a\n" * 45 + "LLM(model=' '.join(a))\n",
    "python-huge-int.py": "from vllm import LLM\nLLM(model='m', max_model_len=" + "9" * 5000 + ")\n",
    "python-recursive-function.py": "from vllm import LLM\ndef f(x):\n    return f(x)\nLLM(model=f(1))\n",
    "dockerfile-env-doubling/Dockerfile": (
        "FROM vllm/vllm-openai:v0.10.2\nENV A=x\n" + "ENV A=$A$A\n" * 45 + 'CMD ["--model", "$A"]\n'
    ),
    "dockerfile-arg-doubling/Dockerfile": (
        "FROM vllm/vllm-openai:v0.10.2\nARG A=x\n" + "ARG A=${A}${A}\n" * 45 + 'CMD ["--model", "m"]\n'
    ),
    "dockerfile-deep-exec/Dockerfile": "FROM vllm/vllm-openai:v0.10.2\nCMD " + "[" * N + "]" * N + "\n",
    "dockerfile-huge-exec/Dockerfile": 'FROM vllm/vllm-openai:v0.10.2\nCMD ["' + '--x", "' * 20_000 + '"]\n',
    "dockerfile-unterminated/Dockerfile": 'FROM vllm/vllm-openai:v0.10.2\nCMD ["--model", "m", \\\n',
    "dockerfile-heredoc/Dockerfile": "FROM vllm/vllm-openai:v0.10.2\nRUN <<EOF\nvllm serve m\n",
    "dockerfile-nested-braces/Dockerfile": (
        "FROM vllm/vllm-openai:v0.10.2\nCMD vllm serve m --max-model-len " + "${A:-" * 2000 + "1" + "}" * 2000 + "\n"
    ),
    "dotenv-doubling/.env": "A=x\n" + "A=${A}${A}\n" * 45,
    "dotenv-nested/.env": "A=" + "${B:-" * 5000 + "x" + "}" * 5000 + "\n",
    "dotenv-unterminated/.env": 'A="unterminated\n',
    "compose-nested/docker-compose.yml": (
        "services:\n  v:\n    image: vllm/vllm-openai:v0.10.2\n    command: --model ${A:-"
        + "${B:-" * 5000
        + "x"
        + "}" * 5001
        + "\n"
    ),
}


def inject(seed: str, payload: str) -> str:
    """The seed with its ``8192`` (quoted or not) replaced by the payload."""
    return seed.replace('"8192"', payload, 1) if '"8192"' in seed else seed.replace("8192", payload, 1)


def yaml_seed_names() -> list[str]:
    return [n for n in SEEDS if n.endswith((".yaml", ".yml"))]


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")


@dataclass
class Run:
    exit_code: int
    report: dict[str, Any]
    seconds: float
    stderr: str = ""

    def file(self, path: str) -> dict[str, Any]:
        for f in self.report["files"]:
            if f["path"] == path:
                return f
        raise AssertionError(f"{path} is not in the report: {[f['path'] for f in self.report['files']]}")

    def error(self, path: str) -> str | None:
        err = self.file(path)["error"]
        return None if err is None else str(err["message"])


def lint(cwd: Path, *args: str) -> Run:
    """``vlint --format json --isolated -j 1 ARGS`` in this process (cwd changed for the run)."""
    old = Path.cwd()
    os.chdir(cwd)
    try:
        start = time.perf_counter()
        r = CliRunner().invoke(main, ["--format", "json", "--isolated", "-j", "1", *args], catch_exceptions=False)
        seconds = time.perf_counter() - start
    finally:
        os.chdir(old)
    assert r.exit_code in (0, 1, 2), r.output
    return Run(r.exit_code, json.loads(r.stdout), seconds)


def lint_bounded(
    cwd: Path, *args: str, memory: int = MEMORY_LIMIT, timeout: float = 120.0, cpu_seconds: int | None = None
) -> Run:
    """The same in a child process whose address space is capped at ``memory`` bytes: a payload
    that expands (an alias or variable bomb) fails there instead of taking the machine's memory.
    ``cpu_seconds`` caps the child's CPU time (a deadline that a busy machine does not move)."""
    import resource

    def cap() -> None:  # runs in the child before exec
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "vlint.cli", "--format", "json", "--isolated", "-j", "1", *args],
        cwd=cwd,
        env=env,
        preexec_fn=cap,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    seconds = time.perf_counter() - start
    assert r.returncode != -signal.SIGXCPU, f"over the CPU deadline of {cpu_seconds} s"
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.returncode in (0, 1, 2), (r.returncode, r.stderr[-3000:])
    return Run(r.returncode, json.loads(r.stdout), seconds, r.stderr)


def _case(cwd: Path, args: list[str] | str) -> dict[str, Any]:
    return {"cwd": str(cwd), "python": args} if isinstance(args, str) else {"cwd": str(cwd), "args": args}


def lint_bounded_many(
    cases: dict[str, tuple[Path, list[str] | str]],
    *,
    cpu_seconds: int,
    memory: int = MEMORY_LIMIT,
    timeout: float = 600.0,
) -> dict[str, Run | str]:
    """Case id → the :class:`Run` of ``vlint --format json --isolated -j 1 ARGS`` from ``cwd``, or why
    it has none ("over the CPU deadline of N s", a traceback, an exit status that is not 0/1/2); ``ARGS``
    given as a string is Python code run instead (to test the deadline itself). All the
    cases run in **one** child process (``reliability/bounded_child.py``) whose address space is capped at
    ``memory`` bytes, each under its own CPU-time deadline of ``cpu_seconds``; a case that passes its
    deadline kills the child, and the cases after it get a new one. ``timeout`` is the wall-clock limit
    of each child."""
    import resource

    def cap() -> None:  # runs in the child before exec
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU's default action dumps core: no core file
        total = cpu_seconds * (len(cases) + 1) + 10
        resource.setrlimit(resource.RLIMIT_CPU, (total, total))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = Path(__file__).resolve().with_name("bounded_child.py")
    todo = list(cases)
    out: dict[str, Run | str] = {}
    while todo:
        job = {"cpu_seconds": cpu_seconds, "cases": [{"id": i, **_case(*cases[i])} for i in todo]}
        r = subprocess.run(
            [sys.executable, str(child)],
            input=json.dumps(job),
            cwd=ROOT,
            env=env,
            preexec_fn=cap,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        started = None
        for line in r.stdout.splitlines():
            msg = json.loads(line)
            if "start" in msg:
                started = msg["start"]
                continue
            started = None
            res = msg["id"]
            if "Traceback" in msg["stderr"]:
                out[res] = "Traceback in the child:\n" + msg["stderr"][-3000:]
            elif msg["exit_code"] not in (0, 1, 2):
                out[res] = f"exit status {msg['exit_code']}: {msg['stderr'][-3000:]}"
            else:
                out[res] = Run(msg["exit_code"], json.loads(msg["stdout"]), msg["seconds"], msg["stderr"])
        done = [i for i in todo if i in out]
        if started is not None:  # the child died in this case
            if r.returncode == -signal.SIGXCPU:
                out[started] = f"over the CPU deadline of {cpu_seconds} s"
            else:
                out[started] = f"the child process died (status {r.returncode}): {r.stderr[-3000:]}"
            done.append(started)
        elif len(done) < len(todo):
            raise AssertionError(
                f"the child process stopped before any case started: {r.returncode} {r.stderr[-3000:]}"
            )
        todo = [i for i in todo if i not in done]
    return out
