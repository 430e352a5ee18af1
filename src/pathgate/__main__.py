"""``python -m pathgate`` — the same as the ``pathgate`` command."""

from pathgate.cli import console

console()
