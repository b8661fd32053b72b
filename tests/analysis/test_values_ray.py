"""`hanabi-eval values --ray ADDRESS` against a real Ray cluster on this machine (two CPUs, 127.0.0.1).

One cluster serves the whole module (starting one takes seconds). The values files made through it are the bytes of
a run in one process and of the pinned files, even when a worker is killed mid-run; Ctrl-C keeps every line written
and names the command to go on; an address where no cluster answers, or a missing ray package, is one line and exit
code 2 with nothing written.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from tests.helpers import DATA, ROOT

PINNED = DATA / "values-seed1"
GAME = "2p-custom-seed1"
ROLLOUTS = "3"  # the pinned files' settings (with --seed 0)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A Ray head on 127.0.0.1 with two CPUs, owned by this test process; its GCS address."""
    context = ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
        _node_ip_address="127.0.0.1",
        _system_config={"worker_niceness": 0},  # as values --ray's own instance: a busy machine must not starve it
    )
    try:
        yield str(context.address_info["gcs_address"])
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-game run (2 players, seed 1: the pinned game)."""
    out = tmp_path_factory.mktemp("runs")
    argv = ["run", "--seeds", "1", "--players", "2", "--out", str(out), "--run-name", "r", "--no-progress"]
    assert main(argv) == 0
    return out / "r"


@pytest.fixture(scope="module")
def last_turns(run_dir: Path) -> str:
    """--from-turn for the game's last five decisions."""
    return str(read_game_log(run_dir / "games" / f"{GAME}.jsonl").moves[-1].turn - 4)


@pytest.fixture(scope="module")
def plain(run_dir: Path, last_turns: str, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The values file of the last five decisions, valued in this process."""
    run = tmp_path_factory.mktemp("plain") / "r"
    shutil.copytree(run_dir, run)
    assert main(["values", str(run), "--rollouts", ROLLOUTS, "--from-turn", last_turns, "--no-progress"]) == 0
    return (run / "values" / f"{GAME}.jsonl").read_bytes()


def values_command(run: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "values", str(run), "--rollouts", ROLLOUTS, *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _title(pid: int) -> str:
    with contextlib.suppress(OSError):
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    return ""


def busy_worker() -> int | None:
    """A worker process of this module's cluster that is valuing a decision now (Ray titles it by its task)."""
    for node_process in _children(os.getpid()):  # the cluster's processes are children of this test process
        for worker in _children(node_process):
            if _title(worker).startswith("ray::_remote_value"):
                return worker
    return None


def wait_for(condition, process: subprocess.Popen[str], limit_s: float = 120) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + limit_s
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the command did not get there in time"
        time.sleep(0.02)


def test_values_on_ray_are_the_bytes_of_a_plain_run_even_when_a_worker_is_killed(
    cluster: str, run_dir: Path, last_turns: str, plain: bytes, tmp_path: Path
) -> None:
    run = tmp_path / "r"
    shutil.copytree(run_dir, run)
    command = values_command(run, "--from-turn", last_turns, "--ray", cluster, "--no-progress")
    found: list[int] = []
    wait_for(lambda: found.append(busy_worker() or 0) or found[-1] > 0, command)
    os.kill(found[-1], signal.SIGKILL)  # its task runs again on another worker
    out, err = command.communicate(timeout=120)
    assert command.returncode == 0, err
    assert f"{GAME}: 5 decision(s) valued, 0 already done" in out
    written = (run / "values" / f"{GAME}.jsonl").read_bytes()
    assert written == plain  # every decision once, in turn order, the same bytes
    assert written.splitlines()[-1] == (PINNED / f"{GAME}.jsonl").read_bytes().splitlines()[-1]


def test_ctrl_c_stops_the_tasks_keeps_every_line_written_and_names_the_command(
    cluster: str, run_dir: Path, tmp_path: Path
) -> None:
    run = tmp_path / "r"
    shutil.copytree(run_dir, run)
    path = run / "values" / f"{GAME}.jsonl"
    # from turn 40 (a pinned turn) to the end: far more decisions than it gets to
    command = values_command(run, "--from-turn", "40", "--ray", cluster, "--no-progress")
    wait_for(lambda: path.is_file() and path.read_bytes().count(b"\n") >= 1, command)
    os.killpg(command.pid, signal.SIGINT)  # what the terminal does
    _, err = command.communicate(timeout=60)
    assert command.returncode == 130, err
    assert err.strip().count("\n") == 0, err
    again = f"hanabi-eval values {run} --rollouts {ROLLOUTS} --from-turn 40 --ray {cluster} --no-progress"
    assert f"to go on: {again}" in err
    lines = path.read_bytes().splitlines(keepends=True)
    assert [json.loads(line)["turn"] for line in lines] == list(range(40, 40 + len(lines)))  # whole, in order
    pinned = (PINNED / f"{GAME}.jsonl").read_bytes().splitlines(keepends=True)
    assert lines[0] in pinned and json.loads(lines[0])["turn"] == 40
    _wait_idle()  # the stopped tasks do not run on


def _wait_idle(limit_s: float = 20) -> bool:
    deadline = time.monotonic() + limit_s
    while busy_worker() is not None:
        assert time.monotonic() < deadline, "a stopped task still runs"
        time.sleep(0.1)
    return True


def test_an_address_where_no_cluster_answers_is_one_line_and_nothing_is_written(run_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "r"
    shutil.copytree(run_dir, run)
    with socket_closed_port() as port:
        command = values_command(run, "--ray", f"127.0.0.1:{port}")
        _, err = command.communicate(timeout=60)
    assert command.returncode == 2
    assert err.count("\n") == 1 and f"no Ray cluster answers at 127.0.0.1:{port}" in err
    assert "ray start --head" in err
    assert not (run / "values").exists()


def test_without_the_ray_package_values_ray_names_the_extra_to_install(run_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "r"
    shutil.copytree(run_dir, run)
    no_ray = (
        "import sys; sys.modules['ray'] = None; from harness.cli.main import main; "
        f"sys.exit(main(['values', {str(run)!r}, '--ray']))"
    )
    done = subprocess.run([sys.executable, "-c", no_ray], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "pip install 'hanabi-eval[ray]'" in done.stderr
    assert not (run / "values").exists()


@contextlib.contextmanager
def socket_closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 that nothing listens on (bound, never listened, so no one else takes it meanwhile)."""
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        yield holder.getsockname()[1]
