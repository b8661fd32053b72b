"""`hanabi-eval resume RUN_DIR`: continue every unfinished game of a run exactly where its log stops.

The configuration comes from the run's manifest. Operational settings can be changed for this session (a new
server URL, a longer timeout, more retries): they are not part of the run's identity.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.run import (
    add_session_options,
    given_options,
    play_and_print_run,
    play_and_print_sweep,
    seats_of,
)
from harness.cli.table import add_table_options, linger, table_for
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
        with table_for(seats_of(sweep), args, args.run_dir) as server:
            code = play_and_print_sweep(args.run_dir, sweep, options, {"resumed": True}, args.argv)
            linger(server)
        return code
    config, options = resume_run(args.run_dir, given_options(args), args.api_base)
    with table_for(config.seats, args, args.run_dir) as server:
        code = play_and_print_run(args.run_dir, config, options, args.argv)
        linger(server)
    return code
