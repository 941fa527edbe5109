"""The fuzzer's parts, shared by ``tests/reliability/test_fuzz.py`` (hypothesis, short budget) and
``bench/fuzz.py`` (long budget, in-process, plain ``random``).

* **Generators** turn a ``random.Random`` into a *case* (file name → contents): vLLM YAML configs,
  command lines (shell scripts), Kubernetes/compose/Helm/SkyPilot/GitHub Actions/Ray/Dockerfile/Python
  wrappers around them, valid or mutated.
* **Mutations** damage text the way editors, merges and attackers do: byte flips, line drops and
  duplications, token swaps, inserted YAML/shell syntax, truncation, encodings.
* **The property** (:func:`check_case`): linting the case returns exit code 0, 1 or 2 with a
  well-formed report in every output format, no exception and no ``internal error``.
"""

from __future__ import annotations

import json
import random
import shutil
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from .seeds import SEEDS

Case = dict[str, "str | bytes"]
FORMATS = ("text", "json", "sarif", "github", "gitlab")

MODELS = (
    "meta-llama/Llama-3.1-8B-Instruct",
    "meta-llama/Llama-3.1-70B-Instruct",
    "Qwen/Qwen2.5-7B-Instruct",
    "deepseek-ai/DeepSeek-V3",
    "mistralai/Mistral-7B-Instruct-v0.3",
    "acme/unknown-model",
    "/models/local",
    "${MODEL}",
    "$MODEL",
    "{{ .Values.model }}",
    "",
    "モデル",
)
IMAGES = (
    "vllm/vllm-openai:latest",
    "vllm/vllm-openai:v0.6.6",
    "vllm/vllm-openai:v0.10.2",
    "vllm/vllm-openai:v0.33.0",
    "vllm/vllm-openai:v99.0.0",
    "vllm/vllm-openai:nightly",
    "vllm/vllm-openai@sha256:" + "a" * 64,
    "rocm/vllm:latest",
    "python:3.11",
    "${IMAGE}",
)
GPUS = ("H100", "A100-40GB", "A100-80GB", "L4", "T4", "A10G", "H200", "MI300X", "B200", "RTX4090", "tpu-v5e")
SCALARS = (
    "0",
    "1",
    "-1",
    "2",
    "7",
    "8",
    "16",
    "512",
    "4096",
    "8192",
    "32768",
    "131072",
    "2147483648",
    "9223372036854775808",
    "1" + "0" * 400,
    "0.0",
    "0.5",
    "0.9",
    "0.95",
    "0.99",
    "1.0",
    "1.5",
    "-0.1",
    "1e-9",
    "1e309",
    "-1e309",
    "NaN",
    "nan",
    "inf",
    "1k",
    "32K",
    "1m",
    "auto",
    "-1k",
    "true",
    "false",
    "True",
    "yes",
    "no",
    "on",
    "off",
    "None",
    "null",
    "~",
    "''",
    '""',
    "fp8",
    "fp8_e5m2",
    "auto",
    "bfloat16",
    "float16",
    "awq",
    "gptq",
    "mp",
    "ray",
    '{"a": 1}',
    '{"rope_scaling": {"type": "yarn", "factor": 4}}',
    '{"level": 3}',
    "[1, 2]",
    '{"a":',
    "hf_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7",
    "sk-" + "0123456789abcdefghijABCDEFGHIJ",
    "${HF_TOKEN}",
    "$(cat /run/secrets/key)",
    "`hostname`",
    "{{ .Values.x }}",
    "${{ inputs.x }}",
    "a b",
    "'quoted'",
    '"double"',
    "back\\slash",
    "tab\there",
    "line\nbreak",
    "\u2028",
    "\ufeff",
    "é",
)
ENV_NAMES = (
    "HF_TOKEN",
    "VLLM_API_KEY",
    "CUDA_VISIBLE_DEVICES",
    "VLLM_USE_V1",
    "VLLM_ATTENTION_BACKEND",
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN",
    "HUGGING_FACE_HUB_TOKEN",
    "NCCL_DEBUG",
    "VLLM_WORKER_MULTIPROC_METHOD",
    "PYTORCH_CUDA_ALLOC_CONF",
    "OMP_NUM_THREADS",
    "MODEL",
)
#: what mutations insert: the syntax every reader has a branch for
SYNTAX = (
    "{",
    "}",
    "[",
    "]",
    "&a ",
    "*a",
    "<<: *a",
    "'",
    '"',
    "\\",
    "\\\n",
    "$(",
    "${",
    "`",
    "\t",
    "\r",
    "\r\n",
    "\x00",
    ": ",
    "- ",
    "<<EOF\n",
    "EOF\n",
    "{{",
    "}}",
    "---\n",
    "!!python/object/apply:os.system ['touch PWNED'] ",
    "!!binary ",
    "\ufeff",
    "\u2028",
    "#",
    " --",
    "=",
    ";",
    "&&",
    "|",
    "%",
    "é",
    "\udcff",
)


@cache
def option_names() -> tuple[str, ...]:
    """Every option of the newest bundled vLLM (and its ``--no-`` forms)."""
    from vlint.argspec.spec import bundled_versions, load_spec

    spec = load_spec(bundled_versions()[-1])
    return tuple(sorted(spec.options))


@cache
def env_names() -> tuple[str, ...]:
    from vlint.argspec.spec import bundled_versions, load_spec

    return tuple(sorted(load_spec(bundled_versions()[-1]).env_vars)) + ENV_NAMES


def option(r: random.Random) -> str:
    """An option as people write it: known, misspelled, abbreviated, underscored, unknown."""
    name = r.choice(option_names())
    k = r.random()
    if k < 0.6:
        return name
    if k < 0.7:
        return name.replace("-", "_").replace("__", "--", 1)
    if k < 0.8 and len(name) > 6:
        return name[: r.randint(4, len(name) - 1)]  # an abbreviation (or an ambiguous one)
    if k < 0.9 and len(name) > 4:
        i = r.randrange(2, len(name))
        return name[:i] + r.choice("abcdefgh-") + name[i:]  # a typo
    return "--" + r.choice(("flag", "x", "model-name", "max-len", "enable-everything", "", "-"))


def scalar(r: random.Random) -> str:
    if r.random() < 0.1:
        return str(r.randint(-(2**40), 2**40))
    if r.random() < 0.05:
        return r.choice(MODELS)
    return r.choice(SCALARS)


def shell_word(r: random.Random, word: str) -> str:
    k = r.random()
    if k < 0.6 or not word:
        return (
            word
            if word and not any(c in word for c in " \t\n'\"$`\\;&|<>()")
            else "'" + word.replace("'", "'\\''") + "'"
        )
    if k < 0.8:
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "'" + word.replace("'", "'\\''") + "'"


def argv(r: random.Random, n: int | None = None) -> list[str]:
    """vLLM arguments (unquoted words)."""
    out: list[str] = []
    for _ in range(r.randint(0, 12) if n is None else n):
        opt = option(r)
        k = r.random()
        if k < 0.15:
            out.append(opt)  # a flag (or one missing its value)
        elif k < 0.3:
            out.append(f"{opt}={scalar(r)}")
        else:
            out += [opt, scalar(r)]
    return out


def command_line(r: random.Random) -> str:
    model = r.choice(MODELS)
    head = r.choice(
        (
            ["vllm", "serve", model],
            ["vllm", "serve", "--model", model],
            ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", model],
            ["python3", "-m", "vllm.entrypoints.api_server", "--model", model],
            ["exec", "vllm", "serve", model],
            ["docker", "run", "--gpus", r.choice(("all", "2", '"device=0,1"')), r.choice(IMAGES), "--model", model],
            ["vllm", "serve"],
        )
    )
    words = [shell_word(r, w) for w in head + argv(r)]
    sep = r.choice((" ", " ", " \\\n  ", " \\\r\n  "))
    return sep.join(words)


# -- generators: random.Random → case -----------------------------------------------------------------
def gen_shell(r: random.Random) -> Case:
    lines = [r.choice(("#!/bin/bash", "#!/usr/bin/env bash", "set -euo pipefail", ""))]
    for _ in range(r.randint(0, 3)):
        lines.append(f"{r.choice(('', 'export '))}{r.choice(env_names())}={shell_word(r, scalar(r))}")
    if r.random() < 0.3:
        lines.append(f"MODEL={shell_word(r, r.choice(MODELS))}")
    cmd = command_line(r)
    k = r.random()
    if k < 0.15:
        cmd = f"bash -c {shell_word(r, cmd)}"
    elif k < 0.25:
        lines += ["cat > config.yaml <<EOF", gen_vllm_yaml(r)["serve.yaml"].rstrip("\n"), "EOF"]
        cmd += " --config config.yaml"
    elif k < 0.3:
        cmd = f'if [ -n "$X" ]; then\n  {cmd}\nfi'
    lines.append(cmd)
    return {r.choice(("start.sh", "serve.sh", "run.bash")): "\n".join(lines) + "\n"}


def yaml_value(r: random.Random) -> str:
    k = r.random()
    if k < 0.75:
        return scalar(r)
    if k < 0.85:
        return "[" + ", ".join(scalar(r) for _ in range(r.randint(0, 3))) + "]"
    return (
        "{"
        + ", ".join(f"{r.choice(('level', 'type', 'factor', 'a'))}: {scalar(r)}" for _ in range(r.randint(0, 3)))
        + "}"
    )


def gen_vllm_yaml(r: random.Random) -> Case:
    lines = [f"model: {r.choice(MODELS)}"] if r.random() < 0.8 else []
    for _ in range(r.randint(1, 10)):
        key = option(r).lstrip("-")
        if r.random() < 0.3:
            key = key.replace("-", "_")
        lines.append(f"{key}: {yaml_value(r)}")
    r.shuffle(lines)
    return {"serve.yaml": "\n".join(lines) + "\n"}


def _flow_list(r: random.Random, words: Sequence[str]) -> str:
    return "[" + ", ".join(json.dumps(w) for w in words) + "]"


def _block_list(words: Sequence[str], indent: str) -> str:
    return "".join(f"\n{indent}- {json.dumps(w)}" for w in words)


def gen_kubernetes(r: random.Random) -> Case:
    kind = r.choice(("Deployment", "StatefulSet", "Pod", "Job", "DaemonSet"))
    image = r.choice(IMAGES)
    words = [*r.choice((["--model", r.choice(MODELS)], [r.choice(MODELS)], [])), *argv(r)]
    if r.random() < 0.3:
        container = f'command: ["/bin/sh", "-c"]\n        args: [{json.dumps(command_line(r))}]'
    elif r.random() < 0.5:
        container = f"args: {_flow_list(r, words)}"
    else:
        container = "args:" + _block_list(words, "        ")
    env = "".join(
        f"\n        - name: {r.choice(env_names())}\n          value: {json.dumps(scalar(r))}"
        for _ in range(r.randint(0, 3))
    )
    gpu = r.choice(("", f"\n        resources:\n          limits:\n            nvidia.com/gpu: {scalar(r)}"))
    selector = r.choice(("", f"\n      nodeSelector:\n        nvidia.com/gpu.product: {r.choice(GPUS)}"))
    pod = (
        f"      containers:\n      - name: vllm\n        image: {image}\n        {container}"
        + (f"\n        env:{env}" if env else "")
        + gpu
        + selector
        + "\n"
    )
    if kind == "Pod":
        text = (
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: vllm\nspec:\n"
            + "\n".join(line[4:] if line.startswith("    ") else line for line in pod.splitlines())
            + "\n"
        )
    else:
        text = f"apiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: vllm\nspec:\n  template:\n    spec:\n{pod}"
    if r.random() < 0.2:
        text += "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: vllm\n"
    return {r.choice(("deploy.yaml", "k8s/vllm.yml", "manifest.yaml")): text}


def gen_compose(r: random.Random) -> Case:
    words = ["--model", r.choice(MODELS), *argv(r)]
    command = " ".join(shell_word(r, w) for w in words) if r.random() < 0.5 else _flow_list(r, words)
    env = "".join(f"\n      {r.choice(env_names())}: {json.dumps(scalar(r))}" for _ in range(r.randint(0, 3)))
    text = (
        f"services:\n  vllm:\n    image: {r.choice(IMAGES)}\n    command: {command}\n"
        + (f"    environment:{env}\n" if env else "")
        + r.choice(("", "    ipc: host\n", f"    shm_size: {scalar(r)}\n"))
        + r.choice(
            (
                "",
                f"    deploy:\n      resources:\n        reservations:\n          devices:\n"
                f"          - driver: nvidia\n            count: {scalar(r)}\n            capabilities: [gpu]\n",
            )
        )
    )
    case: Case = {"docker-compose.yml": text}
    if r.random() < 0.4:
        case[".env"] = "".join(f"{r.choice(env_names())}={scalar(r)}\n" for _ in range(r.randint(1, 4)))
    return case


HELM_KEYS = (
    "maxModelLen",
    "dtype",
    "tensorParallelSize",
    "gpuMemoryUtilization",
    "extraArgs",
    "enableChunkedPrefill",
    "maxNumSeqs",
    "enablePrefixCaching",
)


def gen_helm(r: random.Random) -> Case:
    cfg = "".join(f"\n      {r.choice(HELM_KEYS)}: {yaml_value(r)}" for _ in range(r.randint(0, 5)))
    text = (
        "servingEngineSpec:\n  modelSpec:\n  - name: m\n    repository: vllm/vllm-openai\n"
        f"    tag: {scalar(r)}\n    modelURL: {r.choice(MODELS)}\n    requestGPU: {scalar(r)}\n"
        + (f"    vllmConfig:{cfg}\n" if cfg else "")
    )
    return {"values.yaml": text}


def gen_dockerfile(r: random.Random) -> Case:
    lines = [f"FROM {r.choice(IMAGES)}"]
    for _ in range(r.randint(0, 3)):
        lines.append(f"{r.choice(('ENV', 'ARG'))} {r.choice(env_names())}={scalar(r)}")
    words = ["--model", r.choice(MODELS), *argv(r)]
    if r.random() < 0.5:
        lines.append(f"{r.choice(('CMD', 'ENTRYPOINT'))} {json.dumps(words)}")
    else:
        lines.append(f"CMD {command_line(r)}")
    return {r.choice(("Dockerfile", "Dockerfile.vllm")): "\n".join(lines) + "\n"}


def gen_python(r: random.Random) -> Case:
    kwargs = []
    for _ in range(r.randint(0, 6)):
        key = option(r).lstrip("-").replace("-", "_") or "x"
        if not key.isidentifier():
            key = "max_model_len"
        v = scalar(r)
        kwargs.append(f"{key}={v if v.lstrip('-').replace('.', '', 1).isdigit() else json.dumps(v)}")
    call = r.choice(("LLM", "EngineArgs", "AsyncEngineArgs"))
    text = (
        f"from vllm import {call}\n"
        + (
            f"import os\nos.environ[{json.dumps(r.choice(env_names()))}] = {json.dumps(scalar(r))}\n"
            if r.random() < 0.3
            else ""
        )
        + f"engine = {call}(model={json.dumps(r.choice(MODELS))}, {', '.join(kwargs)})\n"
    )
    return {"app.py": text}


def gen_other(r: random.Random) -> Case:
    """SkyPilot, GitHub Actions and Ray Serve wrappers."""
    cmd = command_line(r).replace("\n", "\n  ")
    k = r.random()
    if k < 0.33:
        return {"sky.yaml": f"resources:\n  accelerators: {r.choice(GPUS)}:{r.randint(1, 8)}\nrun: |\n  {cmd}\n"}
    if k < 0.66:
        step = cmd.replace("\n  ", "\n        ")
        head = "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
        return {".github/workflows/ci.yml": f"{head}    - run: |\n        {step}\n"}
    kw = "".join(
        f"\n        {option(r).lstrip('-').replace('-', '_') or 'x'}: {yaml_value(r)}" for _ in range(r.randint(0, 4))
    )
    app = "applications:\n- name: llm\n  import_path: ray.serve.llm:build_openai_app\n  args:\n    llm_configs:\n"
    model = f"    - model_loading_config:\n        model_id: {r.choice(MODELS)}\n"
    return {"ray.yaml": f"{app}{model}      engine_kwargs:{kw or ' {}'}\n"}


GENERATORS: dict[str, Callable[[random.Random], Case]] = {
    "shell": gen_shell,
    "vllm-yaml": gen_vllm_yaml,
    "kubernetes": gen_kubernetes,
    "compose": gen_compose,
    "helm": gen_helm,
    "dockerfile": gen_dockerfile,
    "python": gen_python,
    "skypilot-gha-ray": gen_other,
}


# -- mutations -----------------------------------------------------------------------------------------
def mutate(r: random.Random, text: str | bytes) -> str | bytes:
    """One to four damages."""
    for _ in range(r.randint(1, 4)):
        text = r.choice(_MUTATIONS)(r, text)
    return text


def _as_text(data: str | bytes) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", "surrogateescape")


def _flip_bytes(r: random.Random, data: str | bytes) -> bytes:
    b = bytearray(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    for _ in range(r.randint(1, 8)):
        if b:
            b[r.randrange(len(b))] ^= 1 << r.randrange(8)
    return bytes(b)


def _lines_op(r: random.Random, data: str | bytes) -> str:
    lines = _as_text(data).split("\n")
    if not lines:
        return ""
    i = r.randrange(len(lines))
    op = r.random()
    if op < 0.35:
        del lines[i]
    elif op < 0.6:
        lines.insert(i, lines[r.randrange(len(lines))])
    elif op < 0.8:
        j = r.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines[i] = " " * r.randint(0, 8) + lines[i].lstrip()  # re-indent
    return "\n".join(lines)


def _token_swap(r: random.Random, data: str | bytes) -> str:
    import re

    parts = re.split(r"(\s+|[:=,\[\]{}\"'])", _as_text(data))
    tokens = [i for i, p in enumerate(parts) if p and not p.isspace()]
    if len(tokens) >= 2:
        a, b = r.sample(tokens, 2)
        parts[a], parts[b] = parts[b], parts[a]
    if tokens and r.random() < 0.3:
        parts[r.choice(tokens)] = r.choice((scalar(r), option(r), r.choice(SYNTAX)))
    return "".join(parts)


def _insert(r: random.Random, data: str | bytes) -> str:
    t = _as_text(data)
    i = r.randint(0, len(t))
    return t[:i] + r.choice(SYNTAX) * r.choice((1, 1, 1, 2, 50)) + t[i:]


def _truncate(r: random.Random, data: str | bytes) -> str | bytes:
    return data[: r.randint(0, len(data))]


def _repeat(r: random.Random, data: str | bytes) -> str:
    t = _as_text(data)
    if not t:
        return t
    i = r.randrange(len(t))
    j = min(len(t), i + r.randint(1, 80))
    return t[:j] + t[i:j] * r.randint(2, 30) + t[j:]


def _encode(r: random.Random, data: str | bytes) -> bytes:
    t = _as_text(data)
    enc = r.choice(("utf-16", "utf-16-le", "utf-32", "utf-8-sig", "latin-1", "cp1252"))
    return t.encode(enc, "replace") if enc != "utf-16-le" else b"\xff\xfe" + t.encode(enc, "replace")


def _line_ends(r: random.Random, data: str | bytes) -> str:
    return _as_text(data).replace("\n", r.choice(("\r\n", "\r", "\n\n", "\t\n")))


_MUTATIONS: tuple[Callable[[random.Random, Any], str | bytes], ...] = (
    _flip_bytes,
    _lines_op,
    _lines_op,
    _token_swap,
    _token_swap,
    _insert,
    _insert,
    _truncate,
    _repeat,
    _encode,
    _line_ends,
)


def corpus_files(shared: Path | None) -> list[tuple[str, bytes]]:
    """(file name, bytes) of the real corpus when present, else the built-in seeds."""
    out: list[tuple[str, bytes]] = []
    if shared is not None:
        for p in sorted((shared / "corpus" / "real").rglob("*")):
            if p.is_file() and p.name != "INDEX.md":
                out.append((_corpus_name(p), p.read_bytes()))
    if not out:
        out = [(name, text.encode()) for name, text in SEEDS.items()]
    return out


def _corpus_name(p: Path) -> str:
    """The name a corpus file is linted under: its own (``owner__repo__path`` keeps the extension),
    ``.github/workflows/`` for workflows (the GitHub source reads that folder)."""
    if p.parent.name == "github-actions":
        return ".github/workflows/" + p.name
    if p.parent.name == "env-file":
        return ".env"
    if p.parent.name == "dockerfile" and not p.name.endswith(("Dockerfile", ".dockerfile")):
        return "Dockerfile"
    return p.name


def mutated_corpus_case(r: random.Random, files: Sequence[tuple[str, bytes]]) -> Case:
    name, data = r.choice(files)
    return {name: mutate(r, data)}


# -- the property ------------------------------------------------------------------------------------------
@dataclass
class Checker:
    """Lints cases in a scratch folder with one engine (catalog loaded once): the fuzzer's fast path."""

    root: Path
    formats: Sequence[str] = FORMATS
    validate_sarif: bool = False
    engine: Any = None
    stats: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from vlint.engine.catalog import load_catalog
        from vlint.engine.runner import Engine, Selection

        if self.engine is None:
            self.engine = Engine(load_catalog(), Selection(extend_select=("ALL",)))

    def run(self, case: Case) -> list[str]:
        """Failures (empty: the property holds)."""
        if self.root.exists():
            shutil.rmtree(self.root)
        self.root.mkdir(parents=True)
        for rel, content in case.items():
            p = self.root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                p.write_bytes(content.encode("utf-8", "surrogatepass"))
            else:
                p.write_bytes(content)
        try:
            return self._check(case)
        except Exception:  # the property itself: any exception is a failure
            return ["exception: " + traceback.format_exc()]

    def _check(self, case: Case) -> list[str]:
        from vlint.commands.check import exit_code, render
        from vlint.run.lint import LintOptions, lint_paths
        from vlint.suppression.baseline import SourceLines, fingerprints

        report = lint_paths([self.root], self.engine, LintOptions(root=self.root, jobs=1))
        failures = [
            f"{fr.path}: {fr.error.message}"
            for fr in report.files
            if fr.error is not None and "internal error" in fr.error.message
        ]
        code = exit_code(report, "warning")
        if code not in (0, 1, 2):
            failures.append(f"exit code {code}")
        lines = SourceLines(self.root)
        prints = fingerprints(report.findings, lines)
        errors = sum(1 for fr in report.files if fr.error is not None)
        for fmt in self.formats:
            out = render(report, self.engine.catalog, prints, fmt, lines, notes="")
            failures += [f"{fmt}: {p}" for p in _well_formed(fmt, out, report, errors, self.validate_sarif)]
        self.stats["findings"] = self.stats.get("findings", 0) + len(report.findings)
        self.stats["file_errors"] = self.stats.get("file_errors", 0) + errors
        self.stats["launches"] = self.stats.get("launches", 0) + sum(fr.launches for fr in report.files)
        return failures


@cache
def _sarif_validator() -> Any:
    import jsonschema

    schema = json.loads((Path(__file__).resolve().parents[1] / "data" / "sarif-2.1.0.json").read_text())
    return jsonschema.Draft7Validator(schema)


def _well_formed(fmt: str, out: str, report: Any, errors: int, validate_sarif: bool) -> list[str]:
    n = len(report.findings)
    if "Traceback" in out:
        return ["a traceback in the output"]
    if fmt == "text":
        last = out.rstrip("\n").rsplit("\n", 1)[-1]
        # "No problems found" only when every file was read; else "N file(s) could not be read …"
        summary = last.startswith(("Found ", "No problems")) or " could not be read (the errors above)" in last
        return [] if summary else [f"no summary line: {last[:200]!r}"]
    if fmt == "github":
        notes = [x for x in out.split("\n") if x.startswith("::")]
        return [] if len(notes) == n + errors else [f"{len(notes)} annotations for {n} findings + {errors} errors"]
    doc = json.loads(out)
    if fmt == "json":
        ok = len(doc["findings"]) == n and len(doc["files"]) == len(report.files)
        return [] if ok else ["findings/files do not match the report"]
    if fmt == "gitlab":
        return [] if isinstance(doc, list) and len(doc) == n + errors else [f"{len(doc)} issues"]
    if fmt == "sarif":
        problems = []
        if doc.get("version") != "2.1.0" or len(doc["runs"][0]["results"]) != n:
            problems.append("not SARIF 2.1.0 with one result per finding")
        if validate_sarif:
            problems += [e.message for e in list(_sarif_validator().iter_errors(doc))[:3]]
        return problems
    return [f"unknown format {fmt}"]
