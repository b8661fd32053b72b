"""Argument types the subcommands share: what a command-line value must be before a command sees it."""

from __future__ import annotations

import argparse
from pathlib import Path


def folder(text: str) -> Path:
    """An --out folder: an empty one ('' or spaces, as an unset shell variable gives) would be the current folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} names no folder; give a folder path")
    return Path(text)
