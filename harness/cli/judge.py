"""`hanabi-eval judge`: grade Mycroft turns' state tracking with an LLM judge (harness.analysis.judge)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.run import add_session_options, given_options
from harness.schema.config import SessionOptions, flag_of
from harness.schema.errors import EXIT_FAILED, EXIT_OK, Refused

if TYPE_CHECKING:
    from harness.analysis.judge import JudgeOutcome
    from harness.run.store import RunDir


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
    add_session_options(judge, recorded=False, playing=False)
    judge.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rich.console import Console

    from harness.analysis.judge import JudgeUnreachable, judge_runs, runs_with_memory_games
    from harness.bots import bot_names
    from harness.models.client import LOCAL_PROVIDER, check_model, provider_of
    from harness.run.store import find_runs
    from harness.schema.judge_records import JUDGE_DIR
    from harness.schema.records import SeatConfig, checked_params
    from harness.schema.urls import check_url

    options = SessionOptions().merged(given_options(args), flag_of, "the default")
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
            **({"timeout_s": options.timeout_s} if options.timeout_s is not None else {}),
        },
        "--",
    )
    seat = SeatConfig(model=args.model, scaffold="judge", api_base=args.api_base, params=params)
    found = find_runs(args.runs)  # a folder that is not there is named before the judge's key
    check_model(seat, bot_names())
    runs = runs_with_memory_games(found, args.runs)
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
        failed = judge_runs(runs, seat, options.retry, options.reply_retries, options.concurrency, args.argv, said)
    except JudgeUnreachable as exc:
        console.print(f"[red]judging stopped[/red]: {exc}")
        console.print("Fix the cause (key, model name, server), then run the same command again.")
        return EXIT_FAILED
    if failed:
        console.print(f"{failed} turns could not be judged; run the same command again to retry them.")
        return EXIT_FAILED
    return EXIT_OK
