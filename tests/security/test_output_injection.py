"""Nothing from a file can start a GitHub workflow command or an ANSI sequence, in any output."""

from __future__ import annotations

from pathlib import Path

import pytest
from userrepo import invoke

ROOT = Path(__file__).resolve().parents[2]
#: what an attacker wants the runner to read as a command of its own
INJECTIONS = ("::add-mask::", "::stop-commands::", "::set-output", "::error file=", "::warning::")


def run(cwd: Path, *args: str, **env: str) -> str:
    """What ``vlint --isolated ARGS`` prints (stdout, then stderr), run in this process as the command."""
    r = invoke(cwd, ["--isolated", *args], env=env)
    assert "Traceback" not in r.err, r.err[-2000:]
    return r.out + r.err


def _assert_clean(out: str) -> None:
    """The runner reads a workflow command only at the start of a line: every line that starts with
    ``::`` is one of vlint's own annotations (whose properties cannot hold ``::`` or a line break),
    and no control character a terminal acts on is printed raw."""
    for line in out.splitlines():
        stripped = line.lstrip()
        if stripped.startswith("::"):
            command, _, rest = stripped[2:].partition(" ")
            assert command in ("error", "warning", "notice"), line
            props, sep, _message = rest.partition("::")
            assert sep and "\n" not in props, line
        assert not any(
            stripped.startswith(i)
            for i in INJECTIONS
            if not stripped.startswith(("::error ", "::warning ", "::notice "))
        ), line
    assert "\x1b" not in out and "\r" not in out and "\u202e" not in out


VALUE = "x\n::add-mask::\r\n::stop-commands::pwned\x1b[2J\u202e"


@pytest.mark.parametrize("fmt", ["github", "text", "json", "sarif", "gitlab"])
def test_through_a_value(tmp_path: Path, fmt: str) -> None:
    # a YAML double-quoted scalar decodes \n, \r, \e and \u202e into the value vlint quotes
    (tmp_path / "serve.yaml").write_text(
        'model: m/x\nmax-num-seqs: "x\\n::add-mask::\\r\\n::stop-commands::pwned\\e[2J\\u202e"\n', encoding="utf-8"
    )
    (tmp_path / "vllm.env").write_text("VLLM_BOGUS=1\n", encoding="utf-8")
    out = run(tmp_path, "--format", fmt, ".", FORCE_COLOR="1" if fmt == "text" else "")
    assert "max-num-seqs" in out or "max_num_seqs" in out
    if fmt == "text":  # FORCE_COLOR: vlint's own colours, nothing from the file
        out = out.replace("\x1b[", "<csi>")
        assert "<csi>2J" not in out
        out = "".join(out.split("<csi>"))
    _assert_clean(out)


@pytest.mark.parametrize("fmt", ["github", "text"])
def test_through_a_file_name(tmp_path: Path, fmt: str) -> None:
    name = "x\n::add-mask::\n::stop-commands::pwned.sh"
    (tmp_path / name).write_text("vllm serve m/x --max-model-lenn 1\n", encoding="utf-8")
    out = run(tmp_path, "--format", fmt, ".")
    assert "VL001" in out
    _assert_clean(out)


def test_through_an_image_tag_in_the_summary(tmp_path: Path) -> None:
    (tmp_path / "docker-compose.yaml").write_text(
        'services:\n  v:\n    image: "vllm/vllm-openai:v0.10.2\\n::add-mask::x"\n    command: ["m/x"]\n',
        encoding="utf-8",
    )
    _assert_clean(run(tmp_path, "--format", "github", "."))
