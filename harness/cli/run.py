"""`hanabi-eval run`: parse what to play, plan it (harness.session), play it and print the scores; the session
and table page options that `play`, `resume` and `judge` share."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from harness.cli.arguments import folder
from harness.cli.streams import table_console
from harness.run.score_table import score_table, summarize, summary_table, sweep_table
from harness.schema.config import SESSION_FLAGS, RunConfig, SessionOptions
from harness.schema.errors import EXIT_FAILED, EXIT_OK, Refused
from harness.schema.records import DEFAULT_TIMEOUT_S, SeatConfig
from harness.schema.secrets import public_command
from harness.session.launch import Confirm, ConfirmCost, play_run, play_sweep, preview_run, preview_sweep
from harness.session.request import DEFAULT_MODEL, RunRequest, plan_run, plan_sweep
from harness.session.sweep import SweepConfig
from harness.web.table import serving_table

LARGE_RUN = 1000  # games to play above which a run asks before it starts (--yes to skip)
LARGE_COST_USD = 50.0  # expected USD above which a run asks before it starts, unless its --max-cost is lower


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
    run.add_argument("--players", type=int, nargs="+", action="extend", help="player counts, 2-5 (default 2)")
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
        help="mixed teams: rotate the seats by one per seed (default), play every rotation of every seed, or none",
    )
    run.add_argument("--out", type=folder, default=Path("results"), help="parent folder of run directories")
    run.add_argument("--run-name", help="run directory name (default: derived from the configuration)")
    run.add_argument(
        "--api-base", help="base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1"
    )
    run.add_argument(
        "--client",
        choices=["litellm", "openai"],
        default="litellm",
        help="how requests are sent: through LiteLLM (default, any provider), or straight to the OpenAI-compatible "
        "server at --api-base by the openai SDK (less CPU per call; models openai/NAME or hosted_vllm/NAME)",
    )
    run.add_argument("--temperature", type=float)
    run.add_argument("--max-tokens", type=int)
    run.add_argument(
        "--max-tokens-on-truncation",
        type=int,
        help="re-ask a reply cut off by the token limit with this limit (not below --max-tokens; default: keep it)",
    )
    run.add_argument("--reasoning-effort", choices=["minimal", "low", "medium", "high"])
    run.add_argument(
        "--thinking-budget", type=int, metavar="TOKENS", help="reasoning tokens allowed (Gemini, Anthropic)"
    )
    add_session_options(run, recorded=False)
    add_table_options(run)
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="say what would be played, with the model calls and cost expected, and stop: nothing is written and "
        "no model is called",
    )
    run.add_argument(
        "--yes",
        action="store_true",
        help=f"start a run of more than {LARGE_RUN:,} games, or expected to cost more than ${LARGE_COST_USD:g}, "
        "without asking",
    )
    run.set_defaults(handler=handle)


def add_session_options(parser: argparse.ArgumentParser, recorded: bool, playing: bool = True) -> None:
    """The options that may change between sessions of a run (SessionOptions), None unless given (a run keeps
    the defaults, a sweep its file's, resume what was recorded); `playing` adds workers and the display (not
    `judge`)."""
    defaults = SessionOptions()

    def unless_recorded(default: str) -> str:
        return "(default: as recorded)" if recorded else default

    def said(path: str, unit: str = "") -> str:
        value = defaults.model_dump()
        for part in path.split("."):
            value = value[part]
        default = f"{value:g}{unit}" if value is not None else f"{DEFAULT_TIMEOUT_S:g}{unit}"
        return unless_recorded(f"(default {default}" + ("; with --config: the sweep file's)" if playing else ")"))

    def add(path: str, kind: type, words: str, unit: str = "") -> None:
        metavar = "SECONDS" if kind is float else "N"
        parser.add_argument(
            SESSION_FLAGS[path], dest=path, type=kind, metavar=metavar, help=f"{words} {said(path, unit)}"
        )

    add("timeout_s", float, "seconds per request")
    add("concurrency", int, "games played at once" if playing else "requests at once")
    if playing:
        parser.add_argument(
            SESSION_FLAGS["workers"],
            dest="workers",
            type=int,
            metavar="N",
            default=defaults.workers,
            help="processes to spread the games over, to use more cores (default 1)",
        )
    add("reply_retries", int, "re-asks after an invalid reply")
    add("retry.provider_retries", int, "retries after provider errors")
    add("retry.wait_base_s", float, "base of the exponential backoff", " s")
    add("retry.wait_max_s", float, "longest backoff wait", " s")
    if playing:
        parser.add_argument("--no-progress", action="store_true", help="no live progress display")
        parser.add_argument(
            SESSION_FLAGS["prompt_cache"],
            dest="prompt_cache",
            choices=["on", "off"],
            help="mark (Anthropic, Claude on Bedrock and Vertex AI) or key (OpenAI) the prompts' stable prefixes so "
            "that the provider bills them as cache reads "
            + unless_recorded("(default on, where the provider caches prompts)"),
        )
        parser.add_argument(
            SESSION_FLAGS["max_cost_usd"],
            dest="max_cost_usd",
            type=float,
            metavar="USD",
            help="stop before a call that could take the run's spend (every session's) past this budget; the run "
            "stops with status `budget`, resumable with a higher one " + unless_recorded("(default: no budget)"),
        )
        parser.add_argument(
            SESSION_FLAGS["prices"],
            dest="prices",
            action="append",
            metavar="MODEL=IN,OUT[,CACHE_READ[,CACHE_WRITE]]",
            help="a model's prices in USD per million tokens, over LiteLLM's (repeat per model); a model LiteLLM "
            "has no price for needs one with --max-cost",
        )


def given_options(args: argparse.Namespace) -> dict[str, Any]:
    """The session options the command line gives, by SessionOptions field path (those not given left out)."""
    given = {path: value for path in SESSION_FLAGS if (value := getattr(args, path, None)) is not None}
    if hasattr(args, "no_progress"):
        given["show_progress"] = not args.no_progress
    given["yes"] = getattr(args, "yes", True)  # resume never asks
    return given


def handle(args: argparse.Namespace) -> int:
    request = RunRequest(
        **{name: getattr(args, name) for name in RunRequest.model_fields if name not in ("given", "seat_flag")},
        given=given_options(args),
    )

    def confirm(games: int, calls: int) -> None:  # a run sized before its decks are dealt (session.request)
        confirm_size(games, calls, request.given["yes"] or args.dry_run)

    say = table_console().print
    if args.config is not None:
        folder, sweep, options = plan_sweep(args.config, request, confirm, say)
    else:
        run_path, config, options = plan_run(request, confirm, say)
    if args.dry_run:
        if args.config is not None:
            lines = preview_sweep(folder, sweep, options, with_spent=True)[2]
        else:
            lines = preview_run(run_path, config, options, with_spent=True)[1]
        for line in lines:
            say(line)
        say("Dry run: nothing written, no model called.")
        return EXIT_OK
    if args.config is not None:
        source = {"file": str(args.config), "command": public_command(args.argv)}
        return play_and_print_sweep(folder, sweep, options, source, args)
    return play_and_print_run(run_path, config, options, args)


def _asking(options: SessionOptions) -> tuple[Confirm, ConfirmCost]:
    """What a session asks before it starts: its size (confirm_size), then its cost (confirm_cost)."""
    return (
        lambda games, calls: confirm_size(games, calls, options.yes), lambda usd: confirm_cost(usd, options)
    )


def play_and_print_run(
    run_path: Path, config: RunConfig, options: SessionOptions, args: argparse.Namespace
) -> int:
    """Play a run's unfinished games (human seats at table pages), then print the scores and the logs."""
    console = table_console()

    def play() -> int:
        outcome = play_run(run_path, config, options, args.argv, console.print, *_asking(options))
        run, results = outcome.run, outcome.results
        console.print(score_table(results))
        console.print(
            summary_table(summarize([(r, run.facts(p.game_id)) for p, r in results], outcome.wall_s))
        )
        console.print(f"Logs: {run.path / 'games'}  (manifest: {run.manifest_path})")
        interrupted = [(p, r) for p, r in results if r.status == "interrupted"]
        for plan, result in interrupted:
            console.print(f"[red]interrupted[/red] {plan.game_id}: {result.interrupted_reason}")
        if interrupted:
            console.print(f"Fix the cause, then continue with: hanabi-eval resume {run.path}")
            return EXIT_FAILED
        return EXIT_OK

    return play_at_table(config.seats, args, run_path, play)


def confirm_size(games: int, calls: int, yes: bool) -> None:
    """Ask before a run of more than LARGE_RUN games starts; without a terminal, refuse unless --yes."""
    if games <= LARGE_RUN or yes:
        return
    _ask(f"{games:,} games to play (about {calls:,} model calls before retries)")


def confirm_cost(usd: float | None, options: SessionOptions) -> None:
    """Ask before a run expected to cost more than LARGE_COST_USD starts, unless --max-cost is lower."""
    if usd is None or usd <= LARGE_COST_USD or options.yes:
        return
    if options.max_cost_usd is not None and options.max_cost_usd <= LARGE_COST_USD:
        return
    budget = options.max_cost_usd
    cap = "give --max-cost to cap it" if budget is None else f"--max-cost {budget:g} allows it"
    _ask(f"an expected cost of about ${usd:,.2f} ({cap})")


def _ask(what: str) -> None:
    """Ask whether to start a run that is `what`; without a terminal, refuse unless --yes."""
    if not sys.stdin.isatty():
        raise Refused(f"{what}; add --yes to start a run this large")
    sys.stderr.write(f"{what}. Start? [y/N] ")  # where input() would put it only without readline
    sys.stderr.flush()
    answer = sys.stdin.readline()
    if answer.strip().lower() not in ("y", "yes"):
        raise Refused(f"{what}; not started (add --yes to start without asking)")


def play_and_print_sweep(
    folder: Path,
    sweep: SweepConfig,
    options: SessionOptions,
    source: dict[str, Any],
    args: argparse.Namespace,
) -> int:
    """Play every run of a sweep (human seats at table pages), then print its runs and the summary."""
    console = table_console()
    try:
        seats = [seat for config in sweep.runs(seeds=[]) for seat in config.seats]
    except Refused:
        seats = []  # said in one line when the sweep is played

    def play() -> int:
        outcome = play_sweep(folder, sweep, options, source, args.argv, console.print, *_asking(options))
        jobs, results = outcome.jobs, outcome.results
        console.print(sweep_table([(job.config, r) for job, r in zip(jobs, results, strict=True)]))
        runs = zip(jobs, results, strict=True)
        games = [(r, job.run.facts(p.game_id)) for job, pairs in runs for p, r in pairs]
        console.print(summary_table(summarize(games, outcome.wall_s)))
        interrupted = [r for run_results in results for _, r in run_results if r.status == "interrupted"]
        if interrupted:
            console.print(
                f"{len(interrupted)} games were interrupted (first: {interrupted[0].interrupted_reason})."
            )
            console.print(f"Fix the cause, then continue with: hanabi-eval resume {folder}")
            return EXIT_FAILED
        console.print(f"Runs: {folder}")
        return EXIT_OK

    return play_at_table(seats, args, folder, play)


def add_table_options(parser: argparse.ArgumentParser, what: str = "when a seat is human") -> None:
    parser.add_argument("--port", type=int, help=f"serve the table page on this port ({what}; default: a free one)")
    parser.add_argument(
        "--host",
        metavar="ADDRESS",
        help="serve the table page on this address instead of 127.0.0.1 (a LAN address: others can reach it)",
    )
    parser.add_argument("--open", action="store_true", help="open each human seat's table page in the browser")


def check_table_options(args: argparse.Namespace) -> None:
    if args.port is not None and not 1 <= args.port <= 65535:
        raise Refused(f"--port {args.port} is outside 1-65535; give a free port, or leave it out for any")


def play_at_table(
    seats: Iterable[SeatConfig], args: argparse.Namespace, runs: Path, play: Callable[[], int]
) -> int:
    """Run `play` (its exit code returned) with a table page served per human seat of `seats` for the run or
    sweep folder `runs`, its addresses printed whole, one a line; once the games are over, the pages (scores,
    viewer links) stay until Ctrl-C (or SIGTERM: harness.run.interrupt.stop_on_sigterm)."""
    check_table_options(args)
    names = list(dict.fromkeys(seat.model for seat in seats if seat.human))
    given = [flag for flag, value in (("--host", args.host), ("--port", args.port), ("--open", args.open)) if value]
    if given and not names:
        raise Refused(
            f"{' and '.join(given)} {'serves' if len(given) == 1 else 'serve'} the table page of a human seat "
            "(--seat human:NAME), and no seat here is human; drop them"
        )
    with serving_table(names, args.host, args.port, args.open, partial(print, flush=True), runs) as server:
        code = play()
        if server is not None:
            over = "The games are over; their table pages and viewer pages stay open until Ctrl-C."
            print(over, file=sys.stderr, flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                while True:
                    time.sleep(0.5)
    return code
