"""`hanabi-eval values RUN_DIR`: engine-grounded values of every logged decision of a run's complete games.

For each decision, every legal move's expected final score when the team continues with the built-in player
(harness.play.values), written to `<run>/values/<game_id>.jsonl` by harness.run.valuation, one line per decision.
Reads the logs only (no model is called). Resumable: decisions already written are kept and skipped; a torn last
line is dropped and redone. Games that are not complete are skipped and named.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.errors import EXIT_INTERRUPTED, EXIT_OK, UsageError
from harness.play.values import MAX_ROLLOUTS
from harness.run.store import RunDir, RunFolderDamaged
from harness.run.valuation import ValuesSettingsMismatch, complete_games, done_turns, value_game, values_file
from harness.schema.value_records import VALUES_DIR
from harness.session.launch import stopped_by_ctrl_c

DEFAULT_ROLLOUTS = 16


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "values", help="value every logged decision by rollouts of the built-in player (reads logs only)"
    )
    parser.add_argument("run", type=Path, metavar="RUN_DIR", help="the run directory")
    parser.add_argument(
        "--rollouts",
        type=int,
        default=DEFAULT_ROLLOUTS,
        help=f"sampled worlds per decision, 1-{MAX_ROLLOUTS} (default {DEFAULT_ROLLOUTS})",
    )
    parser.add_argument("--seed", type=int, default=0, help="base seed of the sampled worlds (default 0)")
    parser.add_argument(
        "--from-turn", type=int, default=1, help="value only decisions from this turn on (default 1)"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if not 1 <= args.rollouts <= MAX_ROLLOUTS:
        raise UsageError(
            f"--rollouts {args.rollouts} is outside 1-{MAX_ROLLOUTS}; pick a count in that range"
        )
    if args.from_turn < 1:
        raise UsageError(f"--from-turn {args.from_turn} must be at least 1")
    run = RunDir(args.run)
    try:
        if not args.run.is_dir() or run.read_manifest() is None:
            raise UsageError(
                f"{args.run} is not a run directory (no manifest.json); give a folder made by hanabi-eval run"
            )
    except RunFolderDamaged as exc:
        raise UsageError(str(exc)) from None
    complete, skipped, corrupt = complete_games(run.game_paths())
    for problem in corrupt:
        print(f"skipping a corrupt game log: {problem}", file=sys.stderr)
    if skipped:
        print(f"skipping {len(skipped)} incomplete game(s): {', '.join(skipped)}")
    targets = [values_file(args.run, log) for log in complete]
    try:  # every game's earlier values are checked against these settings before any work starts
        done = [done_turns(path, args.rollouts, args.seed) for path in targets]
    except ValuesSettingsMismatch as exc:
        raise UsageError(str(exc)) from None
    out = args.run / VALUES_DIR
    out.mkdir(exist_ok=True)
    try:
        for number, (log, path, turns) in enumerate(zip(complete, targets, done, strict=True), start=1):
            added = value_game(log, path, turns, args.rollouts, args.seed, args.from_turn)
            print(
                f"[{number}/{len(complete)}] {path.stem}: {added} decision(s) valued, {len(turns)} already done"
            )
    except KeyboardInterrupt:  # as every long command stops: one line, exit code 130
        raise stopped_by_ctrl_c("the values written so far are kept") from None
    except OSError as exc:
        print(f"hanabi-eval: error: cannot write values under {out}: {exc.strerror}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_OK
