"""`hanabi-eval export`: turn the complete games of run directories into a dataset or hanab.live replays.

Reads the logs only (never calls a model). Every input is checked before anything is written; the export folder is
written whole to a temporary folder and renamed into place, and an existing export is replaced only with --force.
A damaged game log is named in a warning on stderr and left out; the other games are exported.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.arguments import folder
from harness.export import FORMATS
from harness.schema.cards import MAX_PLAYERS, MAX_SCORE, MIN_PLAYERS
from harness.schema.errors import EXIT_FAILED, EXIT_OK, Refused

if TYPE_CHECKING:
    from harness.export.card import Tally
    from harness.export.rows import ExportOptions, Filters
    from harness.export.source import Selection


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
    parser.add_argument("--model", nargs="+", default=[], help="only seats played by these model strings")
    parser.add_argument("--scaffold", nargs="+", default=[], help="only seats using these scaffolds")
    parser.add_argument(
        "--players", nargs="+", type=int, default=[], help="only games of these player counts"
    )
    parser.add_argument("--seed-set", nargs="+", default=[], help="only games dealt from these seed sets")
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


def _options(args: argparse.Namespace) -> ExportOptions:
    from harness.export.preferences import DEFAULT_MAX_GAME_BYTES, DEFAULT_PAIRS_PER_MOVE
    from harness.export.rows import ExportOptions

    if args.pairs_per_move is not None and args.format != "preferences":
        raise Refused("--pairs-per-move applies only to --format preferences")
    if args.repair_dialogue and args.format not in ("hanabilogs", "preferences"):
        raise Refused("--repair-dialogue applies only to --format hanabilogs and preferences")
    if args.max_game_kb is not None and args.format != "preferences":
        raise Refused("--max-game-kb applies only to --format preferences")
    if args.format != "preferences":
        return ExportOptions(repair_dialogue=args.repair_dialogue)
    per_move = DEFAULT_PAIRS_PER_MOVE if args.pairs_per_move is None else args.pairs_per_move
    budget = DEFAULT_MAX_GAME_BYTES if args.max_game_kb is None else args.max_game_kb * 1000
    return ExportOptions(
        pairs_per_move=per_move or None, max_game_bytes=budget or None, repair_dialogue=args.repair_dialogue
    )


def _filters(args: argparse.Namespace) -> Filters:
    from harness.export.preferences import DEFAULT_MARGIN
    from harness.export.rows import Filters

    for players in args.players:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise Refused(f"--players {players} is outside {MIN_PLAYERS}-{MAX_PLAYERS}")
    if args.min_score is not None and not 0 <= args.min_score <= MAX_SCORE:
        raise Refused(f"--min-score {args.min_score} is outside 0-{MAX_SCORE}")
    if args.margin is not None and args.format != "preferences":
        raise Refused("--margin applies only to --format preferences")
    margin = args.margin if args.margin is not None else DEFAULT_MARGIN
    if args.format == "preferences" and not 0 < margin <= 2:
        raise Refused(f"--margin {margin} must be above 0 and at most 2 (ratings lie in [-1, 1])")
    return Filters(
        models=tuple(args.model),
        scaffolds=tuple(args.scaffold),
        players=tuple(args.players),
        seed_sets=tuple(args.seed_set),
        min_score=args.min_score,
        margin=margin if args.format == "preferences" else None,
    )


def handle(args: argparse.Namespace) -> int:
    from harness.export.card import Tally
    from harness.export.schema import SCHEMA_VERSION
    from harness.export.source import Selection
    from harness.export.writer import check_out, write_export
    from harness.run.store import check_each_game_once, find_runs
    from harness.schema.records import now_iso
    from harness.schema.secrets import redact

    filters = _filters(args)
    options = _options(args)
    selection = Selection()
    try:
        runs = find_runs(args.runs)
        check_out(args.out, args.force, runs, args.format, SCHEMA_VERSION)
        check_each_game_once(runs)
        command = redact(shlex.join(["hanabi-eval", *args.argv[1:]]))
        tally = Tally()
        files = _files(args.format, runs, selection, filters, options, command, now_iso(), tally)
        write_export(args.out, files)
    except OSError as exc:  # an unreadable log, a read-only or full disk: staging is removed, --out untouched
        where = exc.filename or args.out
        print(
            f"hanabi-eval: error: {where}: {exc.strerror or exc}; nothing was exported (free some space, or "
            "choose a readable run and a writable --out)",
            file=sys.stderr,
        )
        return EXIT_FAILED
    unit = "replay files" if args.format == "hanablive" else "rows"
    stopped = sum(1 for end in tally.replay_ends if end.hanablive_actions < end.hle_moves)
    extra = f"; hanab.live ends {stopped} of them before HLE did" if args.format == "hanablive" else ""
    damaged = f"; left out {len(selection.corrupt)} damaged game logs" if selection.corrupt else ""
    if tally.dropped[0]:
        extra += f"; left out {tally.dropped[0]} pairs beyond --max-game-kb"
    games = f"{len(selection.games)} game{'' if len(selection.games) == 1 else 's'}"
    print(
        f"Exported {tally.rows} {unit} from {games} ({selection.moves} moves) as "
        f"{args.format} to {args.out}; skipped {selection.skipped_incomplete} interrupted or unfinished "
        f"games{damaged}{extra}"
    )
    return EXIT_OK


def _files(
    fmt: str,
    runs: list[Path],
    selection: Selection,
    filters: Filters,
    options: ExportOptions,
    command: str,
    created_at: str,
    tally: Tally,
) -> Iterator[tuple[str, Iterable[str]]]:
    """The export's files in writing order, each produced only when written (see write_export): the games are read
    one at a time while the data is written (into `selection`), and the data is measured into `tally`, for the card
    and manifest written after it."""
    from harness.export import card as cards
    from harness.export.build import DATA_FILES, dataset_rows
    from harness.export.hanablive import file_name
    from harness.export.source import select
    from harness.export.writer import MANIFEST_NAME

    games = select(runs, filters, selection)
    if fmt == "hanablive":
        for game, moves in games:
            yield file_name(game), tally.replay(game, moves)
        data_files = [file_name(g) for g in selection.games]
    else:
        yield DATA_FILES[fmt], tally.lines(dataset_rows(fmt, games, filters, options, tally.dropped))
        data_files = [DATA_FILES[fmt]]
    for problem in selection.corrupt:
        print(f"warning: {problem}; the game is left out of the export", file=sys.stderr)
    if tally.rows == 0:
        raise Refused(_no_rows(fmt, filters))
    facts = cards.card_facts(fmt, selection, tally, data_files, command, created_at, filters, options)
    yield "README.md", [cards.render_card(facts)]
    yield MANIFEST_NAME, [cards.manifest(facts, selection, tally).model_dump_json(indent=2) + "\n"]


def _no_rows(fmt: str, filters: Filters) -> str:
    if fmt == "preferences":
        return (
            f"no decided move has two ratings at least --margin {filters.margin} apart; lower --margin or "
            "export runs whose replies rate the moves"
        )
    return f"the selected games hold no {fmt} rows"
