"""Plays a session: the unfinished games of one or more runs, in this process or spread over worker processes,
with the live progress display, each run's status file kept up to date, and Ctrl-C, a disk fault or the budget
(--max-cost) turned into a stop that leaves every log intact. Also the estimates said before a session starts (games
left, model calls, their cost).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from harness.models import retry_events
from harness.models.budget import Budget
from harness.models.client import price_of, run_calls
from harness.models.pricing import Prices
from harness.run.games import RunJob, play_plans
from harness.run.interrupt import Stop, cause
from harness.run.live_progress import RunProgress, move_usage
from harness.run.status import RunStatusFile
from harness.run.store import RunDir
from harness.run.workers import play_in_workers
from harness.schema.config import RunConfig, SessionOptions
from harness.schema.disk import DiskFault, explain
from harness.schema.errors import EXIT_BUDGET, EXIT_STOPPED, Ended
from harness.schema.log_file import count_moves, finished_result
from harness.schema.manifest import RunManifest
from harness.schema.records import GamePlan, GameResult
from harness.schema.secrets import redact
from harness.strategies.scaffold import calls_per_move, load_scaffold


def play_session(
    jobs: list[RunJob], options: SessionOptions, resume_hint: str = ""
) -> list[list[tuple[GamePlan, GameResult]]]:
    """Play the unfinished games of several runs, in this process or over `options.workers` processes, keeping
    each run's status file up to date, within the session's budget (the runs' spend, every session's). Returns
    each job's (plan, result) pairs in plan order.

    Raises Ended after a Ctrl-C or SIGTERM (status "stopped") or at the budget (status "budget"), and
    DiskFault when a write fails (status "failed", where it can still be written); `resume_hint` ends their
    message."""
    budget = None
    if options.max_cost_usd is not None:
        spent = spent_in_logs((job.run for job in jobs), lambda model: price_of(model, options.prices))
        budget = Budget(options.max_cost_usd, spent)
    selected = [(index, plan) for index, job in enumerate(jobs) for plan in job.config.plans()]
    progress = RunProgress(
        total_games=len(selected),
        enabled=options.show_progress,
        expected_moves=expected_moves((job.config, job.run) for job in jobs),
    )
    statuses = [RunStatusFile(job.run, job.config.plans()) for job in jobs]
    stop = Stop(resume_hint)

    def game_done(index: int, plan: GamePlan, result: GameResult) -> None:
        progress.game_done(result)
        statuses[index].game_done(plan.game_id, result)
        statuses[index].maybe_write()

    def stop_now() -> None:  # before the games' loop listens, or between its end and ours: as Python would
        raise stop.interruption()

    try:
        for status in statuses:
            status.write("running")
        with stop.in_thread(stop_now), progress, retry_events.listening(progress.backoff):
            people = any(seat.human for job in jobs for seat in job.config.seats)  # their pages are served here
            if options.workers <= 1 or people:
                flat = run_calls(
                    play_plans(
                        jobs,
                        selected,
                        options,
                        on_move=lambda record: progress.moves_done(1, *move_usage(record)),
                        on_game=game_done,
                        stop=stop,
                        budget=budget,
                    )
                )
            else:
                flat = play_in_workers(jobs, selected, options, progress, stop, game_done, budget)
    except OSError as exc:
        reason = explain(exc, resume_hint)
        for status in statuses:
            status.try_write("failed", reason)
        raise DiskFault(reason) from None
    except DiskFault as exc:
        for status in statuses:
            status.try_write("failed", str(exc))
        raise
    except KeyboardInterrupt as exc:  # before the games' loop listened for the stop: said as the stop is
        raise _stopped(statuses, cause(exc), resume_hint) from None
    except BaseException as exc:
        for status in statuses:
            status.try_write("failed", redact(f"{type(exc).__name__}: {exc}")[:500])
        raise
    if stop.requested:
        raise _stopped(statuses, stop.by, resume_hint)
    if budget is not None and budget.reached:
        raise _at_budget(statuses, budget, resume_hint)
    order = {(index, plan.game_id): n for n, (index, plan) in enumerate(selected)}
    flat.sort(key=lambda item: order[(item[0], item[1].game_id)])
    grouped: list[list[tuple[GamePlan, GameResult]]] = [[] for _ in jobs]
    for index, plan, result in flat:
        grouped[index].append((plan, result))
    try:
        for status in statuses:
            status.write("done")
    except OSError as exc:
        raise DiskFault(explain(exc, resume_hint)) from None
    return grouped


def _stopped(statuses: list[RunStatusFile], by: str, resume_hint: str) -> Ended:
    """A session stopped by a signal: its runs' status written as stopped, and the line that says what is kept."""
    for status in statuses:
        status.try_write("stopped", f"stopped by {by}")
    complete = sum(s.counts()[0] for s in statuses)
    total = sum(len(s.games) for s in statuses)
    return Ended(f"Stopped by {by}: {complete} of {total} games complete; {resume_hint}", EXIT_STOPPED)


def _at_budget(statuses: list[RunStatusFile], budget: Budget, resume_hint: str) -> Ended:
    """A session stopped at its budget: its runs' status written as "budget", and the line that says what was spent
    and how to go on (a higher --max-cost)."""
    reason = f"stopped at the budget: ${budget.spent:.4f} spent of --max-cost {budget.limit:g}"
    for status in statuses:
        status.try_write("budget", reason)
    complete = sum(s.counts()[0] for s in statuses)
    total = sum(len(s.games) for s in statuses)
    more = f" --max-cost {more_budget(budget.limit, budget.spent):g}" if resume_hint else ""
    refused, held = budget.refused
    beside = f" beside ${held:.4f} held for calls in flight" if held else ""
    return Ended(
        f"Stopped at the budget: ${budget.spent:.4f} spent of --max-cost {budget.limit:g}, and the next call could "
        f"have cost up to ${refused:.4f} (its prompt and longest reply){beside}; {complete} of {total} "
        f"games complete, every game resumable; {resume_hint}{more}",
        EXIT_BUDGET,
    )


def more_budget(limit: float, spent: float) -> float:
    """A budget to go on with: twice the larger of the budget and the spend, rounded up to a cent."""
    return math.ceil(max(limit, spent, 0.005) * 2 * 100) / 100


def spent_in_logs(runs: Iterable[RunDir], prices: Callable[[str], Prices | None]) -> float:
    """What the runs' logs say was spent so far, every attempt of every session. An answered attempt whose cost was
    unknown when it was made (a model then unpriced) costs its tokens at the model's `prices` now (--price)."""
    price_now = functools.cache(prices)
    spent = 0.0
    for run in runs:
        for path in run.game_paths():
            contents = run.read_game(path)
            for call in contents.calls:
                for attempt in call.attempts:
                    if attempt.cost_usd is not None:
                        spent += attempt.cost_usd
                    elif attempt.cost_unknown and (price := price_now(call.model)) is not None:
                        spent += price.cost(attempt.usage)
    return spent


def execute(
    config: RunConfig, run: RunDir, manifest: RunManifest, options: SessionOptions, resume_hint: str = ""
) -> list[tuple[GamePlan, GameResult]]:
    """Play every unfinished game of one run."""
    job = RunJob(config=config, run=run, manifest=manifest)
    (results,) = play_session([job], options, resume_hint)
    return results


# Mean moves per game of the built-in player's self-play (offline demo, standard seeds): a typical game length.
TYPICAL_MOVES = {2: 67, 3: 61, 4: 62, 5: 56}


def moves_left(config: RunConfig, run: RunDir) -> Iterator[tuple[int, int, int]]:
    """(players, unfinished games, moves they are still expected to take) of a run, in groups: a typical game length
    less the moves logged. One listing of the games folder says which games have a log, and only those are read; a
    run without logs is counted per player count without going over its games, so a large grid is cheap to size."""
    logged = run.logged_ids()
    if not logged:
        yield from _moves_of_new_run(config, len(config.seeds))
        return
    for game_id, players in config.game_ids():
        done = 0
        if game_id in logged:
            path = run.game_path(game_id)
            if finished_result(path) is not None:
                continue
            done = count_moves(path)
        yield players, 1, max(TYPICAL_MOVES[players] - done, 1)


def expected_moves(runs: Iterable[tuple[RunConfig, RunDir]]) -> int:
    """Moves the unfinished games of the runs are still expected to take."""
    return sum(moves for config, run in runs for _, _, moves in moves_left(config, run))


def expected_calls(runs: Iterable[tuple[RunConfig, RunDir]]) -> tuple[int, int]:
    """(unfinished games, expected model calls) of the runs: typical moves left x the team's calls per move."""
    games, calls, _, _ = estimate(runs, lambda model: None)
    return games, calls


# Prompt and reply tokens per model call, by scaffold, at 2 and at 5 players: BENCHMARKS.md section 4 (cl100k, the
# offline player's replies; a model that reasons writes longer ones), per move divided by the calls of a move.
TYPICAL_CALL_TOKENS: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "watson": ((805, 176), (1_033, 253)),
    "watson-plus": ((870, 176), (1_310, 253)),
    "spin-bench": ((1_802, 32), (2_518, 31)),
    "spin-bench-no-deductions": ((1_502, 32), (1_859, 31)),
    "spin-bench-no-deductions-no-discards": ((1_431, 32), (1_811, 31)),
    "sherlock": ((2_303, 256), (3_019, 376)),
    "sherlock-plus": ((1_523, 256), (2_278, 376)),
    "mycroft": ((4_171, 560), (4_960, 1_030)),
    "mycroft-plus": ((2_112, 620), (3_014, 1_156)),
    "hgroup-watson": ((1_484, 176), (2_023, 253)),
    "hgroup-sherlock": ((2_137, 256), (2_992, 376)),
    "best-of-k-watson": ((981, 176), (1_274, 253)),
    "best-of-k-spin-bench": ((1_859, 32), (2_573, 31)),
    "best-of-k-sherlock": ((2_546, 256), (3_362, 376)),
    "moa-watson": ((1_211, 119), (1_412, 144)),
    "moa-sherlock": ((2_189, 167), (3_109, 205)),
}
TYPICAL_CALL_TOKENS["best-of-5-watson"] = TYPICAL_CALL_TOKENS["best-of-k-watson"]
TYPICAL_CALL_TOKENS["best-of-5-sherlock"] = TYPICAL_CALL_TOKENS["best-of-k-sherlock"]


def typical_call_tokens(scaffold: str, players: int) -> tuple[float, float]:
    """(prompt, reply) tokens of a typical call of the scaffold (TYPICAL_CALL_TOKENS, between 2 and 5 players in
    proportion); a scaffold not measured there counts as the largest one that is."""
    two, five = TYPICAL_CALL_TOKENS.get(scaffold) or max(TYPICAL_CALL_TOKENS.values(), key=lambda t: t[1][0])
    share = (players - 2) / 3
    return two[0] + (five[0] - two[0]) * share, two[1] + (five[1] - two[1]) * share


class Estimate(NamedTuple):
    """What the unfinished games of a session are expected to take: games, model calls and, at the models' prices,
    USD (before prompt-cache savings; None where a model has no price: `unpriced` names them)."""

    games: int
    calls: int
    cost_usd: float | None
    unpriced: tuple[str, ...]


def estimate(runs: Iterable[tuple[RunConfig, RunDir]], price_of: Callable[[str], Prices | None]) -> Estimate:
    """expected_calls of the runs, and their cost: each seat's calls x its scaffold's typical tokens per call x its
    model's prices (`price_of`: USD per token, None without a price)."""
    return _estimate(((config, moves_left(config, run)) for config, run in runs), price_of)


def planned_calls(runs: Iterable[RunConfig], seeds: int) -> tuple[int, int]:
    """(games, expected model calls) of new runs of these configurations over `seeds` seeds: what expected_calls
    says of them once their decks are dealt, said before (the configurations' own seeds are not read)."""
    groups = ((config, _moves_of_new_run(config, seeds)) for config in runs)
    games, calls, _, _ = _estimate(groups, lambda model: None)
    return games, calls


def _estimate(
    groups: Iterable[tuple[RunConfig, Iterable[tuple[int, int, int]]]], price_of: Callable[[str], Prices | None]
) -> Estimate:
    """The Estimate of (run, its moves_left groups): a team's calls and cost per move are the same in every
    seating, so they are counted once per run and player count."""
    games, calls, cost = 0, 0.0, 0.0
    unpriced: dict[str, None] = {}
    for config, left in groups:
        per_move: dict[int, tuple[float, float]] = {}  # players -> (calls, USD) per move, averaged over the seats
        for players, remaining, moves in left:
            if players not in per_move:
                team = config.seats * players if len(config.seats) == 1 else config.seats
                seat_calls, seat_cost = 0.0, 0.0
                for seat in team:
                    if seat.human:  # a person makes no model call and costs nothing
                        continue
                    made = calls_per_move(load_scaffold(seat.scaffold, seat.k), players)
                    seat_calls += made
                    prices = price_of(seat.model)
                    if prices is None:
                        unpriced[seat.model] = None
                        continue
                    prompt, reply = typical_call_tokens(seat.scaffold, players)
                    seat_cost += made * (prompt * prices.input + reply * prices.output)
                per_move[players] = (seat_calls / players, seat_cost / players)
            games += remaining
            calls += moves * per_move[players][0]
            cost += moves * per_move[players][1]
    return Estimate(games, round(calls), None if unpriced else cost, tuple(unpriced))


def _moves_of_new_run(config: RunConfig, seeds: int) -> Iterator[tuple[int, int, int]]:
    """moves_left of a run without logs over `seeds` seeds, per player count, without going over its games."""
    games = config.games_per_seed() // len(config.players) * seeds
    for players in config.players:
        yield players, games, games * TYPICAL_MOVES[players]
