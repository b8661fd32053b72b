"""`hanabi-eval export`: a dataset or hanab.live replays of complete games, from the logs (harness.export)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.arguments import folder
from harness.export import FORMATS
from harness.schema.errors import EXIT_FAILED, EXIT_OK


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "export", help="export complete games as a training dataset or hanab.live replays (reads logs only)"
    )
    parser.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN_DIR", help="run directories, or folders holding runs, to read"
    )
    parser.add_argument("--format", required=True, choices=FORMATS, help="what to write")
    parser.add_argument(
        "--out", required=True, type=folder, help="export folder (data file, README.md, export_manifest.json)"
    )
    for flag, kind, which in (
        ("--model", str, "seats played by these model strings"),
        ("--scaffold", str, "seats using these scaffolds"),
        ("--players", int, "games of these player counts"),
        ("--seed-set", str, "games dealt from these seed sets"),
    ):  # a filter given twice takes both lists (`--model a --model b` as `--model a b`), never only the last
        parser.add_argument(flag, nargs="+", action="extend", type=kind, default=[], help=f"only {which}")
    parser.add_argument(
        "--min-score", type=int, help="only games whose final fireworks score is at least this"
    )
    parser.add_argument(
        "--margin",
        type=float,
        help="preferences: smallest rating gap between chosen and rejected move (default 0.5)",
    )
    parser.add_argument(
        "--pairs-per-move",
        type=_pairs_per_move,
        help="preferences: most pairs per decided move, best against the worst-rated first; a number or 'all' "
        "(default 1)",
    )
    parser.add_argument(
        "--max-game-kb",
        type=_max_game_kb,
        help="preferences: most kB of pairs per game; beyond it the pairs with the smallest rating gaps are left "
        "out; 0 = no limit (default 1000)",
    )
    parser.add_argument(
        "--repair-dialogue",
        action="store_true",
        help="hanabilogs: keep re-asked calls' rejected replies and feedback in `messages`, with weight 0; "
        "preferences: add a pair per rejected reply, the accepted reply chosen over it",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing export at --out")
    parser.set_defaults(handler=handle)


def _pairs_per_move(text: str) -> int:
    """--pairs-per-move: a positive number, or 'all' (0 internally, for 'no limit')."""
    if text == "all":
        return 0
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a number nor 'all'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1 (or 'all')")
    return value


def _max_game_kb(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of kB") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative (0 means no limit)")
    return value


def warn(line: str) -> None:
    print(line, file=sys.stderr)


def handle(args: argparse.Namespace) -> int:
    from harness.export.build import export
    from harness.export.card import exported_moves

    given = {
        name: value
        for name, value in (
            ("models", args.model),
            ("scaffolds", args.scaffold),
            ("players", args.players),
            ("seed_sets", args.seed_set),
            ("min_score", args.min_score),
            ("margin", args.margin),
            ("pairs_per_move", args.pairs_per_move),
            ("max_game_kb", args.max_game_kb),
            ("repair_dialogue", args.repair_dialogue or None),
        )
        if value not in (None, [])
    }
    try:
        selection, tally = export(args.runs, args.out, args.format, given, args.force, args.argv, warn)
    except OSError as exc:  # an unreadable log, a read-only or full disk: staging is removed, --out untouched
        where = exc.filename or args.out
        print(
            f"hanabi-eval: error: {where}: {exc.strerror or exc}; nothing was exported (free some space, or "
            "choose a readable run and a writable --out)",
            file=sys.stderr,
        )
        return EXIT_FAILED
    unit = ("replay file" if args.format == "hanablive" else "row") + ("" if tally.rows == 1 else "s")
    stopped = sum(1 for end in tally.replay_ends if end.hanablive_actions < end.hle_moves)
    extra = f"; hanab.live ends {stopped} of them before HLE did" if args.format == "hanablive" else ""
    corrupt = len(selection.corrupt)
    damaged = f"; left out {corrupt} damaged game log{'' if corrupt == 1 else 's'}" if corrupt else ""
    if tally.dropped[0]:
        extra += f"; left out {tally.dropped[0]} pairs beyond --max-game-kb"
    games = f"{len(selection.games)} game{'' if len(selection.games) == 1 else 's'}"
    print(
        f"Exported {tally.rows} {unit} from {games} ({exported_moves(args.format, selection, tally)} moves) as "
        f"{args.format} to {args.out}; skipped {selection.skipped_incomplete} interrupted or unfinished "
        f"games{damaged}{extra}"
    )
    return EXIT_OK
