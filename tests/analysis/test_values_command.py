"""`hanabi-eval values RUN_DIR`: values for the complete games' decisions, resumable, incomplete games skipped."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from harness.analysis.valuation import (
    DecisionTask,
    GamePlan,
    ValuesWriter,
    plan_game,
    plan_run,
    value_decision,
)
from harness.analysis.valuers import value_plans
from harness.cli.main import main
from harness.play.values import MAX_ROLLOUTS
from harness.run.store import RunDir
from harness.schema.log_file import read_game_log
from tests.helpers import DATA, one_line


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    assert (
        main(
            [
                "run",
                "--seeds",
                "1",
                "--players",
                "2",
                "4",
                "--out",
                str(out),
                "--run-name",
                "r",
                "--no-progress",
            ]
        )
        == 0
    )
    return out / "r"


# Values of turns 1, 10, 25, 40 and the last of each game of `run_dir`, at 3 rollouts and --seed 0, written by the
# code before the rollouts were made faster (commit 87479c3): every later version must write the same bytes.
PINNED = DATA / "values-seed1"
PINNED_TURNS = (1, 10, 25, 40, -1)
# Each line is a pure function of its decision (its rollouts are seeded by the game and the turn alone), so a subset
# of the pinned turns, valued on its own, must give exactly those lines of the pinned files. The 4-player game's
# early turns are left out: their rollouts are by far the slowest, and the 2-player game's turn 1 covers full-length
# rollouts from the first move.
CHECKED_TURNS = {"2p-custom-seed1": (1, 25, -1), "4p-custom-seed1": (25, 40, -1)}


def test_values_files_are_byte_identical_to_the_pinned_ones(run_dir: Path, tmp_path: Path) -> None:
    plans, skipped, corrupt = plan_run(RunDir(run_dir), 3, 0)
    assert len(plans) == 2 and not skipped and not corrupt
    logs = [read_game_log(run_dir / "games" / f"{plan.game_id}.jsonl") for plan in plans]
    assert {log.header.game_id for log in logs if log.header is not None} == set(CHECKED_TURNS)
    for log in logs:
        assert log.header is not None
        last = log.moves[-1].turn
        pinned_lines = (PINNED / f"{log.header.game_id}.jsonl").read_bytes().splitlines(keepends=True)
        pinned_turns = [json.loads(line)["turn"] for line in pinned_lines]
        assert pinned_turns == [turn if turn > 0 else last + 1 + turn for turn in PINNED_TURNS]
        wanted = {turn if turn > 0 else last + 1 + turn for turn in CHECKED_TURNS[log.header.game_id]}
        path = tmp_path / f"{log.header.game_id}.jsonl"
        tasks = plan_game(log, {r.turn for r in log.moves} - wanted, 3, 0)
        writer = ValuesWriter({log.header.game_id: path}, tasks)
        for task in tasks:
            writer.add(task, value_decision(task))
        assert writer.written == len(wanted)
        expected = [line for line, turn in zip(pinned_lines, pinned_turns, strict=True) if turn in wanted]
        assert len(expected) == len(wanted)
        assert path.read_bytes() == b"".join(expected)


def test_values_cover_the_late_decisions_resume_and_skip_incomplete_games(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "r"
    shutil.copytree(run_dir, run)
    log_path = run / "games" / "2p-custom-seed1.jsonl"
    (run / "games" / "4p-custom-seed1.jsonl").unlink()
    log = read_game_log(log_path)
    last = log.moves[-1].turn
    # a second game whose result line is missing: unfinished, so it is skipped and named
    unfinished = run / "games" / "2p-unfinished.jsonl"
    header, *rest = log_path.read_bytes().splitlines(keepends=True)[:-1]
    header = header.replace(f'"game_id":"{log_path.stem}"'.encode(), b'"game_id":"2p-unfinished"')
    unfinished.write_bytes(header + b"".join(rest))  # a log is named after the game its header names

    args = ["values", str(run), "--rollouts", "2", "--from-turn", str(last - 2)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "skipping 1 incomplete game(s): 2p-unfinished" in printed
    values_path = run / "values" / f"{log_path.stem}.jsonl"
    lines = [json.loads(line) for line in values_path.read_text().splitlines()]
    assert [line["turn"] for line in lines] == [last - 2, last - 1, last]
    assert not (run / "values" / "2p-unfinished.jsonl").exists()
    for line, record in zip(lines, log.moves[-3:], strict=True):
        assert line["chosen"] == record.move.description and line["rollouts"] == 2
        assert sorted(m["move"] for m in line["moves"]) == sorted(record.legal_moves)
        assert all(m["logged_index"] == record.legal_moves.index(m["move"]) for m in line["moves"])
        assert all(0 <= m["value"] <= 25 and m["se"] is not None for m in line["moves"])
    # on the very last turn nothing follows: a discard or hint is worth the score before that move, exactly
    before_last = log.moves[-2].fireworks_after
    quiet = [m for m in lines[-1]["moves"] if not m["move"].startswith("(Play")]
    assert quiet and all(m["value"] == before_last and m["se"] == 0 for m in quiet)

    # resumable: a torn last line is redone, identically (values are deterministic by seed)
    before = values_path.read_bytes()
    values_path.write_bytes(before[: before.rfind(b"\n", 0, len(before) - 1) + 1] + b'{"game_id": "tor')
    assert main(args) == 0
    assert "1 decision(s) valued, 2 already done" in capsys.readouterr().out
    assert values_path.read_bytes() == before
    assert main(args) == 0
    assert "0 decision(s) valued, 3 already done" in capsys.readouterr().out
    # values made with other settings are refused, never mixed, after the games left out are named
    assert main([*args[:3], "3", *args[4:]]) == 2
    out, err = capsys.readouterr()
    assert "skipping 1 incomplete game(s): 2p-unfinished" in out
    assert f"{values_path} holds values made with --rollouts 2 --seed 0; repeat those options" in err
    assert values_path.read_bytes() == before


@pytest.mark.parametrize("count", ["0", "-3", str(MAX_ROLLOUTS + 1)])
def test_a_rollout_count_outside_the_cap_is_refused_before_any_work(
    run_dir: Path, count: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["values", str(run_dir), "--rollouts", count]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and f"1-{MAX_ROLLOUTS}" in err
    assert not (run_dir / "values").exists()


def test_a_folder_that_is_not_a_run_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["values", str(tmp_path)]) == 2
    assert "not a run directory" in capsys.readouterr().err


def test_the_out_folder_of_runs_is_refused_naming_a_run_in_it(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`values results` after `run --out results`: the run directory is one level down, and the refusal names it."""
    assert main(["values", str(run_dir.parent)]) == 2
    line = one_line(capsys.readouterr().err)
    assert f"{run_dir.parent} holds run directories (1) but is none itself" in line and str(run_dir) in line


def test_two_worker_processes_write_the_bytes_of_one_process(run_dir: Path, tmp_path: Path) -> None:
    runs = []
    for name, extra in (("one", []), ("two", ["--workers", "2"])):
        run = tmp_path / name
        shutil.copytree(run_dir, run)
        (run / "games" / "4p-custom-seed1.jsonl").unlink()
        last = read_game_log(run / "games" / "2p-custom-seed1.jsonl").moves[-1].turn
        argv = ["values", str(run), "--rollouts", "2", "--from-turn", str(last - 3), "--no-progress", *extra]
        assert main(argv) == 0
        runs.append((run / "values" / "2p-custom-seed1.jsonl").read_bytes())
    assert runs[0] == runs[1] and runs[0].count(b"\n") == 4


def test_lines_valued_out_of_order_are_written_in_turn_order(run_dir: Path, tmp_path: Path) -> None:
    """What a cluster does: results arrive in any order, the file only ever holds the game's first decisions."""
    log = read_game_log(run_dir / "games" / "2p-custom-seed1.jsonl")
    tasks = plan_game(log, set(), 1, 0, from_turn=log.moves[-1].turn - 3)
    path = tmp_path / "values.jsonl"
    writer = ValuesWriter({tasks[0].game_id: path}, tasks)
    lines = {task.turn: f'{{"turn": {task.turn}}}\n' for task in tasks}
    assert writer.add(tasks[2], lines[tasks[2].turn]) == 0 and not path.exists()
    assert writer.add(tasks[0], lines[tasks[0].turn]) == 1
    assert writer.add(tasks[3], lines[tasks[3].turn]) == 0 and writer.held == 2
    assert writer.add(tasks[1], lines[tasks[1].turn]) == 3
    assert path.read_text() == "".join(lines[task.turn] for task in tasks)


def test_a_games_file_is_fsynced_once_complete_and_every_file_on_a_stop(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cluster's driver writes hundreds of lines a second: they are fsynced by the batch (a game's file once it is
    complete, and everything written when the valuing stops), not one fsync per line, which bound it to the disk."""
    synced: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(descriptor: int) -> None:
        synced.append(descriptor)
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    log = read_game_log(run_dir / "games" / "2p-custom-seed1.jsonl")
    tasks = plan_game(log, set(), 1, 0, from_turn=log.moves[-1].turn - 9)
    path = tmp_path / "values.jsonl"
    writer = ValuesWriter({tasks[0].game_id: path}, tasks)
    for task in tasks:
        writer.add(task, f'{{"turn": {task.turn}}}\n')
    assert path.read_text().count("\n") == len(tasks) == 10 and len(synced) == 1

    class StoppedAfterThree:
        cpus = 1.0

        def value(self, tasks: list[DecisionTask], writer: ValuesWriter, progress: object) -> None:
            for task in tasks[:3]:
                writer.add(task, f'{{"turn": {task.turn}}}\n')
            raise KeyboardInterrupt

    synced.clear()
    stopped = tmp_path / "stopped.jsonl"
    plan = GamePlan(tasks[0].game_id, stopped, 0, tasks)
    with pytest.raises(KeyboardInterrupt):
        value_plans([plan], StoppedAfterThree(), lambda _: None, lambda _: None)  # type: ignore[arg-type]
    assert stopped.read_text().count("\n") == 3 and len(synced) == 1
