"""What every bench script's command line shares: `--quick`, and nonsense refused in one line with exit code 2.

`--quick` runs a script's whole code path at tiny sizes, in seconds; tests/test_bench.py runs every script in bench/
that way, so a renamed import or a changed reply breaks CI instead of a benchmark months later.

A script measures the harness that the Python running it imports: an installed one first (the scripts put this
checkout on sys.path after it), so `.venv/bin/python bench/...` runs this checkout as its source (setup.sh's editable
install) and the Python of a `pip install .` runs the compiled build; bot_build() says which in the header.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import harness


class BenchParser(argparse.ArgumentParser):
    """argparse, with `--quick` and errors in one line: `<script>: <problem>; see --help`, exit code 2."""

    def __init__(self, doc: str | None) -> None:
        super().__init__(description=(doc or "").strip().splitlines()[0] if doc else None)
        self.add_argument(
            "--quick", action="store_true", help="seconds, tiny sizes, the same code path (what CI runs)"
        )

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message}; see --help", file=sys.stderr)
        sys.exit(2)


def _bounded_int(text: str, low: int, high: int | None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise argparse.ArgumentTypeError(f"{value} is out of range: give a number {bound}")
    return value


def positive_int(text: str) -> int:
    """A count of at least 1."""
    return _bounded_int(text, 1, None)


def int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`."""

    def parse(text: str) -> int:
        return _bounded_int(text, low, high)

    return parse


def positive_float(text: str) -> float:
    """A duration or size above 0 (and finite)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{value:g} is out of range: give a number above 0")
    return value


def float_in(low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a number from `low` to `high`."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value:g} is out of range: give a number from {low:g} to {high:g}")
        return value

    return parse


def seed_list(text: str) -> str:
    """Comma-separated non-negative whole seeds, e.g. 1,2,3 (as `hanabi-eval run --seeds` reads them)."""
    parts = text.split(",")
    if not all(p.strip().isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of seeds: write them like 1,2,3")
    return ",".join(p.strip() for p in parts)


def bot_build() -> str:
    """How this process runs the smart bot, for a benchmark's header: compiled (a `pip install .`, setup.py) or its
    source, and the harness folder it comes from. The same moves either way; a cost measured one way says nothing
    of the other."""
    folder = Path(harness.__file__).parent
    compiled = harness.compiled_modules()
    return f"{len(compiled)} modules compiled with mypyc, {folder}" if compiled else f"Python source, {folder}"
