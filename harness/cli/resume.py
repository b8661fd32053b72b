"""`hanabi-eval resume RUN_DIR`: continue a run or sweep's unfinished games (session options may change)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.run import (
    add_session_options,
    add_table_options,
    given_options,
    play_and_print_run,
    play_and_print_sweep,
)
from harness.run.store import SWEEP_FILE
from harness.schema.errors import Refused
from harness.schema.urls import check_url
from harness.session.launch import resume_run, resume_sweep


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("resume", help="continue the unfinished games of a run")
    parser.add_argument("run_dir", type=Path, help="the run directory (it holds manifest.json)")
    parser.add_argument("--api-base", help="a new base URL for the run's model server (single-model runs)")
    add_session_options(parser, recorded=True)
    add_table_options(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if not args.run_dir.is_dir():
        raise Refused(
            f"{args.run_dir} is not a directory; give the folder of a run (it holds manifest.json)"
        )
    if args.api_base is not None:
        check_url(args.api_base, "--api-base")
    if (args.run_dir / SWEEP_FILE).exists():
        if args.api_base is not None:
            raise Refused(
                "--api-base applies to one run; resume a run of the sweep with it, or edit the sweep file"
            )
        sweep, options = resume_sweep(args.run_dir, given_options(args))
        return play_and_print_sweep(args.run_dir, sweep, options, {"resumed": True}, args)
    config, options = resume_run(args.run_dir, given_options(args), args.api_base)
    return play_and_print_run(args.run_dir, config, options, args)
