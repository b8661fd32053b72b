"""Playing a session's games in several processes, so that hundreds of games in flight use more than one core.

Games are dealt round-robin to worker processes; the parent keeps the run locks, the progress display and the
status files, and collects moves and results from a queue. Concurrency, per-model limits and the deployments'
rate limits are shared out between the workers. A worker dies with its parent, and a crash in a worker costs
at most the moves in flight: every game is resumable from its log.
"""

from __future__ import annotations

import contextlib
import math
import os
import queue as queue_module
import signal
import sys
import time
from multiprocessing import get_context
from typing import Any

from harness.models import callers, client, retry_events
from harness.models.budget import Budget
from harness.run.games import GameListener, RunJob, Selected, play_plans
from harness.run.interrupt import STOP_SIGNALS, STOP_WORKER, Stop
from harness.run.live_progress import RunProgress, move_usage
from harness.schema.config import SessionOptions
from harness.schema.records import GamePlan, GameResult, MoveRecord, SeatConfig
from harness.schema.secrets import redact


class WorkerLost(RuntimeError):
    """A worker process that stopped before finishing its work (games, or decisions to value): what it wrote is
    intact. Caught by the session (harness.session.launch: one line, exit 1, the run resumable) and by `values`."""


def shards(selected: Selected, workers: int) -> list[Selected]:
    return [selected[i::workers] for i in range(workers) if selected[i::workers]]


def share(limit: int, workers: int) -> int:
    return max(1, math.ceil(limit / workers))


def _shared_seat(seat: SeatConfig, workers: int) -> SeatConfig:
    """The seat as one worker sees it: each deployment's rate limits divided between the workers."""
    if not seat.deployments:
        return seat
    deployments = tuple(
        d.model_copy(
            update={
                key: share(getattr(d, key), workers)
                for key in ("rpm", "tpm", "max_parallel_requests")
                if getattr(d, key) is not None
            }
        )
        for d in seat.deployments
    )
    return seat.model_copy(update={"deployments": deployments})


def _worker_jobs(jobs: list[RunJob], workers: int) -> list[RunJob]:
    result = []
    for job in jobs:
        seats = tuple(_shared_seat(s, workers) for s in job.config.seats)
        result.append(job.model_copy(update={"config": job.config.model_copy(update={"seats": seats})}))
    return result


def _worker_plans(selected: Selected, workers: int) -> Selected:
    """The plans as one worker plays them: seated by the seats with shared-out limits, which its agents serve."""
    return [
        (index, plan.model_copy(update={"seats": tuple(_shared_seat(s, workers) for s in plan.seats)}))
        for index, plan in selected
    ]


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError):
            ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class _MoveTally:
    """A worker's moves, tokens and cost since its last report to the parent. Reports go at most every
    REPORT_EVERY_S and before each game's result, so the queue carries a few events a second rather than one per
    move (each event costs both processes a pickle and a pipe write)."""

    REPORT_EVERY_S = 0.25

    def __init__(self, events: Any) -> None:
        self.events = events
        self.count, self.tokens, self.cost, self.unpriced = 0, 0, 0.0, 0
        self.reported_at = time.monotonic()

    def add(self, record: MoveRecord) -> None:
        tokens, cost, unpriced = move_usage(record)
        self.count += 1
        self.tokens += tokens
        self.cost += cost
        self.unpriced += unpriced
        if time.monotonic() - self.reported_at >= self.REPORT_EVERY_S:
            self.report()

    def report(self) -> None:
        if self.count:
            self.events.put(("moves", self.count, self.tokens, self.cost, self.unpriced))
            self.count, self.tokens, self.cost, self.unpriced = 0, 0, 0.0, 0
        self.reported_at = time.monotonic()


def _worker(
    jobs: list[RunJob], selected: Selected, options: SessionOptions, events: Any, budget: Budget | None
) -> None:
    _die_with_parent()
    for signum in STOP_SIGNALS:  # the terminal's Ctrl-C, a SIGTERM to the group: the parent decides (interrupt.py)
        signal.signal(signum, signal.SIG_IGN)
    pid = os.getpid()
    tally = _MoveTally(events)

    def game_done(index: int, plan: GamePlan, result: GameResult) -> None:
        tally.report()
        events.put(("game", index, plan.game_id, result.model_dump_json()))

    stop = Stop(signums=(STOP_WORKER,), second_exits=False)
    signal.signal(STOP_WORKER, _stop_before_play)  # until play_plans listens: no log is open before then

    def backoff(model: str, error_kind: str | None, wait_s: float) -> None:
        events.put(("backoff", model, error_kind, wait_s))

    try:
        with retry_events.listening(backoff):
            client.run_calls(
                play_plans(jobs, selected, options, on_move=tally.add, on_game=game_done, stop=stop, budget=budget)
            )
    except _StoppedBeforePlay:
        pass
    except OSError as exc:  # a disk fault: the parent says it in one line
        tally.report()
        events.put(("disk", pid, (exc.errno, exc.strerror, exc.filename)))
        return
    except BaseException as exc:
        tally.report()
        events.put(("failed", pid, redact(f"{type(exc).__name__}: {exc}")[:500]))
        return
    signal.signal(STOP_WORKER, signal.SIG_IGN)
    events.put(("done", pid, ""))


class _StoppedBeforePlay(Exception):
    """Told to stop while still setting up (imports, warm-up): nothing to close, nothing written yet."""


def _stop_before_play(*_: object) -> None:
    raise _StoppedBeforePlay


def _start_method(jobs: list[RunJob]) -> str:
    """Fork on Linux, with the seats' client libraries imported first so that every worker inherits them; spawn
    elsewhere, and where LiteLLM's native runtime already runs in this process (a forked copy could not use it)."""
    if not sys.platform.startswith("linux") or client.native_runtime_started():
        return "spawn"
    callers.load_clients([seat for job in jobs for seat in job.config.seats])
    return "fork"


def play_in_workers(
    jobs: list[RunJob],
    selected: Selected,
    options: SessionOptions,
    progress: RunProgress,
    stop: Stop | None = None,
    on_game: GameListener | None = None,
    budget: Budget | None = None,
) -> list[tuple[int, GamePlan, GameResult]]:
    """Play the selected games in `options.workers` processes; return (job index, plan, result) for every game
    that ended. A press of `stop` tells every worker to stop (see harness.run.interrupt); a second one kills them.
    The workers share one `budget` (in shared memory), which holds what they spent when they are done."""
    context: Any = get_context(_start_method(jobs))  # typeshed: no Process
    events = context.Queue()
    shared_budget = budget.shared(context) if budget is not None else None
    parts = shards(selected, options.workers)
    shared = options.model_copy(  # each worker's share of the session's limits
        update={
            "concurrency": share(options.concurrency, len(parts)),
            "model_limits": {model: share(limit, len(parts)) for model, limit in options.model_limits.items()},
            "workers": 1,
        }
    )
    worker_jobs = _worker_jobs(jobs, len(parts))
    processes = [
        context.Process(
            target=_worker,
            args=(worker_jobs, _worker_plans(part, len(parts)), shared, events, shared_budget),
            daemon=True,
        )
        for part in parts
    ]
    plans = {(index, plan.game_id): plan for index, plan in selected}

    def halt() -> None:
        _stop_workers(processes)

    def kill() -> None:
        for process in processes:
            if process.pid is not None:
                with contextlib.suppress(OSError):
                    os.kill(process.pid, signal.SIGKILL)

    if stop is not None:
        stop.on_second_press(kill)
    try:
        for process in processes:
            process.start()
        with stop.in_thread(halt) if stop is not None else contextlib.nullcontext():
            results, failures, disk_fault = _collect(processes, events, plans, progress, on_game)
    except BaseException:  # workers ignore SIGTERM (terminate): they are told to stop as by a press
        _stop_workers(processes)
        raise
    finally:
        for process in processes:
            if process.pid is not None:  # started (a failed start leaves the later ones unstarted)
                process.join(timeout=10)
        if budget is not None and shared_budget is not None:
            budget.take(shared_budget)
    if disk_fault is not None:
        raise disk_fault
    if failures:
        raise WorkerLost("; ".join(failures) + " (the games' logs are intact: resume the run)")
    return results


def _collect(
    processes: list[Any],
    events: Any,
    plans: dict[tuple[int, str], GamePlan],
    progress: RunProgress,
    on_game: GameListener | None,
) -> tuple[list[tuple[int, GamePlan, GameResult]], list[str], OSError | None]:
    """Take the workers' events until every worker has reported: the games that ended, the workers'
    failures and the first disk fault, if any."""
    results: list[tuple[int, GamePlan, GameResult]] = []
    reported: dict[int, str] = {}
    failures: list[str] = []
    disk_fault: OSError | None = None
    while len(reported) < len(processes):
        try:
            event = events.get(timeout=0.5)
        except queue_module.Empty:
            for process in processes:
                if not process.is_alive() and process.pid not in reported:
                    reported[process.pid] = "died"
                    failures.append(f"worker {process.pid} stopped with exit code {process.exitcode}")
            continue
        kind = event[0]
        if kind == "moves":
            progress.moves_done(event[1], event[2], event[3], event[4])
        elif kind == "backoff":
            progress.backoff(event[1], event[2], event[3])
        elif kind == "game":
            result = GameResult.model_validate_json(event[3])
            plan = plans[(event[1], event[2])]
            results.append((event[1], plan, result))
            if on_game is not None:
                on_game(event[1], plan, result)
            else:
                progress.game_done(result)
        else:
            reported[event[1]] = kind
            if kind == "failed":
                failures.append(f"worker {event[1]}: {event[2]}")
            elif kind == "disk" and disk_fault is None:
                disk_fault = OSError(*event[2])
                _stop_workers(processes)  # the others stop too, their logs intact
    return results, failures, disk_fault


def _stop_workers(processes: list[Any]) -> None:
    """Tell each worker still running to stop (STOP_WORKER)."""
    for process in processes:
        if process.pid is not None and process.is_alive():
            with contextlib.suppress(OSError):
                os.kill(process.pid, STOP_WORKER)
