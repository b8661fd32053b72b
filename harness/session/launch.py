"""Starting a session: open a run (or every run of a sweep) under its lock, say what is about to be played, play
its unfinished games with the session's options and return what ended; also continuing one (`hanabi-eval resume`).

Unusable input raises Refused before any model is called; a session that ends early (Ctrl-C, a disk fault, a lost
worker) raises Ended with its one line and exit code. Nothing here prints but through the `say` it is given.
"""

from __future__ import annotations

import contextlib
import shlex
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.bots import bot_names
from harness.engine.replay import ReplayMismatch
from harness.models.client import check_budget, check_model, price_of
from harness.run.games import RunJob
from harness.run.interrupt import cause
from harness.run.manifest import config_of, open_run, record_session
from harness.run.runner import Estimate, estimate, execute, play_session, spent_in_logs
from harness.run.store import MANIFEST, SWEEP_FILE, RunDir, check_name_lengths
from harness.run.workers import WorkerLost
from harness.schema.config import RunConfig, SessionOptions, flag_of
from harness.schema.disk import DiskFault, explain
from harness.schema.errors import EXIT_FAILED, EXIT_REFUSED, EXIT_STOPPED, Ended, Refused
from harness.schema.log_file import LogCorrupt
from harness.schema.records import GamePlan, GameResult, SeatConfig, now_iso
from harness.session.sweep import SweepConfig, open_sweep_dir, read_sweep_dir

Say = Callable[[str], None]
Confirm = Callable[[int, int], None]  # (games to play, expected model calls): raises to refuse
ConfirmCost = Callable[[float | None], None]  # (expected USD, None when unknown): raises to refuse


@dataclass(frozen=True)
class RunOutcome:
    """The games of one run that ended in this session, in plan order, and the session's wall time."""

    run: RunDir
    results: list[tuple[GamePlan, GameResult]]
    wall_s: float


@dataclass(frozen=True)
class SweepOutcome:
    """The games of every run of a sweep that ended in this session, per run, and the session's wall time."""

    folder: Path
    jobs: list[RunJob]
    results: list[list[tuple[GamePlan, GameResult]]]
    wall_s: float


def resume_hint(path: Path) -> str:
    return f"continue with: hanabi-eval resume {shlex.quote(str(path))}"


def hint_if_resumable(folder: Path, record: str) -> Callable[[], str]:
    """The resume hint, once there is something to resume: `folder` holds its `record` (manifest or sweep.json)."""
    return lambda: resume_hint(folder) if (folder / record).is_file() else ""


@contextlib.contextmanager
def session_errors(hint_now: Callable[[], str]) -> Iterator[None]:
    """Turn a stopped or failed session into one line and an exit code (raised as Ended), and a damaged log into
    its refusal (Refused); the resume hint is given only where the session left something to resume."""
    try:
        yield
    except LogCorrupt as exc:  # a damaged log: its file and line, and how to play that game again
        raise Refused(exc.refusal) from None
    except ReplayMismatch as exc:
        raise Refused(str(exc)) from None
    except KeyboardInterrupt as exc:
        raise Ended(_then(f"Stopped by {cause(exc)}", hint_now()), EXIT_STOPPED) from None
    except DiskFault as exc:
        raise Ended(f"hanabi-eval: error: {exc}", EXIT_FAILED) from None
    except OSError as exc:
        hint = hint_now()  # none: the session wrote no record, so it never began (a read-only --out, say)
        raise Ended(f"hanabi-eval: error: {explain(exc, hint)}", EXIT_FAILED if hint else EXIT_REFUSED) from None
    except WorkerLost as exc:
        raise Ended(_then(f"hanabi-eval: error: {exc}", hint_now()), EXIT_FAILED) from None


def _then(line: str, hint: str) -> str:
    return f"{line}; {hint}" if hint else f"{line}."


def expected_calls_line(remaining: int, calls: int) -> str:
    """What the games still to play will cost in model calls, said before any is made."""
    if not remaining:
        return "Every game is finished: no model calls needed."
    return (
        f"Expected model calls: about {calls:,} for {remaining:,} unfinished game{'' if remaining == 1 else 's'} "
        "(typical game lengths x calls per move, before retries)"
    )


def expected_cost_line(expected: Estimate, options: SessionOptions, spent: float = 0.0) -> str | None:
    """What the games still to play are expected to cost, said before any call (None for built-in players only),
    and with a budget what earlier sessions spent of it."""
    if expected.cost_usd == 0.0 or not expected.games:
        return None
    budget = ""
    if options.max_cost_usd is not None:
        before = f"${spent:.4f} spent already; " if spent else ""
        budget = f"; {before}the run stops before it passes --max-cost {options.max_cost_usd:g}"
    if expected.cost_usd is None:
        return (
            f"Expected cost: unknown, no price for {', '.join(expected.unpriced)} (give one with --price "
            f"MODEL=INPUT,OUTPUT, USD per million tokens){budget}"
        )
    return (
        f"Expected cost: about ${expected.cost_usd:,.2f} (typical tokens per call of each scaffold x the models' "
        f"prices, before prompt-cache savings){budget}"
    )


def check_seats(seats: Iterable[SeatConfig], options: SessionOptions) -> None:
    """Refuse a seat whose model cannot be called (check_model, for each distinct seat: two of one model may
    differ) or whose price or budget does not hold (check_budget), before any call."""
    distinct = list(dict.fromkeys(seats))
    for seat in distinct:
        check_model(seat, bot_names())
    check_budget(distinct, options)


def _estimate(runs: list[tuple[RunConfig, RunDir]], options: SessionOptions) -> Estimate:
    return estimate(runs, lambda model: price_of(model, options.prices))


def preview_run(
    run_path: Path, config: RunConfig, options: SessionOptions, with_spent: bool = False
) -> tuple[Estimate, list[str]]:
    """What playing a run's unfinished games is expected to take, and the lines that say it before any call (the
    run, its games and seats, the model calls and the cost expected; `with_spent`, for a dry run: what earlier
    sessions spent of the budget, which a session reads once, under the run's lock); refused where its game logs'
    names would be too long."""
    check_name_lengths(run_path, [config.longest_game_id()], "give a shorter --run-name or --out")
    expected = _estimate([(config, RunDir(run_path))], options)
    seats = ", ".join(sorted({s.label for s in config.seats}))
    games = config.game_count()
    said = [f"Run {run_path} · {games:,} game{'' if games == 1 else 's'} · {seats}"]
    with session_errors(hint_if_resumable(run_path, MANIFEST)):  # a damaged log read for the spend: one line
        return expected, _with_expected(said, expected, options, [RunDir(run_path)] if with_spent else [])


def _with_expected(
    lines: list[str], expected: Estimate, options: SessionOptions, runs: list[RunDir]
) -> list[str]:
    """`lines`, then the model calls and the cost expected, with what `runs` spent of a budget."""
    spent = 0.0
    if options.max_cost_usd is not None and runs:
        spent = spent_in_logs([run for run in runs if run.path.is_dir()], lambda model: price_of(model, options.prices))
    cost = expected_cost_line(expected, options, spent)
    return [*lines, expected_calls_line(expected.games, expected.calls), *([cost] if cost else [])]


def play_run(
    run_path: Path,
    config: RunConfig,
    options: SessionOptions,
    command: list[str],
    say: Say,
    confirm: Confirm,
    confirm_cost: ConfirmCost = lambda usd: None,
) -> RunOutcome:
    """Open (or reopen) a run under its lock and play its unfinished games, once `confirm` (games, calls) and
    `confirm_cost` (its expected cost) let it."""
    hint = resume_hint(run_path)
    expected, lines = preview_run(run_path, config, options)
    confirm(expected.games, expected.calls)
    confirm_cost(expected.cost_usd)
    with (
        session_errors(hint_if_resumable(run_path, MANIFEST)),
        open_run(run_path, config, command, options) as (run, manifest),
    ):
        record_session(run, manifest)
        for line in lines:
            say(line)
        started = time.monotonic()
        results = execute(config, run, manifest, options, hint)
        wall_s = time.monotonic() - started
    return RunOutcome(run=run, results=results, wall_s=wall_s)


def preview_sweep(
    folder: Path, sweep: SweepConfig, options: SessionOptions, with_spent: bool = False
) -> tuple[list[tuple[RunConfig, RunDir]], Estimate, list[str]]:
    """A sweep's runs, each with its folder, checked as they will be played (models, keys, prices, names), what
    playing their unfinished games is expected to take, and the lines that say it before any call (`with_spent`:
    as preview_run)."""
    try:
        runs = sweep.runs()
    except Refused as exc:  # a sweep recorded before a rule it breaks, or a seed file no longer there
        raise Refused(
            f"{folder}: seeds: {exc} (the sweep's runs can still be resumed one by one: hanabi-eval resume RUN)"
        ) from None
    check_seats([s for run in runs for s in run.seats], options)
    named = [(config, RunDir(folder / config.default_name())) for config in runs]  # each digest made once
    for config, run in named:
        fix = "shorten the sweep's name or its model names, or choose a shorter --out"
        check_name_lengths(run.path, [config.longest_game_id()], fix)
    expected = _estimate(named, options)
    games = sum(config.game_count() for config in runs)
    counted = f"{len(runs)} run{'' if len(runs) == 1 else 's'} · {games:,} game{'' if games == 1 else 's'}"
    said = [f"Sweep {folder} · {counted}"]
    with session_errors(hint_if_resumable(folder, SWEEP_FILE)):
        return named, expected, _with_expected(said, expected, options, [r for _, r in named] if with_spent else [])


def play_sweep(
    folder: Path,
    sweep: SweepConfig,
    options: SessionOptions,
    source: dict[str, Any],
    command: list[str],
    say: Say,
    confirm: Confirm,
    confirm_cost: ConfirmCost = lambda usd: None,
) -> SweepOutcome:
    """Open every run of a sweep under its lock and play them together in one event loop, once `confirm` and
    `confirm_cost` let it (as play_run). `sweep` holds the session's options already (sweep_session): they are what
    sweep.json records."""
    named, expected, lines = preview_sweep(folder, sweep, options)
    recorded = sweep.record()
    hint = resume_hint(folder)
    confirm(expected.games, expected.calls)
    confirm_cost(expected.cost_usd)
    with session_errors(hint_if_resumable(folder, SWEEP_FILE)):
        open_sweep_dir(folder, sweep, {**source, "created_at": now_iso(), "config": recorded})
        with ExitStack() as stack:
            jobs = []
            for config, planned in named:
                run, manifest = stack.enter_context(open_run(planned.path, config, command, options))
                jobs.append(RunJob(config=config, run=run, manifest=manifest))
            for job in jobs:  # every run is checked: now the session is recorded
                record_session(job.run, job.manifest)
            for line in lines:
                say(line)
            started = time.monotonic()
            results = play_session(jobs, options, hint)
    wall_s = time.monotonic() - started
    return SweepOutcome(folder=folder, jobs=jobs, results=results, wall_s=wall_s)


def sweep_session(
    sweep: SweepConfig, given: dict[str, Any], source_name: str = "the sweep file"
) -> tuple[SweepConfig, SessionOptions]:
    """A sweep's options for this session (the command line's over the file's or record's), and the sweep that
    holds them (what its sweep.json records)."""
    options = sweep.session.merged(given, flag_of, source_name)
    limits = {"model_limits": sweep.model_limits()}
    return sweep.model_copy(update={"session": options}), options.model_copy(update=limits)


def resume_run(run_dir: Path, given: dict[str, Any], api_base: str | None) -> tuple[RunConfig, SessionOptions]:
    """The configuration and options to continue a run with: as recorded, with this session's options over them
    (and a new server URL, for a run of one model)."""
    run = RunDir(run_dir)
    config = config_of(run)
    manifest = run.read_manifest()
    assert manifest is not None  # config_of refuses a folder without one
    if (manifest.model_extra or {}).get("inspect") is not None:  # written by import-inspect
        raise Refused(
            f"{run_dir} was imported from an Inspect log: its seats are Inspect models, which only Inspect plays; "
            "`inspect eval-retry` on that log plays its errored or cancelled games again: import-inspect the new log"
        )
    if api_base is not None:
        if len({s.model for s in config.seats}) > 1:
            raise Refused("--api-base is ambiguous for a run with several models; resume without it")
        config = config.model_copy(update={"seats": tuple(_with_api_base(s, api_base) for s in config.seats)})
    options = manifest.session_options().merged(given, flag_of, "the run's record")
    config = config.model_copy(update={"seats": options.over_seats(config.seats)})
    check_seats(config.seats, options)
    return config, options


def resume_sweep(folder: Path, given: dict[str, Any]) -> tuple[SweepConfig, SessionOptions]:
    """The sweep recorded in `folder` (sweep.json) with this session's options over its recorded settings."""
    sweep = read_sweep_dir(folder)
    if sweep is None:
        raise Refused(f"{folder} is not a sweep folder (no sweep.json); give the folder of a sweep or a run")
    return sweep_session(sweep, given, "the sweep's record (sweep.json)")


def _with_api_base(seat: SeatConfig, api_base: str) -> SeatConfig:
    """The seat served at `api_base`: its own URL, or that of its one deployment (a seat spread over several
    deployments has no one URL to replace)."""
    if not seat.deployments:
        return seat.model_copy(update={"api_base": api_base})
    if len(seat.deployments) > 1:
        raise Refused(
            f"--api-base cannot stand for the {len(seat.deployments)} deployments of {seat.model}; "
            "edit the deployments in the sweep file and run it again"
        )
    (deployment,) = seat.deployments
    return seat.model_copy(update={"deployments": (deployment.model_copy(update={"api_base": api_base}),)})
