"""Self-play benchmark for the rule-based bots: every seat runs the same bot, no LLM layer.

Usage: .venv/bin/python bench/bot_selfplay.py --bot smart --seeds 200 --players 2 3 4 5 --jobs 2 [--ray [ADDRESS]]

Decks come from harness.engine.game.deck_for_seed(seed) for seeds 0..N-1. Prints, per player count: games, mean
fireworks score with its standard error, the share of games lost to three strikes, the mean engine score (0 after
three strikes) and games per second (wall clock, over all worker processes).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after an installed harness (see options.py)

from bench.options import BenchParser, bot_build, positive_int
from bench.parallel import map_chunked
from harness.bots import DEFAULT_BOT, bot_names, get_bot
from harness.engine.game import Game, deck_for_seed
from harness.play.values import play_out
from harness.schema.moves import EndReason


@dataclass(frozen=True)
class GameResult:
    fireworks: int
    score: int
    struck_out: bool


def play_game(bot_name: str, players: int, deck: list[str]) -> GameResult:
    """Play one self-play game to the end and return its result."""
    game = Game(players, deck)
    play_out(game, get_bot(bot_name))
    return GameResult(game.fireworks_sum, game.score, game.end_reason is EndReason.LIVES_LOST)


def _play_many(bot_name: str, players: int, decks: list[list[str]]) -> list[GameResult]:
    return [play_game(bot_name, players, deck) for deck in decks]


def run(bot_name: str, players: int, decks: list[list[str]], jobs: int, ray: str | None = None) -> list[GameResult]:
    """Play one game per deck, in `jobs` worker processes (1: in this process) or as Ray tasks (`ray`: an address,
    or "" for a local Ray instance with `jobs` CPUs); results in deck order."""
    return map_chunked(partial(_play_many, bot_name, players), decks, jobs, ray=ray)


def main(argv: list[str] | None = None) -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--bot", default=DEFAULT_BOT, choices=bot_names())
    parser.add_argument("--seeds", type=positive_int, default=200, help="play seeds 0..N-1 (default 200)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5], choices=[2, 3, 4, 5])
    parser.add_argument(
        "--jobs", type=positive_int, default=os.cpu_count() or 1, help="worker processes (default: CPUs)"
    )
    parser.add_argument(
        "--ray", nargs="?", const="", metavar="ADDRESS", help="play as Ray tasks (no ADDRESS: a local Ray instance)"
    )
    args = parser.parse_args(argv)
    if args.quick:  # a few games at 2 players, over the same process pool
        args.seeds, args.players, args.jobs = 4, [2], min(args.jobs, 2)

    decks = [deck_for_seed(seed) for seed in range(args.seeds)]
    print(f"bot {args.bot}, seeds 0..{args.seeds - 1}, {args.jobs} job(s); smart bot {bot_build()}")
    header = (
        f"{'players':>7} {'games':>6} {'mean':>6} {'stderr':>6} {'3 strikes':>9} {'engine':>6} {'games/s':>8}"
    )
    print(header)
    print("-" * len(header))
    started = time.perf_counter()
    for players in args.players:
        begin = time.perf_counter()
        results = run(args.bot, players, decks, args.jobs, args.ray)
        elapsed = time.perf_counter() - begin
        scores = [r.fireworks for r in results]
        stderr = statistics.stdev(scores) / len(scores) ** 0.5 if len(scores) > 1 else 0.0
        strikeouts = sum(r.struck_out for r in results) / len(results)
        engine = statistics.fmean(r.score for r in results)
        print(
            f"{players:>7} {len(results):>6} {statistics.fmean(scores):>6.2f} {stderr:>6.2f} "
            f"{strikeouts:>9.1%} {engine:>6.2f} {len(results) / elapsed:>8.1f}"
        )
    print(f"total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
