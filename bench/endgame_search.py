"""What a rollout search near the deck's end would add to the built-in player (the rollout policy of move values).

Usage: .venv/bin/python bench/endgame_search.py --seeds 300 --players 2 --deck 3 --top 4 --rollouts 16 --jobs 2

Each seed is played twice by the same bot at every seat. The plain game follows the bot. The searched game follows it
too, except that with at most --deck cards left to draw the seat to move compares the bot's --top highest-rated moves
by rollouts (harness.play.values.rollout_scores: worlds dealt from what that seat can know, the bot playing on): it
plays the best of them only when it beats the bot's own choice by more than two standard errors of their paired
difference, else the bot's choice. Prints, per player count, both mean scores, the mean per-seed difference with its
standard error, searches per game and seconds per game of each. The search is one cautious step of policy
improvement on the bot (one move deep, over a few moves), so the difference is a lower bound on what the bot, as a
rollout policy, leaves on the table at the end of the game.
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

from bench.bot_selfplay import play_game
from bench.options import BenchParser, bot_build
from bench.parallel import map_chunked
from harness.bots import DEFAULT_BOT, bot_names, get_bot
from harness.bots.base import Bot
from harness.engine.game import Game, deck_for_seed
from harness.play.values import MAX_ROLLOUTS, rollout_scores
from harness.view.builder import build_view
from harness.view.seat_view import SeatView


@dataclass(frozen=True)
class SearchSettings:
    bot: str
    deck: int  # search with at most this many cards left to draw
    top: int  # the bot's highest-rated moves compared
    rollouts: int  # worlds per compared move


@dataclass(frozen=True)
class SeedResult:
    plain: int
    searched: int
    searches: int
    plain_seconds: float
    searched_seconds: float


def searched_move(view: SeatView, bot: Bot, settings: SearchSettings, seed: int) -> tuple[int, bool]:
    """The move the searched game plays (a legal-move index), and whether a search ran."""
    decision = bot.decide(view)
    if view.deck_size > settings.deck:
        return decision.move_index, False
    others = sorted(range(len(decision.ratings)), key=lambda i: -decision.ratings[i])
    ranked = [decision.move_index, *[i for i in others if i != decision.move_index]][: settings.top]
    if len(ranked) < 2:
        return decision.move_index, False
    moves = [view.legal_moves[i].move for i in ranked]
    scores = rollout_scores(view, moves, settings.rollouts, seed * 1000 + view.turn, settings.bot)
    best, best_gain = ranked[0], 0.0
    for index, got in zip(ranked[1:], scores[1:], strict=True):
        diff = [a - b for a, b in zip(got, scores[0], strict=True)]
        gain = statistics.fmean(diff)
        stderr = statistics.stdev(diff) / len(diff) ** 0.5 if len(diff) > 1 else 0.0
        if gain > best_gain and gain > 2 * stderr:
            best, best_gain = index, gain
    return best, True


def play_seed(settings: SearchSettings, players: int, seed: int) -> SeedResult:
    """Play one deal plainly and with the search; both final fireworks scores and the costs."""
    begin = time.perf_counter()
    plain = play_game(settings.bot, players, deck_for_seed(seed)).fireworks
    middle = time.perf_counter()
    bot = get_bot(settings.bot)
    game = Game(players, deck_for_seed(seed))
    searches = 0
    while not game.is_over:
        view = build_view(game.observe(game.current_player))
        index, searched = searched_move(view, bot, settings, seed)
        searches += searched
        game.apply(view.legal_moves[index].move)
    end = time.perf_counter()
    return SeedResult(plain, game.fireworks_sum, searches, middle - begin, end - middle)


def _play_many(settings: SearchSettings, players: int, seeds: list[int]) -> list[SeedResult]:
    return [play_seed(settings, players, seed) for seed in seeds]


def run(settings: SearchSettings, players: int, seeds: list[int], jobs: int) -> list[SeedResult]:
    """Every seed, in `jobs` worker processes (1: in this process); results in seed order."""
    return map_chunked(partial(_play_many, settings, players), seeds, jobs, chunks_per_job=8)


def main(argv: list[str] | None = None) -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--bot", default=DEFAULT_BOT, choices=bot_names())
    parser.add_argument("--seeds", type=int, default=100, help="play seeds 0..N-1 (default 100)")
    parser.add_argument("--players", type=int, nargs="+", default=[2], choices=[2, 3, 4, 5])
    parser.add_argument("--deck", type=int, default=3, help="search with at most this many cards to draw (3)")
    parser.add_argument("--top", type=int, default=4, help="the bot's highest-rated moves compared (4)")
    parser.add_argument("--rollouts", type=int, default=16, help="rollouts per compared move (16)")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPUs)"
    )
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    if args.deck < 0 or args.top < 2:
        parser.error("--deck must be at least 0 and --top at least 2")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if not 2 <= args.rollouts <= MAX_ROLLOUTS:
        parser.error(f"--rollouts must lie in 2..{MAX_ROLLOUTS}")
    if args.quick:  # two seeds at 2 players, a small search, over the same process pool
        args.seeds, args.players, args.rollouts, args.jobs = 2, [2], 2, min(args.jobs, 2)

    settings = SearchSettings(args.bot, args.deck, args.top, args.rollouts)
    seeds = list(range(args.seeds))
    print(
        f"bot {args.bot}, seeds 0..{args.seeds - 1}, search with <= {args.deck} cards to draw over the top "
        f"{args.top} moves, {args.rollouts} rollouts each, {args.jobs} job(s); smart bot {bot_build()}"
    )
    header = (
        f"{'players':>7} {'games':>6} {'plain':>6} {'search':>6} {'diff':>6} {'stderr':>6} "
        f"{'searches':>8} {'s/game plain':>12} {'s/game search':>13}"
    )
    print(header)
    print("-" * len(header))
    for players in args.players:
        results = run(settings, players, seeds, args.jobs)
        diff = [r.searched - r.plain for r in results]
        stderr = statistics.stdev(diff) / len(diff) ** 0.5 if len(diff) > 1 else 0.0
        print(
            f"{players:>7} {len(results):>6} {statistics.fmean(r.plain for r in results):>6.2f} "
            f"{statistics.fmean(r.searched for r in results):>6.2f} {statistics.fmean(diff):>+6.2f} "
            f"{stderr:>6.2f} {statistics.fmean(r.searches for r in results):>8.1f} "
            f"{statistics.fmean(r.plain_seconds for r in results):>12.3f} "
            f"{statistics.fmean(r.searched_seconds for r in results):>13.2f}"
        )


if __name__ == "__main__":
    main()
