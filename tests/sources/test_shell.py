"""Finding vLLM launches in shell scripts: entry points, wrappers, docker run, bash -c, spans.

Spans are written ``line:col-end_line:end_col`` (1-based, end exclusive) and were counted by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.argspec.parse import parse_invocation
from vlint.argspec.spec import bundled_versions, load_spec
from vlint.core.invocation import Invocation
from vlint.core.span import PositionMap, Span
from vlint.core.unresolved import UNRESOLVED
from vlint.run.lint import LintOptions, Reader
from vlint.sources.base import SourceError, SourceResult, SourceText
from vlint.sources.scripts import shell


def sp(s: Span | None) -> str:
    assert s is not None
    return f"{s.line}:{s.column}-{s.end_line}:{s.end_column}"


def extract(text: str, tmp_path: Path | None = None, name: str = "start.sh", files: dict[str, str] | None = None):
    """Run the shell source on ``text`` (written to ``tmp_path/name`` when given, with ``files`` beside it)."""
    if tmp_path is None:

        def no_files(p: Path) -> SourceText:
            raise SourceError("no such file")

        return shell.extract_from_text(
            text,
            PositionMap.for_text(name, text),
            base_dir=Path("/nonexistent"),
            read_file=no_files,
            powershell=name.endswith(".ps1"),
            script_file=not name.endswith(".ps1"),
        )
    for rel, content in (files or {}).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    path = tmp_path / name
    path.write_text(text)
    reader = Reader(LintOptions(root=tmp_path))
    return shell.extract(reader.read(path), reader.read)


def launches(text: str, **kw) -> list[Invocation]:
    result: SourceResult = extract(text, **kw)
    assert result.error is None, result.error.message
    return result.invocations


def one(text: str, **kw) -> Invocation:
    (inv,) = launches(text, **kw)
    return inv


def argv(inv: Invocation) -> list[str]:
    return [t.text for t in inv.args]


# -- entry points -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "program", "args"),
    [
        ("vllm serve m --port 1", "vllm serve", ["m", "--port", "1"]),
        ("/opt/venv/bin/vllm serve m", "vllm serve", ["m"]),
        ("~/.local/bin/vllm serve m", "vllm serve", ["m"]),
        ("python -m vllm.entrypoints.openai.api_server --model m", "api_server", ["--model", "m"]),
        ("python3 -m vllm.entrypoints.openai.api_server --model m", "api_server", ["--model", "m"]),
        ("python3.11 -u -m vllm.entrypoints.openai.api_server --model m", "api_server", ["--model", "m"]),
        ("python -X dev -m vllm.entrypoints.openai.api_server", "api_server", []),
        ("/usr/bin/python3 -m vllm.entrypoints.api_server --model m", "legacy-api-server", ["--model", "m"]),
        ("python -m vllm.entrypoints.cli.main serve m", "vllm serve", ["m"]),
        ("python -m vllm.entrypoints.launchers.api_server.entry --model m", "api_server", ["--model", "m"]),
    ],
)
def test_entry_points(line: str, program: str, args: list[str]) -> None:
    inv = one(line)
    assert inv.program == program
    assert argv(inv) == args
    assert inv.source == "shell"


@pytest.mark.parametrize(
    "line",
    [
        "vllm chat m",
        "vllm bench serve --model m",
        "echo vllm serve m",
        "python run_vllm.py --model m --gpu-memory-utilization 0.9",
        "python -m sglang.launch_server --model m --tp 4",
        "python -c 'import vllm'",
        "pip install vllm",
        "# vllm serve m",
        'exec "$@"',
        "cat <<EOF\nvllm serve m\nEOF",
        "X='vllm serve m'",
    ],
)
def test_not_launches(line: str) -> None:
    assert launches(line) == []


# -- wrappers -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "prefix",
    [
        "nohup",
        "exec",
        "time",
        "command",
        "uv run",
        "uv run --with x --python 3.12",
        "uv run --",
        "conda run -n env",
        "conda run --no-capture-output -n env",
        "micromamba run -p /env",
        "poetry run",
        "pixi run -e cuda",
        "hatch run",
        "timeout 60",
        "timeout -s KILL 60",
        "timeout --signal=KILL -k 5 60",
        "sudo -E",
        "sudo -u bob",
        "env A=B C=D",
        "env -u X",
        "numactl --cpunodebind=0 --membind=0",
        "numactl -N 0 -m 0",
        "taskset -c 0-7",
        "taskset 0x3",
        "nice -n 10",
        "stdbuf -oL",
        "srun -N 1 --gpus 8",
        "CUDA_VISIBLE_DEVICES=0 nohup uv run",
        '"${PREFIX[@]}"',
    ],
)
def test_wrappers(prefix: str) -> None:
    inv = one(f"{prefix} vllm serve m --port 1 > log 2>&1 &")
    assert inv.program == "vllm serve"
    assert argv(inv) == ["m", "--port", "1"]


def test_env_prefixes_and_env_wrapper_become_the_launch_environment() -> None:
    inv = one('A=1 env B=2 C="x y" vllm serve m')
    assert {k: t.text for k, t in inv.env.items()} == {"A": "1", "B": "2", "C": "x y"}
    assert sp(inv.env["A"].span) == "1:1-1:4"  # NAME=value
    assert sp(inv.env["C"].span) == "1:13-1:20"


@pytest.mark.parametrize("line", ['env HF_TOKEN="$T" A=1 vllm serve m', "sudo -E env HF_TOKEN=$T A=1 vllm serve m"])
def test_env_wrapper_assignments_with_unknown_values(line: str) -> None:
    inv = one(line)
    assert argv(inv) == ["m"]
    assert {k: (t.text, t.unresolved) for k, t in inv.env.items()} == {"HF_TOKEN": ("$T", True), "A": ("1", False)}


def test_exported_and_set_a_variables_reach_the_launch() -> None:
    text = "export HF_HOME=/h\nset -a\nVLLM_X=1\nset +a\nLOCAL=2\nvllm serve m\n"
    inv = one(text)
    assert {k: t.text for k, t in inv.env.items()} == {"HF_HOME": "/h", "VLLM_X": "1"}
    assert sp(inv.env["HF_HOME"].span) == "1:8-1:18"


def test_exported_unknown_value_is_unresolved() -> None:
    inv = one("export TOKEN=$(cat /run/secret)\nvllm serve m\n")
    assert inv.env["TOKEN"].unresolved


# -- arguments, values and spans ------------------------------------------------------------------------
def test_token_spans_across_continuations_tabs_and_quotes() -> None:
    text = (
        "#!/bin/bash\n"
        "MODEL=Qwen/Qwen2.5-7B\n"
        "CUDA_VISIBLE_DEVICES=0 vllm serve $MODEL \\\n"
        "\t--max-model-len=8192 \\\n"
        '  --served-model-name "my model" \\\n'
        '  --speculative-config \'{"method": "ngram"}\'   # comment\n'
    )
    inv = one(text)
    assert sp(inv.span) == "3:24-3:28"
    got = [(t.text, sp(t.span), t.unresolved) for t in inv.args]
    assert got == [
        ("Qwen/Qwen2.5-7B", "3:35-3:41", False),  # the span is the source spelling $MODEL
        ("--max-model-len=8192", "4:2-4:22", False),
        ("--served-model-name", "5:3-5:22", False),
        ("my model", "5:23-5:33", False),
        ("--speculative-config", "6:3-6:23", False),
        ('{"method": "ngram"}', "6:24-6:45", False),
    ]
    assert {k: (t.text, sp(t.span)) for k, t in inv.env.items()} == {"CUDA_VISIBLE_DEVICES": ("0", "3:1-3:23")}


def test_unresolved_words_keep_their_spelling_and_make_argv_opaque() -> None:
    inv = one('vllm serve $1 --port "${PORT}" --tp ${TP:-2} $EXTRA')
    assert [(t.text, t.unresolved) for t in inv.args] == [
        ("$1", True),
        ("--port", False),
        ('"${PORT}"', True),
        ("--tp", False),
        ("2", False),
        ("$EXTRA", True),
    ]
    assert inv.opaque_args  # $EXTRA may be any number of flags


def test_an_unquoted_variable_as_an_options_value_is_that_value() -> None:
    """``--api-key $KEY`` unquoted: bash splits it at blanks, but as an option's value it is the value (more
    words would be positionals vLLM refuses), so the launch's other flags are still known to be absent."""
    spec = load_spec(bundled_versions()[-1])
    inv = one("vllm serve /models/qwen3 --api-key $VLLM_API_KEY --port ${PORT}")
    assert not inv.opaque_args
    parsed = parse_invocation(inv, spec)
    assert not parsed.opaque and parsed.settings["api_key"].value in (UNRESOLVED, [UNRESOLVED])
    # must not: where no option takes it, an unquoted expansion may be any flags; so may ${X:+words},
    # an array, "$@", a command substitution, a default with blanks
    for tail in ("$EXTRA", "--trust-remote-code $EXTRA", "${DEBUG:+--enforce-eager}", "$(cat args.txt)"):
        inv = one(f"vllm serve /models/qwen3 {tail}")
        assert inv.opaque_args or parse_invocation(inv, spec).opaque, tail
    for tail in ('--api-key ${K:+"a b"}', '--api-key "${A[@]}"', "--api-key $(cat k)"):
        assert one(f"vllm serve /models/qwen3 {tail}").opaque_args, tail


def test_quoted_unknown_value_is_one_word_and_not_opaque() -> None:
    inv = one('vllm serve m --port "$PORT"')
    assert inv.args[-1].unresolved and not inv.opaque_args


def test_script_arguments_are_opaque() -> None:
    inv = one('exec python3 -m vllm.entrypoints.openai.api_server "$@"')
    assert argv(inv) == ['"$@"'] and inv.opaque_args


def test_flags_assembled_in_arrays_and_strings() -> None:
    text = (
        "PARALLEL=(--tensor-parallel-size 4)\n"
        'EXTRA="--enforce-eager --max-num-seqs 8"\n'
        'vllm serve m "${PARALLEL[@]}" $EXTRA --x "$((2 * 1024))"\n'
    )
    inv = one(text)
    assert argv(inv) == ["m", "--tensor-parallel-size", "4", "--enforce-eager", "--max-num-seqs", "8", "--x", "2048"]
    assert not inv.opaque_args
    # every word of an expansion points at the expansion
    assert {sp(t.span) for t in inv.args[1:3]} == {"3:14-3:30"}


def test_conditional_values_are_unresolved_not_guessed() -> None:
    text = 'GMU=0.90\nif [ "$DP" = true ]; then\n  GMU=0.94\nfi\nvllm serve m --gpu-memory-utilization $GMU\n'
    inv = one(text)
    assert (inv.args[-1].text, inv.args[-1].unresolved) == ("$GMU", True)


def test_several_launches_in_one_file() -> None:
    text = "vllm serve a --port 8000 &\nvllm serve b --port 8001 &\nwait\nsleep 1; vllm serve c\n"
    invs = launches(text)
    assert [(i.args[0].text, i.span.line) for i in invs] == [("a", 1), ("b", 2), ("c", 4)]


def test_pipeline_and_logical_operators() -> None:
    invs = launches("cd /srv && vllm serve m 2>&1 | tee log.txt\ntrue || vllm serve n; echo\n")
    assert [argv(i) for i in invs] == [["m"], ["n"]]


@pytest.mark.parametrize(
    "text",
    [
        "vllm serve m \\\n  --port 8300 \\\n\n#    --gpu-memory-utilization 0.6 \\\n#    --max-model-len 8192\n",
        "vllm serve m \\\n  --port 8300 \\\n  \n\n  # --gpu-memory-utilization 0.6 \\\n  # --max-model-len 8192 \\\n",
    ],
)
def test_trailing_backslash_before_a_blank_line_ends_the_launch(text: str) -> None:
    assert argv(one(text)) == ["m", "--port", "8300"]


def test_comment_in_a_continuation_ends_the_export() -> None:
    """corpus: kika run06.sh"""
    text = (
        'export MODEL="Qwen/Qwen3-0.6B" \\\n'
        "VLLM_WORKER_MULTIPROC_METHOD=spawn \\\n"
        "#VLLM_LOGGING_LEVEL=DEBUG \\\n"
        "uv run vllm serve $MODEL --port 8000\n"
    )
    inv = one(text)
    assert argv(inv) == ["Qwen/Qwen3-0.6B", "--port", "8000"]
    assert set(inv.env) == {"MODEL", "VLLM_WORKER_MULTIPROC_METHOD"}


def test_crlf_script() -> None:
    text = "vllm serve m \\\r\n  --max-model-len 4096\r\n"
    inv = one(text)
    assert [(t.text, sp(t.span)) for t in inv.args] == [
        ("m", "1:12-1:13"),
        ("--max-model-len", "2:3-2:18"),
        ("4096", "2:19-2:23"),
    ]


def test_crlf_file_through_the_reader(tmp_path: Path) -> None:
    (tmp_path / "start.sh").write_bytes(b"#!/bin/bash\r\nvllm serve m \\\r\n  --port 1\r\n")
    reader = Reader(LintOptions(root=tmp_path))
    (inv,) = shell.extract(reader.read(tmp_path / "start.sh"), reader.read).invocations
    assert [(t.text, sp(t.span)) for t in inv.args] == [("m", "2:12-2:13"), ("--port", "3:3-3:9"), ("1", "3:10-3:11")]


def test_utf8_bom_and_non_ascii_columns(tmp_path: Path) -> None:
    (tmp_path / "start.sh").write_bytes("\ufeff# café\nX=é; vllm serve m --n $X\n".encode())
    reader = Reader(LintOptions(root=tmp_path))
    (inv,) = shell.extract(reader.read(tmp_path / "start.sh"), reader.read).invocations
    assert [(t.text, sp(t.span)) for t in inv.args] == [("m", "2:17-2:18"), ("--n", "2:19-2:22"), ("é", "2:23-2:25")]


# -- syntax errors ----------------------------------------------------------------------------------------
def test_syntax_error_after_a_launch_keeps_the_launch_and_reports_the_line() -> None:
    text = 'vllm serve m --port 1\n\necho "unterminated\n'
    result = extract(text)
    assert [argv(i) for i in result.invocations] == [["m", "--port", "1"]]
    assert result.error is not None
    assert (result.error.line, result.error.column) == (3, 6)
    assert "unterminated double quote" in result.error.message


def test_syntax_error_inside_bash_c_is_located_in_the_string_and_the_script_goes_on() -> None:
    result = extract('bash -c "vllm serve m \'x"\nvllm serve n\n')
    assert [argv(i) for i in result.invocations] == [["n"]]
    assert result.error is not None and (result.error.line, result.error.column) == (1, 23)


def test_unclosed_heredoc_is_an_error_at_its_operator() -> None:
    result = extract("vllm serve m\ncat <<EOF\nbody\n")
    assert result.error is not None and (result.error.line, result.error.column) == (2, 5)
    assert len(result.invocations) == 1


# -- bash -c ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shell_cmd", ["bash -c", "sh -c", "/bin/bash -lc", "bash -ec", "bash -e -c", "bash -c -e", "bash -o pipefail -c"]
)
def test_bash_c_bodies(shell_cmd: str) -> None:
    inv = one(f"{shell_cmd} 'vllm serve m --port 1'")
    assert argv(inv) == ["m", "--port", "1"]


def test_bash_c_spans_point_into_the_string() -> None:
    text = 'X=4096; bash -c "vllm serve m --max-model-len $X --a \\"b c\\" \'d\'"'
    inv = one(text)
    assert sp(inv.span) == "1:18-1:22"
    got = [(t.text, sp(t.span)) for t in inv.args]
    assert got == [
        ("m", "1:29-1:30"),
        ("--max-model-len", "1:31-1:46"),
        ("4096", "1:47-1:49"),  # lies over $X
        ("--a", "1:50-1:53"),
        ("b c", "1:55-1:61"),  # \"b c\" without the first backslash
        ("d", "1:62-1:65"),
    ]


def test_bash_c_string_over_several_lines() -> None:
    text = 'bash -c "vllm serve m --max-model-len 4096 \\\n  --port 8000"\n'
    inv = one(text)
    assert [(t.text, sp(t.span)) for t in inv.args][-2:] == [("--port", "2:3-2:9"), ("8000", "2:10-2:14")]


def test_bash_c_multi_line_single_quoted_script() -> None:
    text = "bash -c '\n  set -e\n  vllm serve m \\\n    --tp 2\n'\n"
    inv = one(text)
    assert [(t.text, sp(t.span)) for t in inv.args] == [("m", "3:14-3:15"), ("--tp", "4:5-4:9"), ("2", "4:10-4:11")]


def test_bash_c_sees_the_outer_variables_and_env() -> None:
    text = 'export HF_TOKEN=abc\nM=m1\nB=2 bash -c "A=1 vllm serve $M"\n'
    inv = one(text)
    assert argv(inv) == ["m1"]
    assert {k: (t.text, sp(t.span)) for k, t in inv.env.items()} == {
        "HF_TOKEN": ("abc", "1:8-1:20"),  # positions stay in the outer script
        "B": ("2", "3:1-3:4"),
        "A": ("1", "3:14-3:17"),
    }


def test_unresolved_bash_c_string_is_not_read() -> None:
    assert launches('bash -c "$CMD"') == []
    assert launches('eval "$CMD"') == []


def test_command_assembled_in_a_variable_and_run_with_bash_c_or_eval() -> None:
    for runner in ('bash -c "$CMD"', 'eval "$CMD"', "eval $CMD"):
        inv = one(f'CMD="vllm serve m --tp 2"\nCMD+=" --max-model-len 4096"\n{runner}\n')
        assert argv(inv) == ["m", "--tp", "2", "--max-model-len", "4096"]
        assert inv.span.line == 3


def test_eval_of_a_command_known_in_part() -> None:
    """Issue 29: a command string built with an ``if`` (or holding an unknown ``$EXTRA``) run by eval is
    still a launch: its known words are read, the unknown ones marked (the launch is opaque)."""
    text = (
        'CMD="vllm serve m --port 8000"\n'
        'if [ -n "$TP" ]; then CMD="$CMD --tensor-parallel-size $TP"; fi\n'
        'CMD="$CMD --max-model-len 8192"\n'
        "eval $CMD\n"
    )
    inv = one(text)
    assert argv(inv) == ["m", "--port", "8000", "--tensor-parallel-size $TP", "--max-model-len", "8192"]
    assert inv.opaque_args and inv.span.line == 4
    for runner in ('eval "$CMD"', "eval $CMD"):
        inv = one(f'CMD="vllm serve m $EXTRA --max-num-seqs 8"\n{runner}\n')
        assert argv(inv) == ["m", "$EXTRA", "--max-num-seqs", "8"]
        assert inv.opaque_args


@pytest.mark.parametrize(
    "text",
    [
        'CMD="vllm serve m; echo done $X"\neval "$CMD"\n',  # a list: eval would parse it, vlint does not guess
        'CMD="vllm serve m > log.txt $X"\neval "$CMD"\n',  # a redirect
        "eval $CMD\n",  # nothing known of CMD
        'CMD="echo vllm serve m $X"\neval $CMD\n',  # not a vLLM launch
        'eval "exec vllm serve m {{- if .X -}}--tp {{ .X }}{{- end }} $N"\n',  # a template not rendered
    ],
)
def test_eval_known_in_part_is_not_guessed(text: str) -> None:
    assert launches(text) == []


def test_eval_joins_its_arguments() -> None:
    inv = one('eval vllm serve m --x "a b"')
    assert argv(inv) == ["m", "--x", "a", "b"]  # eval re-splits "a b"
    assert [sp(t.span) for t in inv.args][-2:] == ["1:24-1:25", "1:26-1:27"]


def test_unresolved_python_interpreter_running_a_vllm_module() -> None:
    inv = one("$PYTHON -m vllm.entrypoints.openai.api_server --model m")
    assert (inv.program, argv(inv)) == ("api_server", ["--model", "m"])
    assert launches("$PYTHON -m http.server") == []


# -- docker run -------------------------------------------------------------------------------------------------
def test_docker_run_options_env_facts_and_image_entrypoint() -> None:
    text = (
        "docker run -d --name x -p 8000:8000 -v /a:/b -e HF_TOKEN=abc -eFOO=1 --env BAR \\\n"
        "  --gpus '\"device=0,1\"' --shm-size 10g --ipc=host --privileged \\\n"
        "  vllm/vllm-openai:v0.10.2 --model m --tp 2\n"
    )
    inv = one(text)
    assert inv.program == "image"  # vllm/vllm-openai 0.10.x: vllm serve or api_server (not pinned down)
    assert argv(inv) == ["--model", "m", "--tp", "2"]
    assert sp(inv.span) == "3:3-3:27"
    assert {k: (t.text, t.unresolved) for k, t in inv.env.items()} == {
        "HF_TOKEN": ("abc", False),
        "FOO": ("1", False),
        "BAR": ("$BAR", True),  # passed through from the caller's environment
    }
    facts = {k: f.value for k, f in inv.facts.items()}
    assert facts == {
        "gpus": '"device=0,1"',
        "shm_size": "10g",
        "ipc": "host",
        "privileged": True,
        "image": "vllm/vllm-openai:v0.10.2",
        "vllm_version": "0.10.2",
        "image_entrypoint": "image",  # the arguments go to the image's own entry point
    }
    assert sp(inv.facts["gpus"].span) == "2:10-2:24"


def test_docker_env_with_an_unresolved_value_keeps_its_name() -> None:
    inv = one('docker run -e "HF_TOKEN=$HF_TOKEN" --env="A=$B" vllm/vllm-openai:v0.11.0 m')
    assert {k: (t.text, t.unresolved) for k, t in inv.env.items()} == {
        "HF_TOKEN": ("$HF_TOKEN", True),
        "A": ("$B", True),
    }


@pytest.mark.parametrize(
    ("image", "program", "version"),
    [
        ("vllm/vllm-openai:v0.8.5", "api_server", "0.8.5"),  # old images ran the api_server module
        ("vllm/vllm-openai:v0.11.0", "image", "0.11.0"),  # the switch to vllm serve is not pinned down
        ("docker.io/vllm/vllm-openai:v0.11.1", "vllm serve", "0.11.1"),
        ("vllm/vllm-openai:latest", "image", None),  # unknown version: either entry point
        ("vllm/vllm-openai", "image", None),
        ("vllm/vllm-openai@sha256:abc", "image", None),
        ("rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521", "image", "0.8.5"),
        ("lmcache/vllm-openai:v0.3.1", "image", None),  # an LMCache version, not vLLM's
    ],
)
def test_docker_image_default_entrypoint_and_version(image: str, program: str, version: str | None) -> None:
    inv = one(f"docker run --gpus all {image} --model m --max-model-len 4096")
    assert inv.program == program
    assert argv(inv) == ["--model", "m", "--max-model-len", "4096"]
    assert (inv.facts["vllm_version"].value if "vllm_version" in inv.facts else None) == version


def test_docker_run_with_an_explicit_command() -> None:
    inv = one("podman run --device nvidia.com/gpu=all nvidia/cuda:12.4 python3 -m vllm.entrypoints.cli.main serve m")
    assert (inv.program, argv(inv)) == ("vllm serve", ["m"])
    assert inv.facts["image"].value == "nvidia/cuda:12.4"


def test_docker_run_repeating_the_images_serve_is_noted() -> None:
    inv = one("docker run vllm/vllm-openai:v0.11.0 serve m")
    assert inv.facts["duplicate_serve"].value == "serve"
    inv = one("docker run vllm/vllm-openai:v0.11.0 vllm serve m")
    assert inv.facts["duplicate_serve"].value == "vllm serve"
    assert inv.facts["duplicate_serve"].detail == "the image already runs vllm serve"


def test_docker_run_entrypoint_option() -> None:
    inv = one("docker run --entrypoint vllm vllm/vllm-openai:v0.9.0 serve m")
    assert (inv.program, argv(inv)) == ("vllm serve", ["m"])
    inv = one("docker run --entrypoint=python3 img:1 -m vllm.entrypoints.openai.api_server --model m")
    assert (inv.program, argv(inv)) == ("api_server", ["--model", "m"])
    assert launches("docker run --entrypoint /bin/true vllm/vllm-openai:v0.9.0 --model m") == []


def test_docker_run_entrypoint_shell_script() -> None:
    text = "docker run --gpus all --entrypoint bash vllm/vllm-openai:v0.9.0 -c 'vllm serve m --tp 2'"
    inv = one(text)
    assert (inv.program, argv(inv)) == ("vllm serve", ["m", "--tp", "2"])
    assert [sp(t.span) for t in inv.args] == ["1:80-1:81", "1:82-1:86", "1:87-1:88"]
    assert {k: (f.value, sp(f.span)) for k, f in inv.facts.items()} == {
        "gpus": ("all", "1:19-1:22"),
        "image": ("vllm/vllm-openai:v0.9.0", "1:41-1:64"),
        "vllm_version": ("0.9.0", "1:41-1:64"),
    }


def test_docker_run_shell_command_on_an_image_without_entrypoint() -> None:
    inv = one("docker run nvidia/cuda:12 bash -lc 'pip install vllm && vllm serve m'")
    assert argv(inv) == ["m"] and inv.facts["image"].value == "nvidia/cuda:12"


@pytest.mark.parametrize(
    "line",
    [
        "docker run -d --name db postgres:16",
        "docker run ubuntu:22.04 --model m",
        "docker build -t vllm .",
        "docker pull vllm/vllm-openai:v0.11.0",
        "docker run",
        "docker run $IMAGE --model m",
    ],
)
def test_docker_not_launches(line: str) -> None:
    assert launches(line) == []


def test_nested_quotes_in_docker_gpus() -> None:
    """corpus: zeuscsc start_vllm.sh — ``--gpus='"device=0"'``"""
    inv = one("docker run --gpus='\"device=0\"' vllm/vllm-openai:v0.7.2 --model /m --max_model_len 8192")
    assert inv.facts["gpus"].value == '"device=0"'
    assert inv.program == "api_server"


# -- PowerShell ---------------------------------------------------------------------------------------------------
def test_powershell_backtick_continuations() -> None:
    text = (
        "docker run --gpus all `\n"
        "  -v ${PWD}/models:/models `\n"
        '  -e "HF_TOKEN=$env:HF_TOKEN" `\n'
        "  vllm/vllm-openai:v0.8.5 `\n"
        '  --model "m x" --max-model-len 4096 # comment\n'
        '$x = "a"\n'
    )
    inv = one(text, name="run.ps1")
    assert inv.program == "api_server"
    assert [(t.text, sp(t.span)) for t in inv.args] == [
        ("--model", "5:3-5:10"),
        ("m x", "5:11-5:16"),
        ("--max-model-len", "5:17-5:32"),
        ("4096", "5:33-5:37"),
    ]
    assert inv.env["HF_TOKEN"].unresolved


def test_powershell_sniffed_by_extension(tmp_path: Path) -> None:
    (inv,) = launches("vllm serve m --tp 2 `\n  --port 1\n", tmp_path=tmp_path, name="run.ps1")
    assert argv(inv) == ["m", "--tp", "2", "--port", "1"]


# -- --config files ----------------------------------------------------------------------------------------------
def test_config_file_next_to_the_script(tmp_path: Path) -> None:
    inv = one(
        "vllm serve m --config cfg/serve.yaml --port 1\n",
        tmp_path=tmp_path,
        files={"cfg/serve.yaml": "max-model-len: 4096\nenforce-eager: true\n"},
    )
    assert inv.config is not None
    assert [(e.key, e.value) for e in inv.config.entries] == [("max-model-len", 4096), ("enforce-eager", True)]
    assert inv.config.path == "cfg/serve.yaml"
    assert sp(inv.config.entries[0].value_span) == "1:16-1:20"
    assert Path(str(inv.facts["config_path"].value)) == tmp_path / "cfg" / "serve.yaml"


def test_config_equals_form_is_not_loaded(tmp_path: Path) -> None:
    """vLLM only expands the exact word --config; --config=FILE is never read (VL015)."""
    inv = one("vllm serve m --config=c.yaml\n", tmp_path=tmp_path, files={"c.yaml": "port: 1\n"})
    assert inv.config is None
    assert [p.code for p in inv.problems] == ["VL015"]


@pytest.mark.parametrize(
    "script",
    [
        "cd deploy && vllm serve m --config c.yaml\n",
        "cd deploy\nvllm serve m --config ./c.yaml\n",
        "pushd deploy\nvllm serve m --config c.yaml\n",
        'cd "$(dirname "$0")"\ncd deploy; vllm serve m --config c.yaml\n',  # unknown cd: the script's folder
        "cd deploy/sub\ncd ..\nvllm serve m --config c.yaml\n",
        "cd deploy\ncat > c.yaml <<EOF\nport: 1\nEOF\ncd ..\nvllm serve m --config deploy/c.yaml\n",
    ],
)
def test_config_paths_follow_cd(tmp_path: Path, script: str) -> None:
    inv = one(script, tmp_path=tmp_path, files={"deploy/c.yaml": "port: 1\n", "deploy/sub/x": ""})
    assert inv.config is not None and inv.problems == []
    assert [(e.key, e.value) for e in inv.config.entries] == [("port", 1)]


def test_cd_inside_a_branch_is_not_followed(tmp_path: Path) -> None:
    inv = one(
        "if [ -d x ]; then cd x; fi\nvllm serve m --config c.yaml\n", tmp_path=tmp_path, files={"c.yaml": "port: 1\n"}
    )
    assert inv.config is not None


def test_linked_config_is_reported(tmp_path: Path) -> None:
    result = extract("vllm serve m --config c.yaml\n", tmp_path=tmp_path, files={"c.yaml": "port: 1\n"})
    assert result.linked == [tmp_path / "c.yaml"]


@pytest.mark.parametrize(
    ("files", "code", "fragment"),
    [
        # vLLM stops where the script's own folder is the one it runs in (assumed here: a warning, which
        # tests/sources/test_shell_workdir.py tells from the error after cd "$(dirname "$0")")
        ({}, "VL038", "vLLM stops (FileNotFoundError)"),
        ({"c.yaml": "a: [1\n"}, "VL010", "is not valid"),
        ({"c.yaml": "- a\n"}, "VL037", "'list' object has no attribute 'items'"),  # vLLM crashes
        ({"c.yaml": "# only a comment\n"}, "VL037", "'NoneType' object has no attribute 'items'"),
    ],
)
def test_config_file_problems(tmp_path: Path, files: dict[str, str], code: str, fragment: str) -> None:
    inv = one("vllm serve m --config c.yaml\n", tmp_path=tmp_path, files=files)
    (p,) = inv.problems
    assert p.code == code and fragment in p.message
    assert sp(p.span) == "1:23-1:29"
    assert inv.opaque_args and inv.config is None


def test_unresolved_config_path_is_vl010() -> None:
    inv = one("vllm serve m --config $CFG\n")
    (p,) = inv.problems
    assert p.code == "VL010" and "$CFG" in p.message


def test_config_written_by_a_heredoc() -> None:
    """corpus: InferenceX gptoss_fp4_h100.sh"""
    text = (
        "MAX_MODEL_LEN=10240\n"
        "cat > config.yaml << EOF\n"
        "no-enable-prefix-caching: true\n"
        "max-model-len: $MAX_MODEL_LEN\n"
        "max-num-seqs: $CONC\n"
        "EOF\n"
        "vllm serve $MODEL --config config.yaml --gpu-memory-utilization=0.9\n"
    )
    inv = one(text)
    assert inv.config is not None
    got = [(e.key, e.value, e.unresolved, sp(e.key_span), sp(e.value_span)) for e in inv.config.entries]
    assert got == [
        ("no-enable-prefix-caching", True, False, "3:1-3:25", "3:27-3:31"),
        ("max-model-len", 10240, False, "4:1-4:14", "4:16-4:30"),
        ("max-num-seqs", "$CONC", True, "5:1-5:13", "5:15-5:20"),
    ]
    assert inv.config.path == "start.sh"  # the settings live in the script


@pytest.mark.parametrize(("target", "ref"), [("./c.yaml", "c.yaml"), ("c.yaml", "./c.yaml"), ("a/../c.yaml", "c.yaml")])
def test_heredoc_and_config_paths_are_compared_normalized(target: str, ref: str) -> None:
    inv = one(f"cat > {target} <<EOF\nport: 1\nEOF\nvllm serve m --config {ref}\n")
    assert inv.config is not None and inv.problems == []


def test_config_written_by_a_dash_heredoc_inside_a_block() -> None:
    text = "if true; then\n\tcat > c.yaml <<-EOF\n\t\tmax-model-len: 4096\n\tEOF\nfi\nvllm serve m --config c.yaml\n"
    inv = one(text)
    assert inv.config is not None
    (e,) = inv.config.entries
    assert (e.key, e.value, sp(e.key_span)) == ("max-model-len", 4096, "3:3-3:16")


# -- sniffing ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("start.sh", "echo\n", True),
        ("run.bash", "", True),
        ("run.ps1", "", True),
        ("start", "#!/bin/bash\nvllm serve m\n", True),
        ("start", "#!/usr/bin/env bash\n", True),
        ("start", "\ufeff#!/bin/sh\n", True),
        ("start", "\n#!/bin/bash\n", True),  # corpus: Xiangxiangzhu — a blank line before the shebang
        ("start", "#!/usr/bin/env python\n", False),
        ("serve.yaml", "vllm serve m\n", False),
        ("README.md", "vllm serve m\n", False),
    ],
)
def test_sniff(name: str, text: str, expected: bool) -> None:
    assert shell.sniff(SourceText(name, Path(name), text)) is expected


def test_sourced_files_set_variables(tmp_path: Path) -> None:
    """``source config.sh`` / ``. ./env.sh``: the variables the file sets, read inside the lint root; a
    file that cannot be read (outside the root, missing) leaves them unknown; sourcing loops stop."""
    files = {"config.sh": "MODEL=Qwen/Qwen3-8B\nexport TP=2\nsource sub/more.sh\n", "sub/more.sh": "LEN=8192\n"}
    text = "#!/bin/bash\nsource config.sh\nvllm serve $MODEL --tensor-parallel-size $TP --max-model-len $LEN\n"
    inv = one(text, tmp_path=tmp_path, files=files)
    assert argv(inv) == ["Qwen/Qwen3-8B", "--tensor-parallel-size", "2", "--max-model-len", "8192"]
    assert not any(t.unresolved for t in inv.args)
    # the values' spans are where the launch uses them (the sourced file is another file)
    assert inv.args[0].span.path.endswith("start.sh")
    outside = tmp_path.parent / "outside.sh"
    outside.write_text("MODEL=secret/model\n")
    for ref in (str(outside), "../outside.sh", "./missing.sh"):
        inv = one(f". {ref}\nvllm serve $MODEL\n", tmp_path=tmp_path, files={})
        assert inv.args[0].unresolved and inv.args[0].text == "$MODEL", ref
    inv = one("source loop.sh\nvllm serve $X\n", tmp_path=tmp_path, files={"loop.sh": "source loop.sh\nX=m/x\n"})
    assert argv(inv)[0] == "m/x"


# -- scripts written from a here-document and run -----------------------------------------------
_WRITTEN = """export VLLM_OUTER=1
cat > /root/launch.sh << 'LAUNCH'
#!/bin/bash
export VLLM_INNER=1
vllm serve Qwen/Qwen3-8B \\
  --max-model-len 4096
LAUNCH
chmod +x /root/launch.sh
RUN
"""


def test_a_written_script_that_is_run_is_read() -> None:
    for run in ("/root/launch.sh", "bash /root/launch.sh", "screen -dmS vllm bash -c '/root/launch.sh'"):
        (inv,) = launches(_WRITTEN.replace("RUN", run))
        assert inv.span.line == 5 and argv(inv) == ["Qwen/Qwen3-8B", "--max-model-len", "4096"]
        # each variable at the line that sets it, through every level of nesting
        assert inv.env["VLLM_INNER"].span.line == 4
        assert inv.env["VLLM_OUTER"].span.line == 1


def test_a_written_script_never_run_is_not_a_launch() -> None:
    assert launches(_WRITTEN.replace("RUN", "echo done")) == []
    # another file is run, not the one written
    assert launches(_WRITTEN.replace("RUN", "bash /root/other.sh")) == []


def test_screen_runs_its_command() -> None:
    (inv,) = launches("screen -dmS llm vllm serve Qwen/Qwen3-8B\n")
    assert argv(inv) == ["Qwen/Qwen3-8B"]


# -- ${1:-default}: the script run without arguments ------------------------------------------------


def _model(inv: Invocation) -> str | None:
    return next((t.text for t in inv.args if not t.text.startswith("-")), None)


def test_a_positional_default_at_the_top_level_is_the_model_and_the_label_says_so() -> None:
    text = 'set -e\nMODEL="${1:-Qwen/Qwen2.5-7B-Instruct}"\nvllm serve "$MODEL" --max-model-len "${2-4096}"\n'
    (inv,) = extract(text).invocations
    assert [t.text for t in inv.args] == ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "4096"]
    assert inv.label == "vllm serve (run without arguments: $1, $2 at their default)"
    assert inv.facts["positional_defaults"].value == ("$1", "$2")


def test_a_positional_parameter_without_a_default_stays_unknown() -> None:
    (inv,) = extract('vllm serve "$1" --port "${2:+8000}"\n').invocations
    assert inv.args[0].unresolved and "positional_defaults" not in inv.facts
    assert "without arguments" not in inv.label


@pytest.mark.parametrize(
    "text",
    [
        'serve() {\n  vllm serve "${1:-Qwen/Qwen2.5-7B-Instruct}"\n}\nserve "$@"\n',
        'serve()\n{\n  vllm serve "${1:-Qwen/Qwen2.5-7B-Instruct}"\n}\nserve m\n',
        'function serve {\n  M="${1:-Qwen/Qwen2.5-7B-Instruct}"\n  vllm serve "$M"\n}\nserve\n',
        "bash -c 'vllm serve \"${1:-Qwen/Qwen2.5-7B-Instruct}\"' sh other/model\n",
    ],
)
def test_inside_a_function_or_a_bash_c_string_dollar_one_is_not_the_scripts(text: str) -> None:
    """``$1`` in a function is its caller's argument; in a ``bash -c`` string, the one after it: never
    the script's default."""
    invs = extract(text).invocations
    assert invs and all(_model(i) != "Qwen/Qwen2.5-7B-Instruct" for i in invs), [i.args for i in invs]
    assert all("positional_defaults" not in i.facts for i in invs)


@pytest.mark.parametrize("before", ["shift", "set -- other/model", 'while getopts "m:" o; do :; done'])
def test_after_shift_set_or_getopts_dollar_one_is_no_longer_the_default(before: str) -> None:
    (inv,) = extract(f'{before}\nvllm serve "${{1:-Qwen/Qwen2.5-7B-Instruct}}"\n').invocations
    assert _model(inv) != "Qwen/Qwen2.5-7B-Instruct" and "positional_defaults" not in inv.facts


def test_after_a_function_the_top_level_default_is_read_again() -> None:
    text = 'f() { echo "${1:-x}"; }\nvllm serve "${1:-Qwen/Qwen2.5-0.5B-Instruct}"\n'
    (inv,) = extract(text).invocations
    assert _model(inv) == "Qwen/Qwen2.5-0.5B-Instruct"


def test_a_value_from_a_variable_keeps_where_it_is_written() -> None:
    """Issue 29: ``--gpu-memory-utilization $GMU`` — findings about the value point at ``GMU=…`` (the line
    to edit); a word that is more than the variable, or a variable of another text, keeps no origin."""
    inv = one('GMU=0.97\nMML="900000"\nvllm serve m --gpu-memory-utilization $GMU --max-model-len "${MML}" --x=$GMU\n')
    gmu, mml, x = inv.args[2], inv.args[4], inv.args[5]
    assert (gmu.text, sp(gmu.defined)) == ("0.97", "1:5-1:9")
    assert (mml.text, sp(mml.defined)) == ("900000", "2:5-2:13")
    assert x.defined is None  # --x=$GMU: the word is more than the value
    inv = one('GMU=0.97\nbash -c "vllm serve m --gpu-memory-utilization $GMU"\n')
    assert all(t.defined is None for t in inv.args)  # inside the bash -c string: the value is substituted


def test_a_launch_written_through_a_variable_spans_its_assignments() -> None:
    """``deployments[].lines``: argv kept in ``ARGS=(…)`` / ``CMD="…"`` (and their appends) is written there."""
    inv = one('M=m\nARGS=(--model "$M" --tp 2)\nARGS+=(--max-model-len 8192)\nvllm serve "${ARGS[@]}"\n')
    assert inv.lines() == (2, 4)
    inv = one('CMD="vllm serve m --port 8000"\nCMD="$CMD --max-model-len 8192"\necho hi\neval $CMD\n')
    assert inv.lines() == (1, 4)
    inv = one("GMU=0.9\n\nvllm serve m --gpu-memory-utilization $GMU\n")
    assert inv.lines() == (3, 3)  # one value from a variable: where the flag is, not where the value is
