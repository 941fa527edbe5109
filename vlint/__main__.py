"""``python -m vlint …``: the same as the ``vlint`` command."""

from vlint.cli import main

if __name__ == "__main__":
    main()
