"""``python -m hermes_hooks`` runs the command-line tool."""

from hermes_hooks.cli import main

raise SystemExit(main())
