"""The offline numbers docs/reproducing.md states, played again: the built-in player's scores on the deals each
section names, read from the page's own sentences and tables, so that a change to the bot, the engine or a scaffold
that moves them fails here until the page says the new ones. Marked `bench`: `.ci/run` plays them in the step of
the benchmarks' quick modes (`pytest -m "bench or build"`), beside the suite.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.schema.log_file import GameLogContents, read_game_log
from tests.helpers import ROOT

PAGE = ROOT / "docs" / "reproducing.md"

pytestmark = pytest.mark.bench


def page() -> str:
    return " ".join(PAGE.read_text(encoding="utf-8").split())  # sentences whole, whatever their line breaks


def table_row(label: str) -> list[str]:
    """The cells after the first of the page's table row that starts with `label`."""
    found = re.search(rf"^\| {re.escape(label)} \|(.*)\|$", PAGE.read_text(encoding="utf-8"), re.MULTILINE)
    assert found, f"docs/reproducing.md has no table row {label!r}"
    return [cell.strip() for cell in found.group(1).split("|")]


def played(tmp_path: Path, *argv: str) -> list[GameLogContents]:
    """The games of one offline run of `argv`, in seed order."""
    assert main(["run", "--model", "local/smart", *argv, "--out", str(tmp_path), "--no-progress"]) == 0
    games = [read_game_log(path) for path in tmp_path.glob("*/games/*.jsonl")]
    return sorted(games, key=lambda g: (g.header.players, g.header.seed))


def stated(pattern: str) -> tuple[str, ...]:
    found = re.search(pattern, page())
    assert found, f"docs/reproducing.md no longer says /{pattern}/"
    return found.groups()


def numbers(text: str) -> list[int]:
    return [int(n) for n in text.split(", ")]


def test_the_reproduction_targets_deals(tmp_path: Path) -> None:
    scores, seeds, mean = stated(
        r"--seeds watson-5p-targets`\): ([\d, ]+) on seeds ([\d, ]+) \(mean ([\d.]+)\)"
    )
    games = played(tmp_path, "--scaffold", "watson", "--players", "5", "--seeds", "watson-5p-targets")
    assert [g.header.seed for g in games] == numbers(seeds)
    assert [g.result.fireworks_score for g in games if g.result] == numbers(scores)
    assert f"{statistics.mean(numbers(scores)):.1f}" == mean


def test_the_state_tracking_deals(tmp_path: Path) -> None:
    scores, seeds, mean, moves = stated(
        r"--seeds state-tracking` scores ([\d, ]+) on seeds ([\d, ]+) \(mean ([\d.]+)\), and its deduction blocks "
        r"match the engine exactly on all ([\d,]+) moves"
    )
    games = played(tmp_path, "--scaffold", "mycroft", "--players", "5", "--seeds", "state-tracking")
    assert [g.header.seed for g in games] == numbers(seeds)
    assert [g.result.fireworks_score for g in games if g.result] == numbers(scores)
    assert f"{statistics.mean(numbers(scores)):.1f}" == mean
    assert sum(len(g.moves) for g in games) == int(moves.replace(",", ""))


def test_five_players_on_seed_3(tmp_path: Path) -> None:
    (score,) = stated(r"every Best-of-K setting measured \(k = 1, 3, 5, 7\) gave (\d+)\.")
    assert table_row("`local/smart`, 10 games each") == [f"{score}.0 (all 10)"] * 5
    (game,) = played(tmp_path, "--scaffold", "watson", "--players", "5", "--seeds", "3")
    assert game.result is not None and game.result.fireworks_score == int(score)


def test_the_standard_grid(tmp_path: Path) -> None:
    overall, se = stated(r"Overall ([\d.]+) ± ([\d.]+) \(s\.e\.\) over the 40 games")
    (moves,) = stated(r"could-be sets on every card of all ([\d,]+) moves")
    games = played(tmp_path, "--scaffold", "watson", "--players", "2", "3", "4", "5", "--seeds", "standard")
    scores = {p: [g.result.fireworks_score for g in games if g.result and g.header.players == p] for p in (2, 3, 4, 5)}
    measured = [
        f"{statistics.mean(s):.1f}, {statistics.stdev(s):.2f}, {min(s)}-{max(s)}" for s in scores.values()
    ]
    assert table_row("`local/smart`, Watson (mean, sd, range)") == measured
    for label in ("`best-of-k-watson --k 5`", "`best-of-k-sherlock --k 5`", "`moa-watson`", "`moa-sherlock`"):
        assert table_row(label) == [f"{statistics.mean(s):.1f}" for s in scores.values()]  # the same games
    everything = [score for s in scores.values() for score in s]
    assert f"{statistics.mean(everything):.2f}" == overall
    assert f"{statistics.stdev(everything) / len(everything) ** 0.5:.2f}" == se
    assert sum(len(g.moves) for g in games) == int(moves.replace(",", ""))
    (perfect,) = stated(r"over the 40 games; (.*?); no strike-outs\.")
    counts = [(p, sum(score == 25 for score in s)) for p, s in scores.items() if 25 in s]
    said = [f"{n} perfect game{'s' if n != 1 else ''} with {p} players" if i == 0 else f"{n} with {p} players"
            for i, (p, n) in enumerate(counts)]  # fmt: skip
    assert perfect == ", ".join(said)
    assert not any(g.result and g.result.lives_lost == 3 for g in games)
