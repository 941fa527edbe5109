"""Launches a shell script hands to another program or function: ``docker exec``, ``kubectl exec --``,
``ray job submit --``, ``apptainer exec``, ``ssh HOST``, ``su -c``, ``sbatch --wrap``, ``tmux``, a
function of the script that runs ``"$@"``, and a program looked up on PATH (``$(which vllm)``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.core.invocation import Invocation
from vlint.core.span import PositionMap
from vlint.sources.base import SourceText
from vlint.sources.scripts import shell

M = "Qwen/Qwen2.5-7B-Instruct"


def launches(tmp_path: Path, text: str) -> list[Invocation]:
    path = tmp_path / "run.sh"
    path.write_text(text, encoding="utf-8")

    def read(p: Path) -> SourceText:
        return SourceText(str(p), p, p.read_text(encoding="utf-8"))

    posmap = PositionMap.for_text("run.sh", text)
    return shell.extract_from_text(text, posmap, base_dir=tmp_path, read_file=read, script_file=True).invocations


def where(inv: Invocation, text: str, word: str) -> str:
    """``line:col`` of the token whose text is ``word``, and the text at that place."""
    tok = next(t for t in inv.args if t.text == word)
    line = text.splitlines()[tok.span.line - 1]
    return f"{tok.span.line}:{tok.span.column} {line[tok.span.column - 1 : tok.span.column - 1 + len(word)]}"


@pytest.mark.parametrize(
    ("text", "program"),
    [
        (f"docker exec -it -e A=1 -w /srv vllm vllm serve {M} --max-model-len 8192\n", "vllm serve"),
        (f"docker compose exec vllm python3 -m vllm.entrypoints.openai.api_server --model {M}\n", "api_server"),
        (f"kubectl exec -it deploy/vllm -c server -- vllm serve {M} --max-model-len 8192\n", "vllm serve"),
        (f"ray job submit --address http://head:8265 -- vllm serve {M} --max-model-len 8192\n", "vllm serve"),
        (f"apptainer exec --nv -B /data:/data vllm.sif vllm serve {M} --max-model-len 8192\n", "vllm serve"),
        (f"runuser -u vllm -- vllm serve {M} --max-model-len 8192\n", "vllm serve"),
        (f'ssh -o StrictHostKeyChecking=no -p 22 node1 "vllm serve {M} --max-model-len 8192"\n', "vllm serve"),
        (f'su - vllm -c "vllm serve {M} --max-model-len 8192"\n', "vllm serve"),
        (f'sbatch --gres=gpu:1 --wrap="vllm serve {M} --max-model-len 8192"\n', "vllm serve"),
        (f'tmux new-session -d -s vllm "vllm serve {M} --max-model-len 8192"\n', "vllm serve"),
        (f"tmux new -d -s vllm vllm serve {M} --max-model-len 8192\n", "vllm serve"),
        (f'tmux send-keys -t vllm "vllm serve {M} --max-model-len 8192" Enter\n', "vllm serve"),
        (f"$(which vllm) serve {M} --max-model-len 8192\n", "vllm serve"),
        (f"uvx --from vllm vllm serve {M} --max-model-len 8192\n", "vllm serve"),
        (f'"$(command -v python3)" -m vllm.entrypoints.openai.api_server --model {M}\n', "api_server"),
        (f'run() {{ echo "+ $*"; "$@"; }}\nrun vllm serve {M} --max-model-len 8192\n', "vllm serve"),
        (
            f'log_run() {{\n  echo "running: $*" >&2\n  "$@"\n}}\nlog_run vllm serve {M} --max-model-len 8192\n',
            "vllm serve",
        ),
    ],
)
def test_handed_over_launches_are_found(tmp_path: Path, text: str, program: str) -> None:
    (inv,) = launches(tmp_path, text)
    assert inv.program == program
    assert M in [t.text for t in inv.args]
    if "--max-model-len" in text:  # every word keeps its place in the script
        assert where(inv, text, "8192").endswith(" 8192")


def test_a_string_command_keeps_its_words_places(tmp_path: Path) -> None:
    text = f'tmux new-session -d -s vllm "vllm serve {M} --max-model-len 8192"\n'
    (inv,) = launches(tmp_path, text)
    assert where(inv, text, "--max-model-len") == "1:66 --max-model-len"


@pytest.mark.parametrize(
    "text",
    [
        # a function that prints its arguments does not run them
        f'say() {{ echo "$@"; }}\nsay vllm serve {M}\n',
        # a function that is not defined here is not taken to run its arguments
        f"run vllm serve {M}\n",
        # exec'd programs and strings that are not vLLM
        "docker exec vllm nvidia-smi\nkubectl exec -it pod/vllm -- nvidia-smi\nsu -c 'echo hi' bob\n",
        "tmux ls\ntmux send-keys -t vllm C-c\nssh node1 uptime\n# vllm serve in a comment\n",
        # a substitution that is not a look-up on PATH
        f"$(get_vllm_path) serve {M}\n",
    ],
)
def test_no_launch_where_nothing_runs_vllm(tmp_path: Path, text: str) -> None:
    assert launches(tmp_path, text) == []


@pytest.mark.parametrize(
    "text",
    [
        f"bash <<EOF\nvllm serve {M} --max-model-len 8192\nEOF\n",
        f"ssh node1 bash -s -- arg <<'EOF'\nvllm serve {M} --max-model-len 8192\nEOF\n",
        f"docker exec -i vllm sh -e <<EOF\nvllm serve {M} --max-model-len 8192\nEOF\n",
    ],
)
def test_a_script_fed_to_a_shell_on_stdin(tmp_path: Path, text: str) -> None:
    (inv,) = launches(tmp_path, text)
    assert inv.program == "vllm serve" and where(inv, text, "8192") == "2:53 8192"


def test_a_launch_inside_a_command_substitution(tmp_path: Path) -> None:
    text = f"PID=$(nohup vllm serve {M} --max-model-len 8192 > log 2>&1 & echo $!)\nwait $PID\n"
    (inv,) = launches(tmp_path, text)
    assert where(inv, text, "8192") == "1:65 8192"


@pytest.mark.parametrize(
    "text",
    [
        # a script file given to the shell reads its own input from the here-document
        f"bash run.sh <<EOF\nvllm serve {M}\nEOF\n",
        # -c: the script is the argument, the here-document its input
        f"bash -c 'cat' <<EOF\nvllm serve {M}\nEOF\n",
        # another program's input, and a substitution that only asks vLLM's version
        f"python - <<EOF\nprint('vllm serve {M}')\nEOF\nV=$(vllm --version)\n",
    ],
)
def test_no_launch_from_input_that_is_not_a_script(tmp_path: Path, text: str) -> None:
    assert launches(tmp_path, text) == []


def test_nerdctl_runs_like_docker(tmp_path: Path) -> None:
    (inv,) = launches(tmp_path, f"nerdctl run --gpus all vllm/vllm-openai:v0.8.5 --model {M}\n")
    assert inv.facts["vllm_version"].value == "0.8.5" and M in [t.text for t in inv.args]
