"""A team's name in the report does not depend on the seat order of one game: with seat rotation every game of a
team is counted in one row, by model and scaffold and by seat line-up alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.report.grouping import lineup_of, models_of, scaffolds_of
from harness.schema.records import SeatConfig


@pytest.fixture(scope="module")
def rotated_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rotated")
    seats = ["--seat", "local/smart:watson", "--seat", "local/cautious:sherlock"]
    assert main(["run", *seats, "--seeds", "1,2", "--out", str(out / "runs"), "--no-progress"]) == 0
    return out


@pytest.mark.parametrize(
    ("by", "group"),
    [
        ([], "local/cautious + local/smart · sherlock + watson"),
        (["--by", "seats"], "local/cautious:sherlock | local/smart:watson"),
        (["--by", "seats", "--by", "players"], "local/cautious:sherlock | local/smart:watson · 2p"),  # both --by
    ],
)
def test_every_rotation_of_a_team_is_one_report_row(rotated_runs: Path, by: list[str], group: str) -> None:
    report = rotated_runs / ("report-" + "-".join(by))
    assert main(["report", str(rotated_runs / "runs"), "--out", str(report), *by]) == 0
    rows = json.loads((report / "summary.json").read_text())
    assert [(row["group"], row["games"]) for row in rows] == [(group, 2)]


def test_a_seating_with_other_neighbours_stays_its_own_line_up() -> None:
    a, b, c = (SeatConfig(model=f"local/{name}", scaffold="watson") for name in ("a", "b", "c"))
    assert lineup_of([b, c, a]) == lineup_of([c, a, b]) == lineup_of([a, b, c]) != lineup_of([a, c, b])
    assert models_of([b, a, b]) == models_of([a, b]) == "local/a + local/b"
    assert scaffolds_of([b, a]) == "watson"
