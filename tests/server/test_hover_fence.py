"""The hover's Markdown keeps a file's values inside its code block: a value holding a line of
backticks cannot close the fence and have the editor render what follows (a heading, a link)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.server.lsp_client import require_pygls

require_pygls()

from lsprotocol import types  # noqa: E402

from vlint.server import hover  # noqa: E402
from vlint.server.session import Session  # noqa: E402


def fenced_body(markdown: str) -> tuple[str, str]:
    """(the fenced block's text, whatever follows its closing fence), by CommonMark's rules: a
    closing fence is a line of at most three spaces, backticks at least as many as the opening
    fence's, and blanks."""
    first, *lines = markdown.split("\n")
    opening = re.match(r" {0,3}(`{3,})", first)
    assert opening is not None, first
    closing = re.compile(rf" {{0,3}}`{{{len(opening.group(1))},}}[ \t]*")
    for i, line in enumerate(lines):
        if closing.fullmatch(line):
            return "\n".join(lines[:i]), "\n".join(lines[i + 1 :])
    return "\n".join(lines), ""


@pytest.mark.parametrize("run", [3, 4, 5, 9])
def test_a_model_name_holding_a_fence_stays_inside_the_code_block(tmp_path: Path, run: int) -> None:
    ticks = "`" * run
    model = f"org/m\\n{ticks}\\n# injected heading\\n[click](https://evil.example)"
    path = tmp_path / "serve.yaml"
    path.write_text(f'model: "{model}"\nmax-model-len: 4096\n', encoding="utf-8")
    session = Session([tmp_path])
    session.open(path.as_uri(), path, 1, path.read_text(encoding="utf-8"))
    h = session.hover(path, types.Position(line=0, character=9))
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert h.contents.kind == types.MarkupKind.Markdown
    body, after = fenced_body(h.contents.value)
    assert after == ""  # nothing rendered as Markdown outside the block
    assert f"\n{ticks}\n# injected heading" in body


@pytest.mark.parametrize("text", ["plain", "a ``` b", "```", "x\n````\ny", "`" * 12, "``a``` ````"])
def test_the_fence_is_longer_than_every_run_of_backticks(text: str) -> None:
    block = hover.code_block(text)
    body, after = fenced_body(block)
    assert body == text and after == ""
    assert block.startswith("`" * max(3, max((len(r) for r in re.findall("`+", text)), default=0) + 1) + "text\n")
