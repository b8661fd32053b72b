"""Seeds the engine cannot take (HLE parses its seed with std::stoi, and a larger one aborts the whole process) are
refused in one line naming the range, exit code 2, on every route a seed list takes: the command line, a seed file
and a sweep. Run as a subprocess, because before the check the engine killed the interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.engine.game import MAX_SEED, deck_for_seed
from tests.helpers import ROOT

TOO_LARGE = MAX_SEED + 1  # 2147483648


def hanabi_eval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def seed_file(tmp_path: Path, line: str) -> Path:
    path = tmp_path / "big.jsonl"
    path.write_text(line + "\n")
    return path


def sweep_file(tmp_path: Path) -> Path:
    path = tmp_path / "big.toml"
    path.write_text(
        f'name = "big"\nplayers = [2]\nseeds = ["1,{TOO_LARGE}"]\nscaffolds = ["watson"]\n'
        '[[models]]\nmodel = "local/smart"\n'
    )
    return path


@pytest.mark.parametrize(
    "route",
    ["command line", "seed file", "seed file with a deck", "sweep"],
)
def test_a_seed_beyond_the_engine_is_refused_in_one_line_naming_the_range(tmp_path: Path, route: str) -> None:
    out = tmp_path / "results"
    deck = ", ".join(f'"{card}"' for card in deck_for_seed(1))
    if route == "command line":
        args = ["run", "--seeds", f"3,{TOO_LARGE}"]
    elif route == "seed file":
        args = ["run", "--seeds", str(seed_file(tmp_path, f'{{"seed": {TOO_LARGE}}}'))]
    elif route == "seed file with a deck":
        args = ["run", "--seeds", str(seed_file(tmp_path, f'{{"seed": {TOO_LARGE}, "deck": [{deck}]}}'))]
    else:
        args = ["run", "--config", str(sweep_file(tmp_path))]
    done = hanabi_eval(*args, "--out", str(out), "--no-progress")
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "0-2147483647" in done.stderr and str(TOO_LARGE) in done.stderr
    assert not out.exists()


def test_the_largest_seed_the_engine_takes_still_deals() -> None:
    assert len(deck_for_seed(MAX_SEED)) == 50
    with pytest.raises(ValueError, match="outside 0-2147483647"):
        deck_for_seed(TOO_LARGE)
