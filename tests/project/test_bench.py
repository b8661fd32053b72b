"""Every benchmark script runs on the current code: each script in bench/ (found by its `__main__` block, so a new
script is covered the day it lands) plays its `--quick` mode to the end, and refuses a nonsense option in one line
with exit code 2. Marked `bench`: `.ci/run` runs them as a step of their own (`pytest -m "bench or build"`), beside
the suite.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT

SCRIPTS = sorted(p.name for p in (ROOT / "bench").glob("*.py") if 'if __name__ == "__main__":' in p.read_text())

pytestmark = pytest.mark.bench


def bench(script: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_scripts_are_found() -> None:
    assert {"throughput.py", "overhead.py", "resume_cost.py", "tokens.py", "delay_server.py"} <= set(SCRIPTS)
    assert "options.py" not in SCRIPTS and "parallel.py" not in SCRIPTS  # helpers, not scripts


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_script_runs_its_quick_mode(script: str) -> None:
    done = bench(script, "--quick")
    assert done.returncode == 0, f"{script} --quick exited {done.returncode}:\n{done.stderr[-4000:]}"
    assert done.stdout.strip(), f"{script} --quick printed nothing"


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_script_refuses_an_unknown_option_in_one_line(script: str) -> None:
    done = bench(script, "--quick", "--no-such-option")
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "--no-such-option" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not done.stdout


@pytest.mark.parametrize(
    ("script", "args", "named"),
    [
        ("throughput.py", ["--games", "0"], "--games"),
        ("throughput.py", ["--workers", "0"], "--workers"),
        ("throughput.py", ["--delay-ms", "-5"], "--delay-ms"),
        ("throughput.py", ["--via", "carrier-pigeon"], "--via"),
        ("overhead.py", ["--seeds", "1;2"], "--seeds"),
        ("overhead.py", ["--players", "7"], "--players"),
        ("resume_cost.py", ["--repeat", "0"], "--repeat"),
        ("tokens.py", ["--scaffolds", "nonesuch"], "--scaffolds"),
        ("prompt_cache.py", ["--players", "6"], "--players"),
        ("delay_server.py", ["--port", "70000"], "--port"),
        ("bot_paired.py", ["--seeds", "9-3"], "--seeds"),
        ("bot_paired.py", ["--variant", "NO_SUCH_RULE=1"], "NO_SUCH_RULE"),
        ("bot_paired.py", ["--variant", "MISREAD_PENALTY=0.3"], "MISREAD_PENALTY"),
        ("bot_paired.py", ["--variant", "rev=no-such-commit"], "no-such-commit"),
    ],
)
def test_nonsense_values_are_refused_in_one_line(script: str, args: list[str], named: str) -> None:
    done = bench(script, *args)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and named in done.stderr, done.stderr


def test_the_rollout_profile_that_benchmarks_md_quotes_runs() -> None:
    """BENCHMARKS.md section 6 reads the play-out's shares from `rollout_values.py --profile`."""
    done = bench("rollout_values.py", "--quick", "--profile")
    assert done.returncode == 0, done.stderr[-4000:]
    assert "rollout_scores" in done.stdout and "play_view" in done.stdout


def test_the_step_costs_that_benchmarks_md_quotes_run() -> None:
    """BENCHMARKS.md section 6 reads the play-out step's layers from `rollout_values.py --step-costs`: one row per
    player count, each layer costing more than the one below it."""
    done = bench("rollout_values.py", "--quick", "--step-costs", "1")
    assert done.returncode == 0, done.stderr[-4000:]
    row = done.stdout.strip().splitlines()[-1].split()
    assert row[0] == "2" and int(row[1]) > 0
    alone, viewed, full = map(float, row[2:5])
    assert 0 < alone < viewed < full
