"""`hanabi-eval run`: validate a configuration, then play its games (continuing any unfinished ones)."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.cli.errors import EXIT_INTERRUPTED, EXIT_OK, UsageError
from harness.engine.seeds import SeedSpecError, resolve_seeds
from harness.export.contamination import check_seeds, load_exported_seeds
from harness.models.client import ModelSpecError, check_model
from harness.run.options import SessionOptions
from harness.run.score_table import score_table, summarize, summary_table, sweep_table
from harness.schema.cards import MAX_PLAYERS, MIN_PLAYERS
from harness.schema.config import RunConfig
from harness.schema.records import GameResult, SeatConfig, checked_params
from harness.schema.secrets import public_command
from harness.schema.urls import check_url
from harness.session.launch import SessionRefused, play_run, play_sweep, sweep_session
from harness.session.options import SESSION_DEFAULTS, GivenOptions, defaults, resolve
from harness.session.seats import SeatSpecError, parse_seat
from harness.session.sweep import SweepConfig, SweepConfigError, load_sweep
from harness.strategies.scaffold import ScaffoldError, load_scaffold

DEFAULT_MODEL = "local/smart"
LARGE_RUN = 1000  # games to play above which a run asks before it starts (--yes to skip)
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def register(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser("run", help="play seeded games with a model and scaffold, or a whole sweep")
    run.add_argument(
        "--config", type=Path, help="a sweep file (.toml/.yaml): models x scaffolds x players x seeds"
    )
    run.add_argument("--model", help=f"LiteLLM model string (default {DEFAULT_MODEL}, offline)")
    run.add_argument("--scaffold", help="scaffold name (default watson; see `hanabi-eval scaffolds`)")
    run.add_argument(
        "--k", type=int, help="best-of-k scaffolds: samples per move, 1-7 (default: the scaffold's, 5)"
    )
    run.add_argument("--players", type=int, nargs="+", help="player counts, 2-5 (default 2)")
    run.add_argument(
        "--seeds", help="seed set name, comma-separated seeds, or a seed file (default standard)"
    )
    run.add_argument(
        "--repeats",
        type=int,
        metavar="N",
        help="play each seed N times: the same deal again, as a separate game (default 1)",
    )
    run.add_argument(
        "--seat",
        action="append",
        metavar="MODEL[:SCAFFOLD][,key=value...]",
        help="one seat of a mixed team, in seat order (repeat per seat); keys: "
        "api_base, temperature, max_tokens, reasoning_effort, timeout, k",
    )
    run.add_argument(
        "--exclude-seeds-of",
        type=Path,
        metavar="EXPORT",
        help="refuse seeds that an exported training set holds (an export folder or its export_manifest.json)",
    )
    run.add_argument(
        "--skip-excluded-seeds",
        action="store_true",
        help="with --exclude-seeds-of: leave those seeds out instead",
    )
    run.add_argument(
        "--rotation",
        choices=["seed", "all", "off"],
        default="seed",
        help="mixed teams: rotate the seats by one per seed (default), play every rotation of every seed, or none",
    )
    run.add_argument("--out", type=Path, default=Path("results"), help="parent folder of run directories")
    run.add_argument("--run-name", help="run directory name (default: derived from the configuration)")
    run.add_argument(
        "--api-base", help="base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1"
    )
    run.add_argument("--temperature", type=float)
    run.add_argument("--max-tokens", type=int)
    run.add_argument(
        "--max-tokens-on-truncation",
        type=int,
        help="re-ask a reply cut off by the token limit with this larger limit (default: keep --max-tokens)",
    )
    run.add_argument("--reasoning-effort", choices=["minimal", "low", "medium", "high"])
    run.add_argument(
        "--thinking-budget", type=int, metavar="TOKENS", help="reasoning tokens allowed (Gemini, Anthropic)"
    )
    add_session_options(run, recorded=False)
    run.add_argument(
        "--yes",
        action="store_true",
        help=f"start a run of more than {LARGE_RUN:,} games without asking",
    )
    run.set_defaults(handler=handle)


def add_session_options(parser: argparse.ArgumentParser, recorded: bool) -> None:
    """The options that may change from one session of a run to the next; they are not part of its identity.
    They default to None, so that a value given can be told from one not given: a single run fills in
    SESSION_DEFAULTS, a sweep keeps its file's settings, and resume keeps what the run recorded."""

    def said(flag: str, unit: str = "") -> str:
        if recorded:
            return "(default: as recorded)"
        return f"(default {SESSION_DEFAULTS[flag]:g}{unit}; with --config: the sweep file's)"

    parser.add_argument("--timeout", type=float, help=f"seconds per request {said('timeout')}")
    parser.add_argument("--concurrency", type=int, help=f"games played at once {said('concurrency')}")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes to spread the games over, to use more cores (default 1)",
    )
    parser.add_argument(
        "--max-retries", type=int, help=f"re-asks after an invalid reply {said('max_retries')}"
    )
    parser.add_argument(
        "--provider-retries", type=int, help=f"retries after provider errors {said('provider_retries')}"
    )
    parser.add_argument(
        "--retry-wait", type=float, help=f"base of the exponential backoff {said('retry_wait', ' s')}"
    )
    parser.add_argument(
        "--retry-wait-max", type=float, help=f"longest backoff wait {said('retry_wait_max', ' s')}"
    )
    parser.add_argument("--no-progress", action="store_true", help="no live progress display")


def handle(args: argparse.Namespace) -> int:
    return _run(args, args.argv)


def given_options(args: argparse.Namespace) -> GivenOptions:
    """The session options the command line gives (None: not given); checked by check_operational."""
    return GivenOptions(
        timeout=args.timeout,
        concurrency=args.concurrency,
        workers=args.workers,
        max_retries=args.max_retries,
        provider_retries=args.provider_retries,
        retry_wait=args.retry_wait,
        retry_wait_max=args.retry_wait_max,
        show_progress=not args.no_progress,
        yes=getattr(args, "yes", True),  # resume never asks
    )


def _run(args: argparse.Namespace, command: list[str]) -> int:
    if args.config is not None:
        return _run_sweep(args, command)
    if args.seat and args.model:
        raise UsageError(
            "give the players either with --model (self-play) or with one --seat per seat, not both"
        )
    if args.seat and not 2 <= len(args.seat) <= 5:
        raise UsageError(f"{len(args.seat)} --seat options: a team has 2 to 5 seats, one --seat each")
    if args.seat and args.players and args.players != [len(args.seat)]:
        raise UsageError(
            f"--players {args.players} does not match the {len(args.seat)} --seat options; drop --players"
        )
    args.model = args.model or DEFAULT_MODEL
    args.scaffold = args.scaffold or "watson"
    args.players = [len(args.seat)] if args.seat else (args.players or [2])
    args.seeds = "standard" if args.seeds is None else args.seeds
    args.repeats = 1 if args.repeats is None else args.repeats
    config, options = _validated_config(args)
    return play_and_print_run(args.out / (args.run_name or config.default_name()), config, options, command)


def play_and_print_run(run_path: Path, config: RunConfig, options: SessionOptions, command: list[str]) -> int:
    """Play a run's unfinished games, then print the scores and where the logs are."""
    console = Console()
    try:
        outcome = play_run(
            run_path,
            config,
            options,
            command,
            console.print,
            lambda games, calls: confirm_size(games, calls, options.yes),
        )
    except SessionRefused as exc:
        raise UsageError(str(exc)) from None
    run, results = outcome.run, outcome.results
    console.print(score_table(results))
    console.print(
        summary_table(summarize([(r, run.game_path(p.game_id)) for p, r in results], outcome.wall_s))
    )
    console.print(f"Logs: {run.path / 'games'}  (manifest: {run.manifest_path})")
    interrupted = [(p, r) for p, r in results if r.status == "interrupted"]
    for plan, result in interrupted:
        console.print(f"[red]interrupted[/red] {plan.game_id}: {result.interrupted_reason}")
    if interrupted:
        console.print(f"Fix the cause, then continue with: hanabi-eval resume {run.path}")
        return EXIT_INTERRUPTED
    return EXIT_OK


def _validated_config(args: argparse.Namespace) -> tuple[RunConfig, SessionOptions]:
    """Check every input, cheapest first, and resolve the session's options; nothing here calls a model."""

    for players in args.players:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise UsageError(
                f"--players {players} is outside {MIN_PLAYERS}-{MAX_PLAYERS}; Hanabi takes 2 to 5 players"
            )
    if len(set(args.players)) != len(args.players):
        raise UsageError("--players repeats a player count; list each count once")
    if args.repeats < 1:
        raise UsageError(f"--repeats {args.repeats} must be 1 or more (plays of each seed)")
    check_operational(args)
    options = resolve(given_options(args), defaults())
    assert options.timeout_s is not None  # the defaults set one: the deadline of every seat that sets none
    if args.run_name is not None:
        check_run_name(args.run_name)
    try:
        params = checked_params(
            {
                "temperature": args.temperature,
                "max_tokens": args.max_tokens,
                "max_tokens_on_truncation": args.max_tokens_on_truncation,
                "reasoning_effort": args.reasoning_effort,
                "thinking_budget": args.thinking_budget,
                "timeout_s": options.timeout_s,
            },
            "--",
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out} is a file; give a folder for the run directories")
    if args.skip_excluded_seeds and args.exclude_seeds_of is None:
        raise UsageError(
            "--skip-excluded-seeds leaves out the seeds of an export: name it with --exclude-seeds-of EXPORT"
        )
    try:
        load_scaffold(args.scaffold, args.k)
        seeds = resolve_seeds(args.seeds)
        if args.exclude_seeds_of is not None:
            exported = load_exported_seeds(args.exclude_seeds_of)
            seeds = check_seeds(seeds, exported, skip=args.skip_excluded_seeds)
    except (ScaffoldError, SeedSpecError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    try:
        if args.seat:
            seats = tuple(
                parse_seat(spec, args.scaffold, params, args.k, args.api_base) for spec in args.seat
            )
            for seat in seats:
                load_scaffold(seat.scaffold, seat.k)
        else:
            seats = (
                SeatConfig(
                    model=args.model, scaffold=args.scaffold, api_base=args.api_base, params=params, k=args.k
                ),
            )
        for seat in {s.model: s for s in seats}.values():
            check_model(seat)
    except (ModelSpecError, SeatSpecError, ScaffoldError) as exc:
        raise UsageError(str(exc)) from None
    config = RunConfig(
        seats=seats,
        players=tuple(args.players),
        seeds=tuple(seeds),
        rotation=args.rotation,
        repeats=args.repeats,
        reply_retries=options.reply_retries,
        retry=options.retry,
    )
    return config, options


def check_operational(args: argparse.Namespace) -> None:
    """Check the settings that may change between sessions of a run (None: not given)."""
    for flag, value in (("--concurrency", args.concurrency), ("--workers", args.workers)):
        if value is not None:
            _check_positive(flag, value, integer=True)
    cores = os.cpu_count() or 1
    if args.workers is not None and args.workers > 4 * cores:
        raise UsageError(
            f"--workers {args.workers} is more than 4 processes per core ({cores} cores); "
            f"use at most {4 * cores} (one per core is usually best)"
        )
    for flag, value in (("--timeout", args.timeout), ("--retry-wait-max", args.retry_wait_max)):
        if value is not None:
            _check_positive(flag, value)
    for flag, value in (
        ("--max-retries", args.max_retries),
        ("--provider-retries", args.provider_retries),
        ("--retry-wait", args.retry_wait),
    ):
        if value is not None and not (value >= 0 and math.isfinite(value)):  # nan is not >= 0
            raise UsageError(f"{flag} {value} must be a finite number, 0 or more")
    if args.api_base is not None:
        try:
            check_url(args.api_base, "--api-base")
        except ValueError as exc:
            raise UsageError(str(exc)) from None


def _check_positive(flag: str, value: float, integer: bool = False) -> None:
    if not value > 0 or not math.isfinite(value):  # nan and inf are not times a request can wait
        kind = "a whole number" if integer else "a finite number of seconds"
        raise UsageError(f"{flag} {value} must be {kind} above 0")


def check_run_name(name: str) -> None:
    """A run name is one plain folder name: the run is written inside --out, never elsewhere."""
    if not RUN_NAME.fullmatch(name):
        raise UsageError(
            f"--run-name {name!r} is not a plain folder name; use letters, digits and . _ + - "
            "(no path: the run goes inside --out)"
        )


def confirm_size(games: int, calls: int, yes: bool) -> None:
    """Ask before a run of more than LARGE_RUN games starts; without a terminal, refuse unless --yes."""
    if games <= LARGE_RUN or yes:
        return
    what = f"{games:,} games to play (about {calls:,} model calls before retries)"
    if not sys.stdin.isatty():
        raise UsageError(f"{what}; add --yes to start a run this large")
    sys.stderr.write(f"{what}. Start? [y/N] ")  # where input() would put it only without readline
    sys.stderr.flush()
    answer = sys.stdin.readline()
    if answer.strip().lower() not in ("y", "yes"):
        raise UsageError(f"{what}; not started (add --yes to start without asking)")


SWEEP_CONFLICTS = (
    "model",
    "scaffold",
    "players",
    "seeds",
    "repeats",
    "api_base",
    "temperature",
    "max_tokens",
    "max_tokens_on_truncation",
    "reasoning_effort",
    "thinking_budget",
)


def _run_sweep(args: argparse.Namespace, command: list[str]) -> int:
    given = [f"--{name.replace('_', '-')}" for name in SWEEP_CONFLICTS if getattr(args, name) is not None]
    if given:
        raise UsageError(f"--config sets the models, scaffolds, players and seeds; drop {', '.join(given)}")
    if args.run_name:
        raise UsageError(
            "--run-name does not apply to a sweep: its runs are named after their configurations"
        )
    check_operational(args)
    try:
        sweep = load_sweep(args.config)
    except SweepConfigError as exc:
        raise UsageError(str(exc)) from None
    sweep, options = sweep_session(sweep, given_options(args))
    source = {"file": str(args.config), "command": public_command(command)}
    return play_and_print_sweep(args.out / sweep.name, sweep, options, source, command)


def play_and_print_sweep(
    folder: Path, sweep: SweepConfig, options: SessionOptions, source: dict[str, Any], command: list[str]
) -> int:
    """Play every run of a sweep, then print a table of its runs and the session's summary."""
    console = Console()
    try:
        outcome = play_sweep(
            folder,
            sweep,
            options,
            source,
            command,
            console.print,
            lambda games, calls: confirm_size(games, calls, options.yes),
        )
    except SessionRefused as exc:
        raise UsageError(str(exc)) from None
    jobs, results = outcome.jobs, outcome.results
    console.print(sweep_table([(job.config, r) for job, r in zip(jobs, results, strict=True)]))
    logs: list[tuple[GameResult | None, Path]] = [
        (r, job.run.game_path(p.game_id)) for job, pairs in zip(jobs, results, strict=True) for p, r in pairs
    ]
    console.print(summary_table(summarize(logs, outcome.wall_s)))
    interrupted = [r for run_results in results for _, r in run_results if r.status == "interrupted"]
    if interrupted:
        console.print(
            f"{len(interrupted)} games were interrupted (first: {interrupted[0].interrupted_reason})."
        )
        console.print(f"Fix the cause, then continue with: hanabi-eval resume {folder}")
        return EXIT_INTERRUPTED
    console.print(f"Runs: {folder}")
    return EXIT_OK
