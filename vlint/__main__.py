"""``python -m vlint …``: the same as the ``vlint`` command."""

from vlint.cli import run

if __name__ == "__main__":
    run()
