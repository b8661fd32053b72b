"""Where decisions are valued: in this process, local processes (`--workers`) or Ray (`--ray`), same bytes."""

from __future__ import annotations

import signal
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Protocol

from harness.analysis.valuation import DecisionTask, GamePlan, ValuesWriter, value_decision
from harness.run.workers import WorkerLost

TASKS_PER_WORKER = 2  # decisions in flight per worker: enough to keep every worker busy while lines come back


@dataclass(frozen=True)
class Progress:
    """How far a valuation is: decisions written of all planned, and the CPUs at work out of those available."""

    written: int
    total: int
    cpus_busy: float
    cpus: float


Report = Callable[[Progress], None]


class Valuer(Protocol):
    """Values decisions somewhere and writes each line through the writer, as soon as it may be written."""

    @property
    def cpus(self) -> float: ...

    def value(self, tasks: list[DecisionTask], writer: ValuesWriter, progress: Report) -> None: ...

    def close(self) -> None: ...


class InProcess:
    """Every decision in this process, one after the other."""

    cpus = 1.0

    def value(self, tasks: list[DecisionTask], writer: ValuesWriter, progress: Report) -> None:
        for task in tasks:
            writer.add(task, value_decision(task))
            progress(Progress(writer.written, len(tasks), 1.0, 1.0))

    def close(self) -> None:
        return None


def _ignore_ctrl_c() -> None:
    """Workers leave Ctrl-C (sent to the terminal's whole process group) to the parent, which stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalProcesses:
    """Decisions in `workers` processes of this machine (forkserver: a clean process, not a copy of this one)."""

    def __init__(self, workers: int) -> None:
        self.cpus = float(workers)
        self._workers = workers
        self._pool = ProcessPoolExecutor(workers, get_context("forkserver"), initializer=_ignore_ctrl_c)

    def value(self, tasks: list[DecisionTask], writer: ValuesWriter, progress: Report) -> None:
        queue = iter(tasks)
        in_flight: dict[Future[str], DecisionTask] = {}
        window = TASKS_PER_WORKER * self._workers
        while True:
            while len(in_flight) < window and (task := next(queue, None)) is not None:
                in_flight[self._pool.submit(value_decision, task)] = task
            if not in_flight:
                return
            finished, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            for future in finished:
                task = in_flight.pop(future)
                exc = future.exception()
                if isinstance(exc, BrokenProcessPool):
                    raise WorkerLost(
                        "a worker process died mid-decision; every line written is kept: run the same command "
                        "again to go on"
                    ) from None
                if exc is not None:
                    raise exc
                writer.add(task, future.result())
            busy = min(float(len(in_flight)), self.cpus)
            progress(Progress(writer.written, len(tasks), busy, self.cpus))

    def close(self) -> None:
        """Stop the workers at once (after Ctrl-C a decision in flight is simply valued again on resume)."""
        for process in list(getattr(self._pool, "_processes", {}).values()):
            process.kill()
        self._pool.shutdown(wait=True, cancel_futures=True)


def value_plans(
    plans: list[GamePlan], valuer: Valuer, progress: Report, game_done: Callable[[GamePlan], None]
) -> None:
    """Value every planned decision with `valuer`, telling `game_done` of each game once all its lines are
    written; the lines written are synced whatever happens."""
    tasks = [task for plan in plans for task in plan.tasks]
    writer = ValuesWriter({plan.game_id: plan.path for plan in plans}, tasks)
    pending = list(plans)

    def report(now: Progress) -> None:
        while pending and writer.written_in(pending[0].game_id) == len(pending[0].tasks):
            game_done(pending.pop(0))
        progress(now)

    report(Progress(0, len(tasks), 0.0, valuer.cpus))
    try:
        valuer.value(tasks, writer, report)
    finally:  # Ctrl-C or a failure too: every line written so far goes to disk
        writer.sync()
    report(Progress(writer.written, len(tasks), 0.0, valuer.cpus))
