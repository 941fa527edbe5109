"""The ``vlint server`` command (pygls is imported only when it runs)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

INSTALL_HINT = "pip install 'vlint[server]'"


def missing_pygls() -> str | None:
    """Why the server cannot start here (pygls 2 and lsprotocol not importable), or None."""
    try:
        import lsprotocol.types  # noqa: F401
        from pygls.lsp.server import LanguageServer  # noqa: F401  (pygls 2.x; 1.x has pygls.server)
    except ImportError as e:
        return f"vlint server needs pygls 2.x ({e}); install it with: {INSTALL_HINT}"
    return None


@click.command("server")
@click.option("--stdio", is_flag=True, help="Speak LSP over stdin/stdout (the default and only transport).")
@click.option("--log-file", type=click.Path(path_type=Path, dir_okay=False), help="Write the server's log here.")
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="How much the server logs (to stderr, or --log-file).",
)
def server_cmd(stdio: bool, log_file: Path | None, log_level: str) -> None:
    """Run the vlint language server over stdio (for editors: diagnostics while you type, quick
    fixes, memory summary on hover). Needs the optional extra: pip install 'vlint[server]'."""
    why = missing_pygls()
    if why is not None:
        click.echo(f"vlint: error: {why}", err=True)
        sys.exit(2)
    from vlint.server.app import main

    main(log_file, log_level)
