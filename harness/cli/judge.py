"""`hanabi-eval judge`: grade the state tracking of a run's working-memory (Mycroft) turns with an LLM judge."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.errors import EXIT_INTERRUPTED, EXIT_OK, UsageError

if TYPE_CHECKING:
    from harness.models.client import RetryPolicy
    from harness.run.judge import JudgeOutcome
    from harness.schema.records import SeatConfig


def register(commands: argparse._SubParsersAction) -> None:
    judge = commands.add_parser(
        "judge",
        help="grade each Mycroft turn's deductions against the engine's true knowledge (the paper's Table 4)",
    )
    judge.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN", help="run directories, or folders holding runs"
    )
    judge.add_argument(
        "--model", required=True, help="the judge's LiteLLM model string (the paper: openai/o4-mini)"
    )
    judge.add_argument("--api-base", help="base URL of an OpenAI-compatible server serving the judge")
    judge.add_argument("--reasoning-effort", choices=["minimal", "low", "medium", "high"])
    judge.add_argument("--temperature", type=float)
    judge.add_argument("--max-tokens", type=int)
    judge.add_argument("--timeout", type=float, default=600.0, help="seconds per request (default 600)")
    judge.add_argument("--concurrency", type=int, default=8, help="judge requests at once (default 8)")
    judge.add_argument(
        "--max-retries", type=int, default=3, help="re-asks after an unusable verdict (default 3)"
    )
    judge.add_argument(
        "--provider-retries", type=int, default=6, help="retries after provider errors (default 6)"
    )
    judge.add_argument(
        "--retry-wait", type=float, default=2.0, help="base of the exponential backoff (default 2 s)"
    )
    judge.add_argument(
        "--retry-wait-max", type=float, default=120.0, help="longest backoff wait (default 120 s)"
    )
    judge.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from harness.models.client import LOCAL_PROVIDER, ModelSpecError, RetryPolicy, check_model, provider_of
    from harness.schema.records import GenerationParams, SeatConfig

    for flag, value in (("--concurrency", args.concurrency), ("--timeout", args.timeout)):
        if value <= 0:
            raise UsageError(f"{flag} {value} must be above 0")
    for flag, value in (("--max-retries", args.max_retries), ("--provider-retries", args.provider_retries)):
        if value < 0:
            raise UsageError(f"{flag} {value} cannot be negative")
    for flag, value in (("--retry-wait", args.retry_wait), ("--retry-wait-max", args.retry_wait_max)):
        if value < 0:
            raise UsageError(f"{flag} {value} cannot be negative")
    if args.temperature is not None and not 0.0 <= args.temperature <= 2.0:
        raise UsageError(f"--temperature {args.temperature} is outside 0-2")
    if args.max_tokens is not None and args.max_tokens <= 0:
        raise UsageError(f"--max-tokens {args.max_tokens} must be a whole number above 0")
    if args.api_base and not args.api_base.startswith(("http://", "https://")):
        raise UsageError(
            f"--api-base {args.api_base!r} is not an http(s) URL; write e.g. http://127.0.0.1:8000/v1"
        )
    if provider_of(args.model) == LOCAL_PROVIDER:
        raise UsageError(
            f"{args.model} is a built-in player and cannot judge; give an LLM, e.g. --model openai/o4-mini"
        )
    seat = SeatConfig(
        model=args.model,
        scaffold="judge",
        api_base=args.api_base,
        params=GenerationParams(
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            reasoning_effort=args.reasoning_effort,
            timeout_s=args.timeout,
        ),
    )
    try:
        check_model(seat)
    except ModelSpecError as exc:
        raise UsageError(str(exc)) from None
    runs = _runs_with_memory_games(args.runs)
    policy = RetryPolicy(
        provider_retries=args.provider_retries, wait_base_s=args.retry_wait, wait_max_s=args.retry_wait_max
    )
    return _judge(runs, seat, policy, args)


def _runs_with_memory_games(paths: list[Path]) -> list[Path]:
    """The runs named that hold working-memory games; none at all is bad input."""
    from harness.report.load import ReportInputError, find_runs
    from harness.run.judge import keeps_working_memory
    from harness.run.store import RunDir
    from harness.schema.log_file import LogCorrupt, read_game_log

    try:
        runs = find_runs(paths)
    except ReportInputError as exc:
        raise UsageError(str(exc)) from None
    found = []
    for run in runs:
        try:
            logs = [read_game_log(path) for path in RunDir(run).game_paths()]
        except LogCorrupt as exc:
            raise UsageError(f"{exc}; repair or remove that log") from None
        except OSError as exc:
            raise UsageError(f"cannot read the logs of {run}: {exc.strerror}") from None
        if any(keeps_working_memory(m) for log in logs for m in log.moves):
            found.append(run)
    if not found:
        named = ", ".join(str(p) for p in paths)
        raise UsageError(
            f"{named}: no Mycroft (working-memory) moves to judge; run with --scaffold mycroft first"
        )
    return found


def _judge(runs: list[Path], seat: SeatConfig, policy: RetryPolicy, args: argparse.Namespace) -> int:
    from rich.console import Console

    from harness.models import event_loop
    from harness.models.client import ModelClient, close_clients
    from harness.run.judge import (
        JUDGE_DIR,
        JudgeInputError,
        JudgeUnreachable,
        judge_identity,
        judge_run,
        mean_ratings,
        open_record,
        read_judgements,
    )
    from harness.run.lock import RunLock, RunLocked
    from harness.run.store import RunDir

    console = Console()
    client = ModelClient(seat, policy)
    failed = 0
    try:
        for path in runs:
            run = RunDir(path)
            judge_dir = path / JUDGE_DIR
            judge_dir.mkdir(exist_ok=True)
            with RunLock(judge_dir):
                open_record(judge_dir, seat, args.argv, judge_identity(seat))

                async def session(run: RunDir = run) -> JudgeOutcome:
                    try:
                        return await judge_run(run, client, args.max_retries, args.concurrency)
                    finally:
                        await close_clients()

                outcome = event_loop.run(session())
            failed += len(outcome.failed)
            means = mean_ratings(read_judgements(run))
            shown = (
                ", ".join(f"{k.replace('_', ' ')} {v:.3f}" for k, v in means.items()) or "no judgements yet"
            )
            console.print(
                f"{path}: {len(outcome.judged)} turns judged now, {outcome.already} before, "
                f"{len(outcome.failed)} failed, in {outcome.games} games. Mean: {shown}"
            )
            console.print(
                f"Judge requests this session: {outcome.requests}, {outcome.tokens:,} tokens, "
                f"{outcome.cost_text()}"
            )
            for game_id, turn, why in outcome.failed[:5]:
                console.print(f"[red]not judged[/red] {game_id} turn {turn}: {why}")
            console.print(f"Judgements: {judge_dir}")
    except (JudgeInputError, RunLocked) as exc:
        raise UsageError(str(exc)) from None
    except JudgeUnreachable as exc:
        console.print(f"[red]judging stopped[/red]: {exc}")
        console.print("Fix the cause (key, model name, server), then run the same command again.")
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        console.print(
            "Interrupted: the judgements made so far are kept; run the same command again to go on."
        )
        return EXIT_INTERRUPTED
    except OSError as exc:
        raise UsageError(f"cannot write the judgements: {exc.strerror or exc}") from None
    if failed:
        console.print(f"{failed} turns could not be judged; run the same command again to retry them.")
        return EXIT_INTERRUPTED
    return EXIT_OK
