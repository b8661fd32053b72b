"""`hanabi-eval runs` on a folder where something is damaged: the damage is named, the rest is listed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cli.main import main


def test_a_corrupted_finished_log_is_named_and_the_folder_still_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--players", "2", "--seeds", "1,2", "--out", str(tmp_path), "--no-progress"]) == 0
    assert main(["run", "--players", "3", "--seeds", "1", "--out", str(tmp_path), "--no-progress"]) == 0
    damaged = next(tmp_path.glob("*-2p-*/games/2p-custom-seed2.jsonl"))
    lines = damaged.read_bytes().split(b"\n")
    lines[4] = lines[4][: len(lines[4]) // 2]  # one line cut in half in the middle of a finished log
    damaged.write_bytes(b"\n".join(lines))
    capsys.readouterr()
    assert main(["runs", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"corrupt log {damaged} line 5" in out.replace("\n", "")
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == 2
    statuses = {row.split("│")[2].strip(): row.split("│")[3].strip() for row in rows}
    # the run whose finished log is damaged is not shown complete, whatever its last session recorded
    assert sorted(statuses.values()) == ["complete", "damaged"]
    assert "nan" not in out


def test_a_log_moved_in_from_another_run_is_named_however_old_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`runs` reads a log last written before its run's status at its two ends only; a log moved in from another run
    keeps its modification time, and its header still tells it apart."""
    for seed, name in (("1", "a"), ("2", "b")):
        argv = ["run", "--players", "2", "--seeds", seed, "--run-name", name, "--out", str(tmp_path), "--no-progress"]
        assert main(argv) == 0
    moved = tmp_path / "a" / "games" / "2p-custom-seed2.jsonl"
    (tmp_path / "b" / "games" / moved.name).rename(moved)
    older = (tmp_path / "a" / "status.json").stat().st_mtime_ns - 10**9
    os.utime(moved, ns=(older, older))
    capsys.readouterr()
    assert main(["runs", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"corrupt log {moved} line 1: the header is of run b-" in out.replace("\n", "")
    rows = {row.split("│")[1].strip(): row.split("│")[3].strip() for row in out.splitlines() if row.startswith("│")}
    assert rows == {"a": "damaged", "b": "complete"}


def test_an_unreadable_manifest_does_not_hide_the_other_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--players", "2", "--seeds", "1", "--out", str(tmp_path / "a"), "--no-progress"]) == 0
    assert main(["run", "--players", "2", "--seeds", "2", "--out", str(tmp_path / "b"), "--no-progress"]) == 0
    next((tmp_path / "a").glob("*/manifest.json")).write_text("{ not json")
    capsys.readouterr()
    assert main(["runs", str(tmp_path)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("│")]
    assert sorted(row.split("│")[3].strip() for row in rows) == ["complete", "unreadable"]


def test_before_the_first_run_the_listing_says_there_are_none_yet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["runs", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"hanabi-eval: error: {tmp_path / 'results'} does not exist: no runs yet (hanabi-eval run writes them "
        "there), or give the folder that holds your runs"
    )


def test_a_symlinked_run_is_listed_viewed_and_reported_once_and_a_link_loop_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link to a run folder (a run kept on another disk, a curated folder of links) is a run like any other; a
    link back up the tree is searched once, not forever."""
    assert main(["run", "--players", "2", "--seeds", "1", "--out", str(tmp_path / "runs"), "--no-progress"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    links = tmp_path / "links"
    links.mkdir()
    (links / "a").symlink_to(run, target_is_directory=True)
    (links / "up").symlink_to(tmp_path, target_is_directory=True)  # holds links/ itself, and the run again
    capsys.readouterr()
    assert main(["runs", str(links)]) == 0
    rows = [line.split("│")[1].strip() for line in capsys.readouterr().out.splitlines() if line.startswith("│")]
    assert rows == ["a"]
    assert main(["view", str(links), "--out", str(tmp_path / "site")]) == 0
    assert "Wrote the viewer of 1 run and 1 game " in capsys.readouterr().out
    assert main(["report", str(links), "--out", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "games.csv").read_text().count("\n") == 2  # the header and the one game
