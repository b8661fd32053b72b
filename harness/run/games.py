"""Playing the games of a session in one event loop: the seats' agents, the check of existing logs before any
model is called, and the concurrent games under the session's and each model's limits. Both the session in this
process (harness.run.runner) and each worker process (harness.run.workers) play through `play_plans`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable
from contextlib import AsyncExitStack

from pydantic import BaseModel, ConfigDict

from harness.models.budget import Budget, BudgetReached
from harness.models.callers import caller_for, close_callers, warm_up
from harness.play.agent import SeatAgent
from harness.play.game import MoveListener, play_game, rebuild
from harness.run.interrupt import Stop
from harness.run.store import RunDir
from harness.schema.config import RunConfig, SessionOptions
from harness.schema.manifest import RunManifest
from harness.schema.records import GamePlan, GameResult, SeatConfig
from harness.strategies.scaffold import load_scaffold


class RunJob(BaseModel):
    """One run to play within a session: its configuration, directory and manifest."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    config: RunConfig
    run: RunDir
    manifest: RunManifest


Selected = list[tuple[int, GamePlan]]  # (index of the job in the session, game plan)
GameListener = Callable[[int, GamePlan, GameResult], None]


def verify_logs(config: RunConfig, run: RunDir) -> None:
    """Read every existing log of the run as every reader does, and replay an unfinished game's moves again
    from the plan's deal where the header's is another, so that a log that is damaged or does not match is
    refused before any model is called (LogCorrupt or ReplayMismatch)."""
    decks = {s.seed: list(s.deck) for s in config.seeds}
    for plan in config.plans():
        path = run.game_path(plan.game_id)
        if not path.exists():
            continue
        contents = run.read_game(path)
        dealt = contents.header is not None and list(contents.header.deck) == decks[plan.seed]
        if not contents.complete and not dealt:  # finished games are never extended; the read replayed this deal
            rebuild(plan, decks[plan.seed], contents)


async def play_plans(
    jobs: list[RunJob],
    selected: Selected,
    options: SessionOptions,
    on_move: MoveListener,
    on_game: GameListener,
    stop: Stop | None = None,
    budget: Budget | None = None,
) -> list[tuple[int, GamePlan, GameResult]]:
    """Play the selected games in this event loop: at most `options.concurrency` at once and
    `options.model_limits[model]` games that seat `model`, each call within `budget` where there is one (a
    game whose call was not sent for it stops unfinished, and is not returned).

    When `stop` is pressed, or when one game fails (a disk fault, raised here), every other game is
    cancelled: calls in flight are dropped (their move is played again on resume; what was already answered
    is kept in a "stopped" line) and every log is closed intact."""
    agents: dict[SeatConfig, SeatAgent] = {}
    for seat in dict.fromkeys(seat for job in jobs for seat in job.config.seats):
        client = caller_for(seat, options, budget)
        agents[seat] = SeatAgent(seat, load_scaffold(seat.scaffold, seat.k), client, options.reply_retries)
    decks = {(index, s.seed): list(s.deck) for index, job in enumerate(jobs) for s in job.config.seeds}
    # in the process that plays: the warm-up starts LiteLLM's logging thread, which must not exist at a fork
    warm_up([seat for job in jobs for seat in job.config.seats])
    default_thresholds = gc.get_threshold()
    tune_gc_for_play()
    gate = asyncio.Semaphore(options.concurrency)
    people = {seat.model: 1 for job in jobs for seat in job.config.seats if seat.human}  # one game at a time each
    model_gates = {model: asyncio.Semaphore(limit) for model, limit in {**options.model_limits, **people}.items()}

    async def one(index: int, plan: GamePlan) -> tuple[int, GamePlan, GameResult]:
        job = jobs[index]
        gates = [model_gates[m] for m in sorted({s.model for s in plan.seats}) if m in model_gates]
        async with AsyncExitStack() as held:
            # a fixed order, so that games never wait on each other in a cycle
            for held_gate in [*gates, gate]:
                await held.enter_async_context(held_gate)
            result = await play_game(
                plan,
                decks[(index, plan.seed)],
                job.run.game_path(plan.game_id),
                {i: agents[seat] for i, seat in enumerate(plan.seats)},
                job.manifest.run_id,
                job.manifest.git.commit,
                on_move=on_move,
            )
        on_game(index, plan, result)
        return index, plan, result

    tasks = [asyncio.create_task(one(index, plan)) for index, plan in selected]
    failures: list[BaseException] = []

    def halt() -> None:
        for task in tasks:
            task.cancel()

    async def watched(task: asyncio.Task[tuple[int, GamePlan, GameResult]]) -> None:
        try:
            await task
        except (asyncio.CancelledError, BudgetReached):
            pass  # cancelled, or the game stopped at the budget: no failure
        except Exception as exc:
            if not failures:
                failures.append(exc)
                halt()

    if stop is not None and stop.requested:  # pressed before the loop listened
        halt()
    try:
        with stop.in_loop(halt) if stop is not None else contextlib.nullcontext():
            await asyncio.gather(*(watched(task) for task in tasks))
        if failures:
            raise failures[0]
        return [task.result() for task in tasks if not task.cancelled() and task.exception() is None]
    finally:
        await close_callers()
        gc.unfreeze()  # a process that goes on after play (tests, a library caller) collects as usual again
        gc.set_threshold(*default_thresholds)


def tune_gc_for_play() -> None:
    """Exempt everything alive before play (LiteLLM's modules, templates, decks) from garbage collection,
    and collect the young generation every 10,000 allocations instead of 700: each model call allocates
    thousands of short-lived objects, which the defaults would scan over and over. No collection before the
    freeze: it would free very little, slowly."""
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
