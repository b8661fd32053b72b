"""Output to a closed pipe (`hanabi-eval run ... | head -1`) is not a disk fault: the command does all its work (the
games are played and logged, the report and the export are written), exits with the code that work earns, and says
nothing about disks. Real subprocesses whose stdout pipe is closed by its reader before they print."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.schema.log_file import read_game_log
from tests.helpers import command


def with_reader_gone(*args: str) -> tuple[int, str]:
    """Run hanabi-eval with its stdout a pipe whose reader has already gone, as after `| head -1`."""
    process = command(list(args))
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read()
    return process.wait(timeout=300), err


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("piped") / "results"
    code, err = with_reader_gone("run", "--seeds", "1,2", "--out", str(out), "--no-progress")
    assert (code, err) == (0, "")
    return out


def test_a_run_piped_into_a_closed_reader_plays_and_logs_every_game(played: Path) -> None:
    (run,) = played.iterdir()
    games = [read_game_log(path) for path in sorted((run / "games").glob("*.jsonl"))]
    assert len(games) == 2 and all(g.result is not None and g.result.status == "complete" for g in games)
    assert json.loads((run / "status.json").read_text())["status"] == "complete"


@pytest.mark.parametrize(
    ("command", "written"),
    [
        (["report", "{runs}", "--out", "{out}"], ["report.html", "report.md", "games.csv"]),
        (["export", "{runs}", "--format", "hanabilogs", "--out", "{out}"], ["hanabilogs.jsonl", "README.md"]),
    ],
)
def test_report_and_export_into_a_closed_reader_write_everything(
    played: Path, tmp_path: Path, command: list[str], written: list[str]
) -> None:
    out = tmp_path / "out"
    code, err = with_reader_gone(*(part.format(runs=played, out=out) for part in command))
    assert (code, err) == (0, "")
    assert all((out / name).stat().st_size > 0 for name in written)
