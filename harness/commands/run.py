"""`hanabi-eval run`: validate a configuration, then play its games (continuing any unfinished ones)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cards import MAX_PLAYERS, MIN_PLAYERS
from harness.commands import EXIT_INTERRUPTED, EXIT_OK, UsageError

DEFAULT_MODEL = "local/smart"


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
    add_session_options(run, recorded=False)
    run.set_defaults(handler=handle)


def add_session_options(parser: argparse.ArgumentParser, recorded: bool) -> None:
    """The options that may change from one session of a run to the next; they are not part of its identity. With
    `recorded` (resume), those a run records default to None: the recorded value stands."""

    def default(value: float) -> float | None:
        return None if recorded else value

    def said(value: float, unit: str = "") -> str:
        return "(default: as recorded)" if recorded else f"(default {value:g}{unit})"

    parser.add_argument(
        "--timeout", type=float, default=default(600.0), help=f"seconds per request {said(600)}"
    )
    parser.add_argument("--concurrency", type=int, default=8, help="games played at once (default 8)")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes to spread the games over, to use more cores (default 1)",
    )
    parser.add_argument(
        "--max-retries", type=int, default=default(3), help=f"re-asks after an invalid reply {said(3)}"
    )
    parser.add_argument(
        "--provider-retries", type=int, default=default(6), help=f"retries after provider errors {said(6)}"
    )
    parser.add_argument(
        "--retry-wait",
        type=float,
        default=default(2.0),
        help=f"base of the exponential backoff {said(2, ' s')}",
    )
    parser.add_argument(
        "--retry-wait-max", type=float, default=default(120.0), help=f"longest backoff wait {said(120, ' s')}"
    )
    parser.add_argument("--no-progress", action="store_true", help="no live progress display")


def handle(args: argparse.Namespace) -> int:
    return _run(args, args.argv)


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
    args.seeds = args.seeds or "standard"
    config, out, name = _validated_config(args)
    return play_run(
        out / (name or config.default_name()),
        config,
        command,
        args.concurrency,
        not args.no_progress,
        args.workers,
    )


def play_run(
    run_path: Path,
    config: object,
    command: list[str],
    concurrency: int,
    show_progress: bool,
    workers: int = 1,
) -> int:
    """Open (or reopen) a run under its lock, play its unfinished games, print the scores and where the logs are."""
    from rich.console import Console

    from harness.lock import RunLocked
    from harness.play import ResumeMismatch
    from harness.run import RunConfig, RunConfigError, execute, open_run
    from harness.store import LogCorrupt
    from harness.summary import score_table
    from harness.workers import WorkerFailed

    assert isinstance(config, RunConfig)
    console = Console()
    try:
        with open_run(run_path, config, command) as (run, manifest):
            plans = config.plans()
            seats = ", ".join(sorted({s.label for s in config.seats}))
            console.print(f"Run {run.path} · {len(plans)} games · {seats}")
            console.print(expected_calls_line([(p, run.game_path(p.game_id)) for p in plans]))
            results = execute(config, run, manifest, concurrency, show_progress, workers)
    except (RunConfigError, RunLocked, ResumeMismatch, LogCorrupt, WorkerFailed) as exc:
        raise UsageError(str(exc)) from None
    console.print(score_table(results))
    console.print(f"Logs: {run.path / 'games'}  (manifest: {run.manifest_path})")
    interrupted = [(p, r) for p, r in results if r.status == "interrupted"]
    for plan, result in interrupted:
        console.print(f"[red]interrupted[/red] {plan.game_id}: {result.interrupted_reason}")
    if interrupted:
        console.print(f"Fix the cause, then continue with: hanabi-eval resume {run.path}")
        return EXIT_INTERRUPTED
    return EXIT_OK


def expected_calls_line(plans: list[tuple[object, Path]]) -> str:
    """What the games still to play will cost in model calls, said before any is made."""
    from harness.run import expected_calls

    remaining, calls = expected_calls(plans)
    if not remaining:
        return "Every game is finished: no model calls needed."
    return (
        f"Expected model calls: about {calls:,} for {remaining} unfinished games "
        "(typical game lengths x calls per move, before retries)"
    )


def _validated_config(args: argparse.Namespace) -> tuple[object, Path, str | None]:
    """Check every input, cheapest first; nothing here calls a model."""
    from harness.contamination import check_seeds, load_exported_seeds
    from harness.models import ModelSpecError, RetryPolicy, check_model
    from harness.records import GenerationParams, SeatConfig
    from harness.run import RunConfig
    from harness.scaffold import ScaffoldError, load_scaffold
    from harness.seats import SeatSpecError, parse_seat
    from harness.seeds import SeedSpecError, resolve_seeds

    for players in args.players:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise UsageError(
                f"--players {players} is outside {MIN_PLAYERS}-{MAX_PLAYERS}; Hanabi takes 2 to 5 players"
            )
    if len(set(args.players)) != len(args.players):
        raise UsageError("--players repeats a player count; list each count once")
    check_operational(args)
    if args.max_tokens is not None:
        _check_positive("--max-tokens", args.max_tokens, integer=True)
    if args.max_tokens_on_truncation is not None:
        _check_positive("--max-tokens-on-truncation", args.max_tokens_on_truncation, integer=True)
    if args.temperature is not None and not 0.0 <= args.temperature <= 2.0:
        raise UsageError(f"--temperature {args.temperature} is outside 0-2")
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out} is a file; give a folder for the run directories")
    try:
        load_scaffold(args.scaffold, args.k)
        seeds = resolve_seeds(args.seeds)
        if args.exclude_seeds_of is not None:
            exported = load_exported_seeds(args.exclude_seeds_of)
            seeds = check_seeds(seeds, exported, skip=args.skip_excluded_seeds)
    except (ScaffoldError, SeedSpecError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    params = GenerationParams(
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        max_tokens_on_truncation=args.max_tokens_on_truncation,
        reasoning_effort=args.reasoning_effort,
        timeout_s=args.timeout,
    )
    try:
        if args.seat:
            seats = tuple(parse_seat(spec, args.scaffold, params, args.k) for spec in args.seat)
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
        reply_retries=args.max_retries,
        retry=RetryPolicy(
            provider_retries=args.provider_retries,
            wait_base_s=args.retry_wait,
            wait_max_s=args.retry_wait_max,
        ),
    )
    return config, args.out, args.run_name


def check_operational(args: argparse.Namespace) -> None:
    """Check the settings that may change between sessions of a run (None: not given)."""
    _check_positive("--concurrency", args.concurrency, integer=True)
    _check_positive("--workers", args.workers, integer=True)
    for flag, value in (("--timeout", args.timeout), ("--retry-wait-max", args.retry_wait_max)):
        if value is not None:
            _check_positive(flag, value)
    for flag, value in (
        ("--max-retries", args.max_retries),
        ("--provider-retries", args.provider_retries),
        ("--retry-wait", args.retry_wait),
    ):
        if value is not None and value < 0:
            raise UsageError(f"{flag} {value} cannot be negative")
    if args.api_base and not args.api_base.startswith(("http://", "https://")):
        raise UsageError(
            f"--api-base {args.api_base!r} is not an http(s) URL; write e.g. http://127.0.0.1:8000/v1"
        )


def _check_positive(flag: str, value: float, integer: bool = False) -> None:
    if value <= 0:
        kind = "a whole number" if integer else "a number"
        raise UsageError(f"{flag} {value} must be {kind} above 0")


SWEEP_CONFLICTS = (
    "model",
    "scaffold",
    "players",
    "seeds",
    "api_base",
    "temperature",
    "max_tokens",
    "max_tokens_on_truncation",
    "reasoning_effort",
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
    from harness.secrets import public_command
    from harness.sweep import SweepConfigError, load_sweep

    try:
        sweep = load_sweep(args.config)
    except SweepConfigError as exc:
        raise UsageError(str(exc)) from None
    source = {"file": str(args.config), "command": public_command(command)}
    return play_sweep(args.out / sweep.name, sweep, source, command, not args.no_progress, args.workers)


def play_sweep(
    folder: Path, sweep: object, source: dict, command: list[str], show_progress: bool, workers: int = 1
) -> int:
    """Open every run of a sweep under its lock and play them together in one event loop."""
    from contextlib import ExitStack

    from rich.console import Console

    from harness.lock import RunLocked
    from harness.models import ModelSpecError, check_model
    from harness.play import ResumeMismatch
    from harness.run import RunConfigError, RunJob, open_run, play_session
    from harness.secrets import safe_url
    from harness.store import LogCorrupt, now_iso
    from harness.summary import sweep_table
    from harness.sweep import SweepConfig, SweepConfigError, open_sweep_dir
    from harness.workers import WorkerFailed

    assert isinstance(sweep, SweepConfig)
    runs = sweep.runs()
    try:
        for seat in {s.model: s for run in runs for s in run.seats}.values():
            check_model(seat)
    except ModelSpecError as exc:
        raise UsageError(str(exc)) from None
    recorded = sweep.model_dump(mode="json")
    for model in recorded["models"]:
        model["api_base"] = safe_url(model["api_base"])
        for deployment in model["deployments"]:
            deployment["api_base"] = safe_url(deployment["api_base"])
    console = Console()
    try:
        open_sweep_dir(folder, sweep, {**source, "created_at": now_iso(), "config": recorded})
        with ExitStack() as stack:
            jobs = []
            for config in runs:
                run, manifest = stack.enter_context(open_run(folder / config.default_name(), config, command))
                jobs.append(RunJob(config=config, run=run, manifest=manifest))
            games = sum(len(job.config.plans()) for job in jobs)
            console.print(f"Sweep {folder} · {len(jobs)} runs · {games} games")
            console.print(
                expected_calls_line(
                    [(p, job.run.game_path(p.game_id)) for job in jobs for p in job.config.plans()]
                )
            )
            results = play_session(jobs, sweep.concurrency, sweep.model_limits(), show_progress, workers)
    except (SweepConfigError, RunConfigError, RunLocked, ResumeMismatch, LogCorrupt, WorkerFailed) as exc:
        raise UsageError(str(exc)) from None
    console.print(sweep_table([(job.config, r) for job, r in zip(jobs, results, strict=True)]))
    interrupted = [r for run_results in results for _, r in run_results if r.status == "interrupted"]
    if interrupted:
        console.print(
            f"{len(interrupted)} games were interrupted (first: {interrupted[0].interrupted_reason})."
        )
        console.print(f"Fix the cause, then continue with: hanabi-eval resume {folder}")
        return EXIT_INTERRUPTED
    console.print(f"Runs: {folder}")
    return EXIT_OK
