"""Valuing decisions as Ray tasks (`values --ray`), each line through the ValuesWriter. Ctrl-C stops
submitting; the tasks in flight end with the job (a ray.cancel racing a task's end can abort the driver).
Every task returns its code's digest, which must match the driver's. `ray` is imported only when asked for."""

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

TASK_RETRIES = 3  # times Ray runs a task again after its worker died
CONNECT_TIMEOUT = 5.0  # seconds to wait for a cluster's address to answer
LOCAL_HOST = "127.0.0.1"  # a Ray instance started for one command listens on this machine only


def _remote_value(task: DecisionTask) -> tuple[str, str]:
    """A decision's values line, with the digest of the code that made it (runs on a Ray worker)."""
    return value_decision(task), code_digest()


def connect(address: str | None, cpus: int | None = None) -> Any:
    """Connect to the Ray cluster at `address` (HOST:PORT, or auto), or start one here (None, `cpus` CPUs)."""
    try:
        import ray
    except ImportError:
        raise Refused("--ray needs the ray package: pip install 'hanabi-eval[ray]'") from None
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
    """Decisions as Ray tasks; `workers`: a local instance's CPUs, or (with an address) most tasks at once."""

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
        """Disconnect, keeping Ray's error line per task left in flight off the terminal."""
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
