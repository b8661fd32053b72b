"""Crash safety and exact resume, with real subprocesses and real signals.

A run of concurrent games with a deliberately slow deterministic model is SIGKILLed at random moments and
continued each time; the final logs equal an uninterrupted run's, move for move. Torn last lines, a second writer,
a stale lock and a log that does not replay are handled as a user would expect.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from tests.helpers import ROOT, finished
from tests.processes import wait_until_group_gone

SLOW = ["--model", "local/smart@25ms", "--players", "2", "3", "--seeds", "1,2,3", "--concurrency", "6"]


def start(out: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", *SLOW, "--out", str(out), "--no-progress", *extra],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def moves_logged(out: Path) -> int:
    return sum(len(p.read_bytes().splitlines()) for p in out.glob("*/games/*.jsonl"))


def wait_for_moves(out: Path, at_least: int, process: subprocess.Popen[bytes], limit_s: float = 60) -> None:
    deadline = time.monotonic() + limit_s
    while moves_logged(out) < at_least:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        assert time.monotonic() < deadline, "the run logged no moves in time"
        time.sleep(0.05)


def comparable(path: Path) -> dict[str, Any]:
    """A game log without what legitimately differs between two runs: times, latencies, run ids."""
    contents = read_game_log(path)
    assert not contents.torn
    header = contents.header.model_dump(exclude={"run_id", "started_at"})
    moves = []
    for record in contents.moves:
        data = record.model_dump(mode="json")
        for call in data["calls"]:
            for attempt in call["attempts"]:
                attempt.pop("latency_s")
        moves.append(data)
    result = contents.result.model_dump(mode="json", exclude={"finished_at"})
    return {"header": header, "moves": moves, "result": result, "results": len(contents.results)}


def game_logs(out: Path) -> dict[str, Path]:
    return {p.name: p for p in sorted(out.glob("*/games/*.jsonl"))}


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An uninterrupted run, played once; tests that change it work on a copy."""
    out = tmp_path_factory.mktemp("reference")
    assert main(["run", *SLOW, "--out", str(out), "--no-progress"]) == 0
    (run_dir,) = out.iterdir()
    return run_dir


@pytest.fixture(scope="module")
def reference(reference_run: Path) -> dict[str, dict[str, Any]]:
    return {name: comparable(path) for name, path in game_logs(reference_run.parent).items()}


def test_sigkill_at_random_moments_then_resume_gives_the_uninterrupted_logs(
    tmp_path: Path, reference: dict[str, dict[str, Any]]
) -> None:
    rng = random.Random(2026)
    kills = 0
    for _ in range(3):  # each start imports LiteLLM anew: three kills are enough
        process = start(tmp_path)
        wait_for_moves(tmp_path, moves_logged(tmp_path) + 5, process)
        time.sleep(rng.uniform(0.0, 0.6))
        if process.poll() is not None:
            break
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        kills += 1
    assert kills == 3
    status = json.loads(next(tmp_path.glob("*/status.json")).read_text())
    assert status["status"] == "running"  # written by the killed process, which never got to say otherwise
    assert main(["resume", str(next(tmp_path.iterdir())), "--no-progress"]) == 0
    resumed = {name: comparable(path) for name, path in game_logs(tmp_path).items()}
    assert resumed.keys() == reference.keys()
    for name in reference:
        assert resumed[name] == reference[name], name
        turns = [m["turn"] for m in resumed[name]["moves"]]
        assert turns == list(range(1, len(turns) + 1))  # no move missing, none twice
    manifest = json.loads(next(tmp_path.glob("*/manifest.json")).read_text())
    assert len(manifest["sessions"]) == kills + 1


def test_a_log_whose_last_line_was_cut_in_half_resumes_cleanly(
    tmp_path: Path, reference_run: Path, reference: dict[str, dict[str, Any]]
) -> None:
    # a finished run, as the same command leaves it
    shutil.copytree(reference_run, tmp_path / reference_run.name)
    path = game_logs(tmp_path)["3p-custom-seed2.jsonl"]
    lines = path.read_bytes().splitlines(keepends=True)
    # drop the result line and tear the last move line in half, as a crash mid-write would
    path.write_bytes(b"".join(lines[:-2]) + lines[-2][: len(lines[-2]) // 2])
    assert read_game_log(path).torn
    run_dir = next(tmp_path.iterdir())
    assert main(["resume", str(run_dir), "--no-progress"]) == 0
    assert comparable(path) == reference["3p-custom-seed2.jsonl"]


def test_a_second_process_is_refused_and_a_killed_ones_lock_is_taken_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    process = start(tmp_path)
    try:
        wait_for_moves(tmp_path, 3, process)
        assert main(["run", *SLOW, "--out", str(tmp_path), "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert f"is being written by process {process.pid}" in err and len(err.strip().splitlines()) == 1
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    run_dir = next(tmp_path.iterdir())
    capsys.readouterr()
    assert main(["runs", str(tmp_path)]) == 0
    assert "stopped" in capsys.readouterr().out
    assert main(["run", *SLOW, "--out", str(tmp_path), "--no-progress"]) == 0
    sessions = json.loads((run_dir / "manifest.json").read_text())["sessions"]
    assert sessions[-1]["took_over_lock_of"]["pid"] == process.pid


def one_game_played(out: Path) -> tuple[Path, list[bytes]]:
    """The log of one finished 2-player game played into `out`, and its lines."""
    assert main(["run", "--players", "2", "--seeds", "1", "--out", str(out), "--no-progress"]) == 0
    (path,) = game_logs(out).values()
    return path, path.read_bytes().splitlines(keepends=True)


def test_a_log_that_does_not_replay_is_refused_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, lines = one_game_played(tmp_path)
    record = json.loads(lines[5])
    record["digest_after"] = "0" * 16
    tampered = b"".join(lines[:5]) + json.dumps(record).encode() + b"\n" + b"".join(lines[6:8])
    path.write_bytes(tampered)
    assert main(["resume", str(path.parent.parent), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "turn 5: the rebuilt state does not match the logged state digest" in err
    assert path.read_bytes() == tampered  # nothing written


def test_an_unfinished_log_with_a_repeated_move_line_is_refused_naming_the_file_and_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, lines = one_game_played(tmp_path)
    damaged = b"".join(lines[:8]) + lines[7]  # header and turns 1-7, turn 7 twice, no result: to be continued
    path.write_bytes(damaged)
    assert main(["resume", str(path.parent.parent), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{path}:9: move line out of sequence: expected the move of turn 8 by seat 1, found turn 7 again" in err
    assert "restore the log from a backup, or move it aside" in err
    assert path.read_bytes() == damaged  # nothing written, nothing repaired


def test_resume_needs_a_run_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resume", str(tmp_path)]) == 2
    assert "is not a run directory" in capsys.readouterr().err


def test_killing_the_parent_stops_its_workers_and_the_run_resumes(
    tmp_path: Path, reference: dict[str, dict[str, Any]]
) -> None:
    process = start(tmp_path, "--workers", "2")
    wait_for_moves(tmp_path, 20, process)
    os.kill(process.pid, signal.SIGKILL)  # the parent only: the workers must not go on writing
    process.wait()
    wait_until_group_gone(process.pid)  # the orphaned workers stop by themselves: none is left to write
    # resumed by a process of its own, as a user would: this one's workers may have to be spawned (test_workers.py)
    resumed = finished(["resume", str(next(tmp_path.iterdir())), "--workers", "2", "--no-progress"])
    assert resumed.returncode == 0, resumed.stderr
    # the games, spread over the workers of both sessions, logged the moves of an uninterrupted run in one process
    assert {name: comparable(path) for name, path in game_logs(tmp_path).items()} == reference
    status = json.loads(next(tmp_path.glob("*/status.json")).read_text())
    assert status["status"] == "complete" and status["games_complete"] == len(reference)


def held_by_a_worker_of_a_dead_run(run_dir: Path) -> tuple[int, subprocess.Popen[str]]:
    """A run's lock file naming a process that has exited, and still held by another process, as by a worker forked
    before the kill: (the dead holder's pid, the worker, which lets go of the lock when its stdin closes)."""
    from harness.run.lock import LOCK_FILE

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock = run_dir / LOCK_FILE
    lock.write_text(json.dumps({"pid": dead.pid, "host": os.uname().nodename, "since": "then"}))
    worker = subprocess.Popen(
        [sys.executable, "-c", f"import fcntl, os, sys\nfd = os.open({str(lock)!r}, os.O_RDWR)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\nsys.stdin.readline()\n"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert worker.stdout is not None and worker.stdout.readline() == "held\n"
    return dead.pid, worker


def test_a_dead_runs_lock_still_held_by_its_exiting_workers_is_taken_once_they_are_gone(tmp_path: Path) -> None:
    """A killed run's workers share its lock until they exit: a resume at once waits for them, never refuses."""
    from harness.run.lock import RunLock

    dead, worker = held_by_a_worker_of_a_dead_run(tmp_path)
    assert worker.stdin is not None
    exits = threading.Timer(0.3, worker.stdin.close)  # the worker exits in 0.3 s
    began = time.monotonic()
    exits.start()
    taken = RunLock(tmp_path).acquire()
    try:
        assert time.monotonic() - began >= 0.3  # taken only once the worker let go of it
        assert taken.previous_holder is not None and taken.previous_holder["pid"] == dead
    finally:
        taken.release()
        exits.join()
        worker.wait(timeout=10)


def test_a_dead_runs_lock_held_on_by_a_stuck_worker_is_refused_naming_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.run import lock as lock_module

    monkeypatch.setattr(lock_module, "ORPHANS_EXIT_S", 0.2)  # not five seconds of a test's time
    dead, stuck = held_by_a_worker_of_a_dead_run(tmp_path)
    try:
        with pytest.raises(lock_module.Refused, match=f"the worker processes of process {dead} on .*, which has"):
            lock_module.RunLock(tmp_path).acquire()
    finally:
        assert stuck.stdin is not None
        stuck.stdin.close()
        stuck.wait(timeout=10)


def test_a_finished_games_result_line_cut_by_its_line_break_is_written_again_by_resume(tmp_path: Path) -> None:
    """A write cut one byte short leaves the result line without its line break: a torn line, which every reader
    ignores. Resume must see the game as unfinished and write its result again, so that it counts and exports."""
    assert main(["run", "--model", "local/smart", "--seeds", "1", "--out", str(tmp_path), "--no-progress"]) == 0
    (run_dir,) = list(tmp_path.iterdir())
    (log,) = list((run_dir / "games").glob("*.jsonl"))
    whole = log.read_bytes()
    log.write_bytes(whole[:-1])
    assert read_game_log(log).result is None  # torn: not a result
    assert main(["resume", str(run_dir), "--no-progress"]) == 0
    repaired = log.read_bytes()
    assert repaired.endswith(b"\n") and repaired.count(b'\n{"type":"result"') == 1  # the torn line cut off
    contents = read_game_log(log)
    assert contents.complete and contents.result is not None and contents.result.status == "complete"
    out = tmp_path.parent / f"{tmp_path.name}-export"
    assert main(["export", str(run_dir), "--format", "hanabilogs", "--out", str(out)]) == 0


def test_an_interrupted_then_continued_log_reads_back_in_its_own_line_order(tmp_path: Path) -> None:
    """What the Inspect task and importer write comes from GameLogContents.records(): the interruption's result
    line stays between the moves before and after it, as in the log."""
    from tests.fakeserver import FakeModelServer, Reply, careful_player

    asked: list[int] = []

    def fails_once(request: dict[str, Any]) -> Reply:
        asked.append(1)
        return Reply(status=500) if len(asked) == 6 else careful_player(request)

    out = tmp_path / "runs"
    with FakeModelServer(fails_once) as server:
        base = ["--model", "openai/x", "--api-base", server.base_url, "--provider-retries", "0", "--no-progress"]
        assert main(["run", *base, "--seeds", "1", "--out", str(out)]) == 1
        (run_dir,) = list(out.iterdir())
        assert main(["resume", str(run_dir), "--no-progress"]) == 0
    (log,) = list((run_dir / "games").glob("*.jsonl"))
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds.count("result") == 2 and kinds.index("result") == 6  # header, 5 moves, the interruption
    contents = read_game_log(log)
    assert contents.complete
    assert [r.model_dump(mode="json") for r in contents.records()] == lines[1:]
