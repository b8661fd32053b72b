"""`hanabi-eval values RUN_DIR`: engine-grounded values of every logged decision of a run's complete games.

For each decision, every legal move's expected final score when the team continues with the built-in player
(harness.play.values), written to `<run>/values/<game_id>.jsonl`, one line per decision. Reads the logs only (no
model is called). Resumable: decisions already written are kept and skipped; a torn last line is dropped and
redone. Games that are not complete are skipped and named.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from harness.cli.errors import EXIT_INTERRUPTED, EXIT_OK, UsageError
from harness.play.values import MAX_ROLLOUTS

VALUES = "values"
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


def decision_seed(seed: int, game_id: str, turn: int) -> int:
    """The seed of one decision's rollouts: fixed by the base seed, the game and the turn."""
    digest = hashlib.sha256(f"{seed}:{game_id}:{turn}".encode()).hexdigest()
    return int(digest[:12], 16)


def handle(args: argparse.Namespace) -> int:
    if not 1 <= args.rollouts <= MAX_ROLLOUTS:
        raise UsageError(
            f"--rollouts {args.rollouts} is outside 1-{MAX_ROLLOUTS}; pick a count in that range"
        )
    if args.from_turn < 1:
        raise UsageError(f"--from-turn {args.from_turn} must be at least 1")
    from harness.run.store import RunDir
    from harness.schema.log_file import LogCorrupt, read_game_log

    run = RunDir(args.run)
    if not args.run.is_dir() or run.read_manifest() is None:
        raise UsageError(
            f"{args.run} is not a run directory (no manifest.json); give a folder made by hanabi-eval run"
        )
    paths = run.game_paths()
    complete, skipped = [], []
    for path in paths:
        try:
            log = read_game_log(path)
        except LogCorrupt as exc:
            print(f"skipping a corrupt game log: {exc}", file=sys.stderr)
            continue
        if log.complete and log.header is not None:
            complete.append(log)
        else:
            skipped.append(path.stem)
    if skipped:
        print(f"skipping {len(skipped)} incomplete game(s): {', '.join(skipped)}")
    out = args.run / VALUES
    targets = [out / f"{log.header.game_id}.jsonl" for log in complete if log.header is not None]
    # Every game's earlier values are checked against these settings before any work starts.
    done = [_done_turns(path, args) for path in targets]
    out.mkdir(exist_ok=True)
    try:
        for number, (log, path, turns) in enumerate(zip(complete, targets, done, strict=True), start=1):
            added = _value_game(log, path, turns, args)
            print(
                f"[{number}/{len(complete)}] {path.stem}: {added} decision(s) valued, {len(turns)} already done"
            )
    except KeyboardInterrupt:
        print("interrupted; run the same command again to continue where it stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as exc:
        print(f"hanabi-eval: error: cannot write values under {out}: {exc.strerror}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_OK


def _done_turns(path: Path, args: argparse.Namespace) -> set[int]:
    """Turns already valued in this file with the same settings; a torn last line is cut off."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    keep = data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):
        with path.open("r+b") as handle:
            handle.truncate(len(keep))
    turns = set()
    for line in keep.splitlines():
        record = json.loads(line)
        if record["rollouts"] != args.rollouts or record["base_seed"] != args.seed:
            raise UsageError(
                f"{path} holds values made with --rollouts {record['rollouts']} --seed {record['base_seed']}; "
                "repeat those options or delete the file"
            )
        turns.add(record["turn"])
    return turns


def _value_game(log: Any, path: Path, done: set[int], args: argparse.Namespace) -> int:
    """Value the game's decisions not in `done`, appending one line each; the number added."""
    from harness.play.values import move_values, position_view

    header = log.header
    added = 0
    history = [record.move for record in log.moves]
    with path.open("a", encoding="utf-8") as handle:
        for record in log.moves:
            if record.turn < args.from_turn or record.turn in done:
                continue
            view = position_view(header.players, header.deck, history[: record.turn - 1])
            seed = decision_seed(args.seed, header.game_id, record.turn)
            values = move_values(view, args.rollouts, seed)
            listed = {text: i for i, text in enumerate(record.legal_moves)}
            line = {
                "game_id": header.game_id,
                "turn": record.turn,
                "seat": record.seat,
                "player": record.player,
                "rollouts": args.rollouts,
                "base_seed": args.seed,
                "seed": seed,
                "bot": values.bot,
                "chosen": record.move.description,
                "best": view.legal_moves[values.best].description,
                "moves": [
                    {
                        "move": m.description,
                        "logged_index": listed.get(m.description),
                        "value": m.value,
                        "se": m.se,
                    }
                    for m in values.moves
                ],
            }
            handle.write(json.dumps(line) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
            added += 1
    return added
