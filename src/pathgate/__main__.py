"""``python -m pathgate`` — the same as the ``pathgate`` command."""

from pathgate.cli import main

raise SystemExit(main())
