"""The `hanabi-eval` subcommands, one module each. A command module provides `register(subparsers)`, which adds its
parser and sets `handler` to a function `(args) -> exit code`. Bad input raises UsageError (one line, exit 2)."""

from __future__ import annotations

EXIT_OK, EXIT_INTERRUPTED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad user input: reported as one line with exit code 2, before any model is called."""
