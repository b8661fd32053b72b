"""Hostile and careless option values, as a user or an attacker types them: each is refused in one line with exit
code 2 before anything is written or called; a very large run asks first."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.cli.main import main
from tests.helpers import ROOT, read_terminal

THOUSAND_AND_ONE = ",".join(str(seed) for seed in range(1001))


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--run-name", "../../escaped"], "--run-name '../../escaped' is not a plain folder name"),
        (["--run-name", "/tmp/elsewhere"], "--run-name '/tmp/elsewhere' is not a plain folder name"),
        (["--run-name", ""], "--run-name '' is not a plain folder name"),
        (["--run-name", "a/b"], "--run-name 'a/b' is not a plain folder name"),
        (["--run-name", ".."], "--run-name '..' is not a plain folder name"),
        (["--scaffold", "../scaffolds/watson"], "unknown scaffold '../scaffolds/watson'"),  # a run named by a path
        (["--scaffold", str(ROOT / "scaffolds" / "watson")], "unknown scaffold"),  # would be written elsewhere
        (["--model", ""], "--model '' names no model"),  # an unset $MODEL: not the offline player in its place
        (["--model", "local/smart@99999999999999999999ms"], "must be whole milliseconds up to 600,000"),  # a hang
        (["--model", "local/smart@\u00b2ms"], "must be whole milliseconds up to 600,000"),  # isdigit() but no int
        (["--timeout", "nan"], "--timeout nan must be a finite number of seconds above 0"),
        (["--timeout", "inf"], "--timeout inf must be a finite number of seconds above 0"),
        (["--timeout", "-1"], "--timeout -1.0 must be a finite number of seconds above 0"),
        (["--retry-wait-max", "nan"], "--retry-wait-max nan must be a finite number of seconds above 0"),
        (["--retry-wait", "inf"], "--retry-wait inf must be a finite number, 0 or more"),
        (["--max-retries", "-1"], "--max-retries -1 must be a whole number, 0 or more"),
        (["--provider-retries", "-1"], "--provider-retries -1 must be a whole number, 0 or more"),
        (["--temperature", "nan"], "--temperature nan is outside 0-2"),
        # contradictory limits: a re-ask after a cut-off reply with a smaller limit, a first wait above the longest
        (
            ["--max-tokens", "1000", "--max-tokens-on-truncation", "500"],
            "--max-tokens-on-truncation 500 is below --max-tokens 1000",
        ),
        (["--retry-wait", "200"], "(--retry-wait 200) is longer than the longest (120 s, the default of"),
        (["--retry-wait", "5", "--retry-wait-max", "1"], "give a --retry-wait-max of at least 5"),
        (["--workers", "100000"], "--workers 100000 is more than 4 processes per core"),
        (
            ["--seat", "local/smart,timeout=inf", "--seat", "local/smart"],
            "timeout inf must be a finite number",
        ),
        # a built-in player is served from no URL: an --api-base given for it was recorded and meant nothing
        (["--api-base", "http://127.0.0.1:9/v1"], "local/smart is a built-in player, played in this process"),
        (
            ["--seat", "local/smart,api_base=http://127.0.0.1:9/v1", "--seat", "local/cautious"],
            "drop --api-base (or the seat's api_base=) for it",
        ),
        # rotation decides nothing in self-play, so it may not make a second run of the same games
        (["--rotation", "all"], "--rotation all: every seat is the same player, so the seating changes nothing"),
        (["--seat", "local/smart", "--seat", "local/smart", "--rotation", "off"], "--rotation off: every seat is"),
        (  # beside a seat of the same model without one
            ["--seat", "local/smart,api_base=http://127.0.0.1:9/v1", "--seat", "local/smart"],
            "drop --api-base (or the seat's api_base=) for it",
        ),
        # the table page's options where no seat is human: there is no page to serve
        (["--host", "0.0.0.0"], "--host serves the table page of a human seat (--seat human:NAME), and no seat"),
        (["--port", "8000", "--open"], "--port and --open serve the table page of a human seat"),
    ],
)
def test_a_hostile_value_is_refused_in_one_line_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], named: str
) -> None:
    out = tmp_path / "results"
    assert main(["run", "--seeds", "1", "--out", str(out), "--no-progress", *options]) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_resume_refuses_a_nan_wait_before_playing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--seeds", "1", "--out", str(tmp_path), "--no-progress"]) == 0
    run_dir = next(tmp_path.iterdir())
    assert main(["resume", str(run_dir), "--retry-wait-max", "nan"]) == 2
    assert "--retry-wait-max nan must be a finite number" in capsys.readouterr().err
    assert main(["resume", str(run_dir), "--retry-wait", "500"]) == 2
    err = capsys.readouterr().err
    assert "(120 s, retry.wait_max_s in the run's record)" in err and "--retry-wait-max of at least 500" in err


def test_a_sweep_named_dot_dot_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = tmp_path / "up.toml"
    sweep.write_text(
        'name = ".."\nplayers = [2]\nseeds = ["1"]\nscaffolds = ["watson"]\n'
        '[[models]]\nmodel = "local/smart"\n'
    )
    assert main(["run", "--config", str(sweep), "--out", str(tmp_path / "out")]) == 2
    assert 'up.toml: name: ".." is not a plain folder name; use letters, digits and . _ + -' in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_over_a_thousand_games_without_a_terminal_are_refused_unless_yes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--seeds", THOUSAND_AND_ONE, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "1,001 games to play (about 67,067 model calls before retries); add --yes" in err
    assert not (tmp_path / "out").exists()


def test_a_list_flag_given_twice_takes_both_lists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--players 2 --players 3` is `--players 2 3`, not the last alone (counted here before any game is dealt)."""
    argv = ["run", "--players", "2", "--players", "3", "--seeds", THOUSAND_AND_ONE, "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    assert "2,002 games to play" in capsys.readouterr().err


def test_over_a_thousand_games_at_a_terminal_asks_first(tmp_path: Path) -> None:
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [
            sys.executable, "-m", "harness.cli", "run", "--seeds", THOUSAND_AND_ONE, "--out", str(tmp_path / "o"),
        ],
        cwd=ROOT,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
    )
    os.close(terminal)
    asked = b""
    deadline = time.monotonic() + 60
    while b"Start? [y/N]" not in asked:
        assert time.monotonic() < deadline and process.poll() is None, asked
        ready, _, _ = select.select([controller], [], [], 1.0)
        if ready:
            asked += os.read(controller, 1024)
    assert b"1,001 games to play" in asked
    os.write(controller, b"n\n")
    answered = read_terminal(controller)
    process.wait(timeout=60)
    os.close(controller)
    assert process.returncode == 2 and b"not started" in answered
    assert not (tmp_path / "o").exists()


def test_yes_starts_a_large_run(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [
            sys.executable, "-m", "harness.cli", "run", "--seeds", THOUSAND_AND_ONE, "--yes", "--no-progress", "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 90
    while not list(tmp_path.glob("*/games/*.jsonl")):
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert "1,001 games" in out and process.returncode == 130, err


def test_a_seat_refusal_names_the_flag_that_set_the_other_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--max-tokens-on-truncation is a flag, not a seat setting: the refusal says so."""
    argv = ["run", "--seeds", "1", "--seat", "local/smart,max_tokens=500", "--seat", "local/smart"]
    assert main([*argv, "--max-tokens-on-truncation", "100", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "--max-tokens-on-truncation 100 is below --seat 'local/smart,max_tokens=500': max_tokens 500" in err


def test_a_sweep_file_with_contradictory_waits_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        'name = "w"\nplayers = [2]\nseeds = ["1"]\nscaffolds = ["watson"]\n[retry]\nwait_base_s = 200.0\n'
        '[[models]]\nmodel = "local/smart"\n'
    )
    assert main(["run", "--config", str(sweep), "--out", str(tmp_path / "r"), "--no-progress"]) == 2
    assert "(200 s, retry.wait_base_s in the sweep file)" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
