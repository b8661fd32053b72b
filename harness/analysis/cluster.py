"""Valuing decisions as tasks on a Ray cluster (`hanabi-eval values --ray [ADDRESS]`).

Each decision is one Ray task: harness.analysis.valuation.value_decision on a DecisionTask (the deck, the moves before
the decision and the settings: a few kilobytes), returning its values line, a few hundred bytes. The driver keeps a
bounded number of tasks in flight, submitted in game and turn order, and hands each line to the ValuesWriter, which
writes every game's file in turn order: the files are the same bytes as a run in one process. A worker that dies
mid-task is Ray's to handle: the task runs again (up to TASK_RETRIES times) and its line is written once, when it
arrives. Ctrl-C stops submitting; the lines already written stay, and the tasks in flight end with this command's
Ray job when it disconnects (Ray stops a finished job's workers), not cancelled one by one: a ray.cancel that races
a task's completion can abort the driver. Every task also returns a digest of the code that computes values, and a
worker whose code differs from the driver's stops the command: values are only comparable when every machine runs
the same rollout policy.

`ray` is an optional dependency (`pip install 'hanabi-eval[ray]'`), imported only when a cluster is asked for.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import time
from collections.abc import Iterator
from typing import Any

from harness.analysis.valuation import DecisionTask, ValuesWriter, code_digest, value_decision
from harness.analysis.valuers import TASKS_PER_WORKER, Progress, Report
from harness.schema.errors import Refused
from harness.schema.records import is_digits

RAY_MISSING = "--ray needs the ray package: pip install 'hanabi-eval[ray]'"
TASK_RETRIES = 3  # times Ray runs a task again after its worker died
CONNECT_TIMEOUT = 5.0  # seconds to wait for a cluster's address to answer
LOCAL_HOST = "127.0.0.1"  # a Ray instance started for one command listens on this machine only


def _remote_value(task: DecisionTask) -> tuple[str, str]:
    """A decision's values line, with the digest of the code that made it (runs on a Ray worker)."""
    return value_decision(task), code_digest()


def import_ray() -> Any:
    """The ray module, or Refused naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise Refused(RAY_MISSING) from None
    return ray


def connect(address: str | None, cpus: int | None = None) -> Any:
    """Connect this process to the Ray cluster at `address` (HOST:PORT, or auto: the cluster this machine belongs
    to), or start a Ray instance on this machine for this process (`address` None, with `cpus` CPUs, default all).
    Returns the ray module; Refused (one line naming the fix) if that cannot be done."""
    ray = import_ray()
    if address not in (None, "auto"):
        _check_reachable(address)
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.ERROR,
    }
    if address is None:
        # Ray runs its workers at nice 15 by default: on a machine that does other work too they would get a small
        # share of the CPUs, where `--workers` processes get a full one. A local instance is the user's own job.
        options.update(num_cpus=cpus, _node_ip_address=LOCAL_HOST, _system_config={"worker_niceness": 0})
    try:
        ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        if address == "auto":
            raise Refused(
                "--ray auto found no Ray cluster that this machine belongs to; start one with `ray start --head`, "
                "or give a cluster's address as --ray HOST:PORT, or --ray alone for a Ray instance for this command"
            ) from None
        raise Refused(
            f"cannot use a Ray cluster at {address or 'this machine'} ({first}); start one with `ray start --head` "
            "and give its address as --ray HOST:PORT"
        ) from None
    return ray


class Cluster:
    """Decisions as tasks on a Ray cluster for one command; `close()` disconnects (and stops a local instance).

    `workers`: with no address, the CPUs of the local instance; with an address, at most this many tasks at once.
    """

    def __init__(self, address: str | None, workers: int | None = None) -> None:
        self._ray = connect(address, workers)
        self._remote = self._ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(_remote_value)
        self._cap = workers if address is not None else None
        self._abandoned = False  # tasks were left in flight (Ctrl-C, a failure): the job ends with them

    @property
    def cpus(self) -> float:
        return float(self._ray.cluster_resources().get("CPU", 0.0))

    def cpus_busy(self) -> float:
        return max(0.0, self.cpus - float(self._ray.available_resources().get("CPU", 0.0)))

    def value(self, tasks: list[DecisionTask], writer: ValuesWriter, progress: Report) -> None:
        """Value every task on the cluster and write each line through `writer` (see the module docstring)."""
        ray = self._ray
        expected = code_digest()
        queue = iter(tasks)
        in_flight: dict[Any, DecisionTask] = {}
        window = max(2, int(TASKS_PER_WORKER * max(1.0, self.cpus)))
        if self._cap is not None:
            window = min(window, self._cap)
        next_look, total, busy = 0.0, self.cpus, 0.0
        try:
            while True:
                while len(in_flight) < window and (task := next(queue, None)) is not None:
                    in_flight[self._remote.remote(task)] = task
                if not in_flight:
                    return
                waiting = list(in_flight)
                ready, rest = ray.wait(waiting, num_returns=1, timeout=1.0)
                if ready and rest:  # everything else already finished too: one pass over the refs per batch
                    ready += ray.wait(rest, num_returns=len(rest), timeout=0)[0]
                for ref in ready:
                    task = in_flight.pop(ref)
                    line, digest = ray.get(ref)
                    if digest != expected:
                        raise Refused(
                            "a Ray worker runs other hanabi-eval code than this command; install the same version "
                            "on every node of the cluster"
                        )
                    writer.add(task, line)
                if time.monotonic() >= next_look:  # the cluster's CPUs are asked of its GCS once a second
                    next_look = time.monotonic() + 1.0
                    total, busy = self.cpus, self.cpus_busy()
                progress(Progress(writer.written, len(tasks), busy, total))
        finally:  # Ctrl-C or a failure: nothing more is submitted; close() ends the job and its tasks in flight
            self._abandoned = bool(in_flight)

    def close(self) -> None:
        """Disconnect. Tasks left in flight make Ray's core log an error line per task as the job ends ("Failed to
        push error to driver"): noise about work the user stopped, kept off the terminal's one-line message."""
        with _stderr_discarded() if self._abandoned else contextlib.nullcontext():
            self._ray.shutdown()


@contextlib.contextmanager
def _stderr_discarded() -> Iterator[None]:
    """Send this process's file descriptor 2 (where Ray's C++ core logs) to /dev/null for the block."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _check_reachable(address: str) -> None:
    """One line (Refused) unless something listens at HOST:PORT (ray.init itself waits much longer)."""
    host, _, port = address.rpartition(":")
    if not host or not is_digits(port) or not 0 < int(port) < 65536:
        raise Refused(
            f"--ray {address} is not an address: give HOST:PORT, auto, or nothing for a Ray instance on this machine"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise Refused(
            f"no Ray cluster answers at {address} ({exc.strerror or exc}); start one there with `ray start --head` "
            "or give the right address"
        ) from None
