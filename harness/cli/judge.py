"""`hanabi-eval judge`: grade the state tracking of a run's working-memory (Mycroft) turns with an LLM judge. Parses
and prints; the judging is harness.analysis.judge."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from harness.schema.errors import EXIT_FAILED, EXIT_OK, Refused
from harness.schema.records import DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    from harness.analysis.judge import JudgeOutcome
    from harness.schema.config import RetryPolicy
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
    judge.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT_S, help=f"seconds per request (default {DEFAULT_TIMEOUT_S:g})"
    )
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
    from harness.analysis.judge import runs_with_memory_games
    from harness.bots import bot_names
    from harness.models.client import LOCAL_PROVIDER, check_model, provider_of
    from harness.schema.config import RetryPolicy
    from harness.schema.records import SeatConfig, checked_params
    from harness.schema.urls import check_url

    if args.concurrency <= 0:
        raise Refused(f"--concurrency {args.concurrency} must be a whole number above 0")
    for flag, value in (("--max-retries", args.max_retries), ("--provider-retries", args.provider_retries)):
        if value < 0:
            raise Refused(f"{flag} {value} cannot be negative")
    for flag, value in (("--retry-wait", args.retry_wait), ("--retry-wait-max", args.retry_wait_max)):
        if value < 0:
            raise Refused(f"{flag} {value} cannot be negative")
    if args.retry_wait > args.retry_wait_max:
        raise Refused(
            f"--retry-wait {args.retry_wait:g} is longer than --retry-wait-max {args.retry_wait_max:g}; "
            f"give a --retry-wait-max of at least {args.retry_wait:g}, or a shorter --retry-wait"
        )
    if args.api_base is not None:
        check_url(args.api_base, "--api-base")
    if provider_of(args.model) == LOCAL_PROVIDER:
        raise Refused(
            f"{args.model} is a built-in player and cannot judge; give an LLM, e.g. --model openai/o4-mini"
        )
    params = checked_params(
        {
            "temperature": args.temperature,
            "max_tokens": args.max_tokens,
            "reasoning_effort": args.reasoning_effort,
            "timeout_s": args.timeout,
        },
        "--",
    )
    seat = SeatConfig(model=args.model, scaffold="judge", api_base=args.api_base, params=params)
    check_model(seat, bot_names())
    runs = runs_with_memory_games(args.runs)
    policy = RetryPolicy(
        provider_retries=args.provider_retries, wait_base_s=args.retry_wait, wait_max_s=args.retry_wait_max
    )
    return _judge(runs, seat, policy, args)


def _judge(runs: list[Path], seat: SeatConfig, policy: RetryPolicy, args: argparse.Namespace) -> int:
    from rich.console import Console

    from harness.analysis.judge import JudgeUnreachable, judge_runs
    from harness.run.store import RunDir
    from harness.schema.judge_records import JUDGE_DIR

    console = Console()

    def said(run: RunDir, outcome: JudgeOutcome) -> None:
        shown = ", ".join(f"{k.replace('_', ' ')} {v:.3f}" for k, v in outcome.means.items()) or "no judgements yet"
        console.print(
            f"{run.path}: {len(outcome.judged)} turns judged now, {outcome.already} before, "
            f"{len(outcome.failed)} failed, "
            + (f"{outcome.not_asked} not asked (judging stopped), " if outcome.not_asked else "")
            + f"in {outcome.games} games. Mean: {shown}"
        )
        console.print(
            f"Judge requests this session: {outcome.requests}, {outcome.tokens:,} tokens, "
            f"{outcome.cost_text()}"
        )
        for game_id, turn, why in outcome.failed[:5]:
            console.print(f"[red]not judged[/red] {game_id} turn {turn}: {why}")
        console.print(f"Judgements: {run.path / JUDGE_DIR}")

    try:
        failed = judge_runs(runs, seat, policy, args.max_retries, args.concurrency, args.argv, said)
    except JudgeUnreachable as exc:
        console.print(f"[red]judging stopped[/red]: {exc}")
        console.print("Fix the cause (key, model name, server), then run the same command again.")
        return EXIT_FAILED
    if failed:
        console.print(f"{failed} turns could not be judged; run the same command again to retry them.")
        return EXIT_FAILED
    return EXIT_OK
