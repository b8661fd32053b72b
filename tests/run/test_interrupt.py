"""Ctrl-C, as a user presses it: real subprocesses of `hanabi-eval run` and real SIGINTs to their process group.

The first press stops the run with one line naming the resume command and exit code 130, the status says
"stopped" and counts the games completed in every session; a second press exits at once. Either way the run
resumes to the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.schema.log_file import last_result, read_game_log
from tests.fakeserver import FakeModelServer, Reply, careful_player
from tests.helpers import ROOT, assert_whole_logs
from tests.processes import wait_until_group_gone

SLOW = ["--model", "local/smart@25ms", "--players", "2", "3", "--seeds", "1,2", "--no-progress"]
GAMES = 4
TO_THE_END = ["--concurrency", str(GAMES)]  # a resume in this process plays every game left at once


def start(out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", *SLOW, "--out", str(out), *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


def finished_games(out: Path) -> int:
    """Games whose log ends with their result (a `stopped` line, from a move a stop cut short, is none)."""
    return sum(1 for p in out.glob("*/games/*.jsonl") if last_result(p) is not None)


def moves_logged(out: Path) -> int:
    return sum(p.read_bytes().count(b'{"type":"move"') for p in out.glob("*/games/*.jsonl"))


def wait_until(  # type: ignore[no-untyped-def]
    condition, process: subprocess.Popen[str], limit_s: float = 90, poll_s: float = 0.05
) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run did not get there in time"
        time.sleep(poll_s)


def ctrl_c(process: subprocess.Popen[str], presses: int = 1) -> tuple[int, str, str]:
    for press in range(presses):
        if press:
            time.sleep(0.5)  # a hand's second press (one within SAME_STOP_S is the same stop delivered twice)
        # what the terminal does: every process of the foreground group (a second press may find the run ended)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    return process.returncode, out, err


def status_of(out: Path) -> dict:
    return json.loads(next(out.glob("*/status.json")).read_text())


def resume_command(err: str) -> list[str]:
    command = err.strip().split("continue with: ", 1)[1]
    argv = shlex.split(command)
    assert argv[:2] == ["hanabi-eval", "resume"]
    return [sys.executable, "-m", "harness.cli", *argv[1:], "--no-progress"]


def test_ctrl_c_stops_with_one_line_and_the_resume_command_counts_every_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    process = start(tmp_path, "--concurrency", "2", "--workers", "2")  # Ctrl-C reaches the workers too
    wait_until(lambda: finished_games(tmp_path) >= 1, process)
    code, _, err = ctrl_c(process)
    assert code == 130
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("Stopped by Ctrl-C")
    run_dir = next(tmp_path.iterdir())
    assert f"continue with: hanabi-eval resume {run_dir}" in err
    first = status_of(tmp_path)
    done_first = finished_games(tmp_path)
    assert first["status"] == "stopped" and first["games_complete"] == done_first >= 1
    assert first["games_total"] == GAMES
    assert_whole_logs(tmp_path)

    # a second session, stopped too: the status counts the games of both sessions
    second = subprocess.Popen(
        [*resume_command(err)[:-1], "--concurrency", "2", "--no-progress"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    wait_until(lambda: finished_games(tmp_path) > done_first, second)
    code, _, err = ctrl_c(second)
    # 130 and one line; or 0 when the session played its last games out before the press reached it
    assert (code, len(err.strip().splitlines())) in ((130, 1), (0, 0)), err
    assert status_of(tmp_path)["games_complete"] == finished_games(tmp_path) > done_first
    assert_whole_logs(tmp_path)
    capsys.readouterr()
    assert main(["runs", str(tmp_path)]) == 0
    listed = capsys.readouterr().out
    row = next((line for line in listed.splitlines() if run_dir.name in line), None)
    assert row is not None, listed
    # "stopped"; or "complete" when the second session played its last games out as the stop reached it
    status = status_of(tmp_path)["status"]
    assert status in ("stopped", "complete"), status
    cells = [cell.strip() for cell in row.split("│")]
    assert cells[cells.index(status) + 1] == str(finished_games(tmp_path)), listed  # the "done" column

    if status == "stopped":  # the printed command, in this process
        assert main([*resume_command(err)[3:], *TO_THE_END]) == 0
    assert status_of(tmp_path)["status"] == "complete" and status_of(tmp_path)["games_complete"] == GAMES
    assert_whole_logs(tmp_path)


def loading_the_command_line(pid: int) -> bool:
    """Whether the process holds Ctrl-C back (cli/entry.py does while it imports the command line)."""
    status = Path(f"/proc/{pid}/status").read_text()
    blocked = int(next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16)
    return bool(blocked & (1 << (signal.SIGINT - 1)))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's signal mask from /proc")
@pytest.mark.parametrize("after", [0.0, 0.05, 0.1, 0.2])
def test_ctrl_c_while_the_command_line_loads_is_one_line_and_exit_130(tmp_path: Path, after: float) -> None:
    """A press while the command line is still being imported ends the command like any other: one line, exit code
    130, no traceback. (A press that interrupted code a dataclass runs through exec() used to end the process by
    SIGINT, status -2, after the line.)"""
    process = start(tmp_path / "out")
    wait_until(lambda: loading_the_command_line(process.pid), process, poll_s=0.001)
    time.sleep(after)  # somewhere in the import, which takes about half a second
    code, _, err = ctrl_c(process)
    assert "Traceback" not in err, err
    assert code == 130 and len(err.strip().splitlines()) == 1, err


def test_a_second_ctrl_c_exits_at_once_and_the_workers_stop_writing(tmp_path: Path) -> None:
    process = start(tmp_path, "--workers", "2")
    wait_until(lambda: moves_logged(tmp_path) >= 20, process)
    code, _, err = ctrl_c(process, presses=2)
    assert code == 130 and "Traceback" not in err, err
    assert "hanabi-eval resume" in err.strip().splitlines()[-1]
    wait_until_group_gone(process.pid)  # no worker is left to go on writing
    assert main([*resume_command(err)[3:], *TO_THE_END]) == 0
    assert_whole_logs(tmp_path)
    assert status_of(tmp_path)["games_complete"] == GAMES


def test_sigterm_stops_like_the_first_ctrl_c_and_says_so(tmp_path: Path) -> None:
    """A plain `kill` (a job scheduler's or a container's stop): one line, status stopped, exit 130, resumable."""
    process = start(tmp_path, "--concurrency", "2")
    wait_until(lambda: finished_games(tmp_path) >= 1, process)
    process.send_signal(signal.SIGTERM)  # to the run alone, as `kill PID` does
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("Stopped by SIGTERM: ") and "games complete; continue with: hanabi-eval resume" in err
    status = status_of(tmp_path)
    assert status["status"] == "stopped" and status["games_complete"] == finished_games(tmp_path) >= 1
    assert_whole_logs(tmp_path)
    assert main([*resume_command(err)[3:], *TO_THE_END]) == 0
    assert status_of(tmp_path)["games_complete"] == GAMES


def test_timeout_s_sigterm_to_the_run_and_its_group_is_one_stop_that_stops_the_workers(tmp_path: Path) -> None:
    process = start(tmp_path, "--workers", "2")
    wait_until(lambda: moves_logged(tmp_path) >= 20, process)
    # as GNU `timeout` stops a command: SIGTERM to it, then to every process of its group, workers included; the
    # run takes the second as the same stop (10 ms apart here, so that the kernel does not merge the two)
    process.send_signal(signal.SIGTERM)
    time.sleep(0.01)
    os.killpg(process.pid, signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("Stopped by SIGTERM")
    assert status_of(tmp_path)["status"] == "stopped"
    assert_whole_logs(tmp_path)


def test_replies_already_answered_for_the_move_in_flight_are_kept_when_the_run_is_stopped(tmp_path: Path) -> None:
    """A move re-asked after a bad reply, stopped while the re-ask is in flight: the bad reply is in the log (a
    `stopped` line, not a result: the game stays unfinished) and counted after the resume, as the server sent it."""
    slow = threading.Event()
    slow.set()
    bad_sent: list[int] = []

    def script(request: dict[str, Any]) -> Reply:
        if len(request["messages"]) > 2:  # a re-ask: slow until the run has been stopped
            return Reply(careful_player(request).content, delay_s=30.0 if slow.is_set() else 0.0)
        if not bad_sent:
            bad_sent.append(1)
            return Reply("I would rather not say.")
        return careful_player(request)

    with FakeModelServer(script) as server:
        process = subprocess.Popen(
            [sys.executable, "-m", "harness.cli", "run", "--model", "openai/slow", "--api-base", server.base_url,
             "--seeds", "1", "--out", str(tmp_path), "--no-progress"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        wait_until(lambda: any(len(e.request["messages"]) > 2 for e in server.exchanges), process)
        code, _, err = ctrl_c(process)
        assert code == 130, err
        assert "0 of 1 games complete" in err  # the stopped line is no result
        slow.clear()
        (log_path,) = tmp_path.glob("*/games/*.jsonl")
        stopped = read_game_log(log_path)
        assert stopped.result is None and not stopped.complete  # unfinished, as before the line
        (line,) = stopped.results
        assert line.status == "stopped" and line.turns == 0
        assert [a.error_kind for c in line.failed_calls for a in c.attempts] == ["unparseable"]
        assert main(["resume", str(log_path.parent.parent), "--no-progress"]) == 0
        asked = len(server.exchanges)
    done = read_game_log(log_path)
    assert done.complete and done.result is not None
    assert done.result.invalid_replies == len(bad_sent) == 1
    logged = sum(len(c.attempts) for m in done.moves for c in m.calls) + sum(
        len(c.attempts) for c in done.failed_calls
    )
    assert logged == asked - 1  # every request the server answered; the one cut off by the stop sent nothing back


def test_python_dash_m_ends_with_the_command_s_code_after_a_press_left_exec_ed_code(tmp_path: Path) -> None:
    """`python -m harness.cli` keeps its command's exit code after a Ctrl-C whose KeyboardInterrupt left code that
    exec() ran (a dataclass defined by a lazy import), where CPython would otherwise end the process by SIGINT."""
    (tmp_path / "pressed_in_an_import.py").write_text(
        "import runpy\n"
        "import harness.cli.main  # the command line loaded, as by the time a session starts\n"
        "try:\n"
        "    exec('raise KeyboardInterrupt')  # the press, as it lands while an import defines a dataclass\n"
        "except KeyboardInterrupt:\n"
        "    pass\n"
        "runpy.run_module('harness.cli', run_name='__main__')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "pressed_in_an_import", "--version"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("hanabi-eval")
