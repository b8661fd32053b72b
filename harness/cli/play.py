"""`hanabi-eval play --partner MODEL[:SCAFFOLD]`: a person plays a run in a browser against partners."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.arguments import folder
from harness.cli.run import add_table_options, play_and_print_run
from harness.schema.config import SessionOptions
from harness.schema.errors import Refused
from harness.session.request import RunRequest, plan_run
from harness.session.seats import HUMAN_NAME

DEFAULT_SEEDS = "1"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("play", help="play Hanabi yourself in a browser, with model or bot partners")
    parser.add_argument(
        "--partner",
        required=True,
        metavar="MODEL[:SCAFFOLD]",
        help="the partner in every other seat, as a --seat of run: a model or a built-in player (local/smart)",
    )
    parser.add_argument("--players", type=int, default=2, help="players at the table, 2-5 (default 2)")
    parser.add_argument(
        "--seeds", default=DEFAULT_SEEDS, help=f"the deals: seed set, seeds or seed file (default {DEFAULT_SEEDS})"
    )
    parser.add_argument("--name", help="your name in the logs and exports (default: human)")
    parser.add_argument("--out", type=folder, default=Path("results"), help="parent folder of run directories")
    parser.add_argument("--run-name", help="run directory name (default: derived from the configuration)")
    add_table_options(parser, "the address printed")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 5:
        raise Refused(f"--players {args.players} is outside 2-5; Hanabi takes 2 to 5 players")
    if args.partner.split(":")[0].split(",")[0].strip() == "human":
        raise Refused("--partner names a model or a built-in player; seat more people with run --seat human:NAME")
    if args.name is not None and not HUMAN_NAME.fullmatch(args.name):
        raise Refused(f"--name {args.name!r}: a person's name is 1-32 letters, digits, _ or -")
    me = f"human:{args.name}" if args.name else "human"
    request = RunRequest(
        seat=[me] + [args.partner] * (args.players - 1),
        seat_flag="--partner",
        seeds=args.seeds,
        out=args.out,
        run_name=args.run_name,
        given={"show_progress": False},
    )
    run_path, config, options = plan_run(request)
    options = SessionOptions.model_validate({**options.model_dump(), "concurrency": 1})
    return play_and_print_run(run_path, config, options, args)
