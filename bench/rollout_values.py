"""Rollout move values: what one decision costs, and how noisy the values are against the rollout count.

Usage: PYTHONPATH=. python bench/rollout_values.py --players 2 4 --turns 10 40 --rollouts 32 --seed 0

Positions come from `local/smart` self-play on deck seed 0: for every player count and turn, the decision of the seat
to move at that turn. Each position gets one run of the largest rollout count; because rollout r always deals the
same world, its first k rollouts are exactly a run with k rollouts, so smaller counts are read from the same run.
Prints, per position and rollout count k: legal moves, the mean standard error of a value, the spread of values
between disjoint blocks of k rollouts (the noise a fresh seed would show), the regret of trusting k rollouts (the
whole run's value of its best move minus the whole run's value of each block's best move, averaged over blocks;
0 at the full count by definition), and the wall-clock cost of one decision at k rollouts (one process).
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.options import BenchParser
from harness.bots import DEFAULT_BOT, get_bot
from harness.engine.game import Game, deck_for_seed
from harness.play.values import MAX_ROLLOUTS, rollout_scores
from harness.view.seat_view import SeatView, build_view


def position(players: int, turn: int) -> SeatView:
    """The view of the seat to move at `turn` of a self-play game on deck seed 0 (or at its last turn)."""
    bot = get_bot(DEFAULT_BOT)
    game = Game(players, deck_for_seed(0))
    view = build_view(game.observe(game.current_player))
    while game.turn < turn:
        game.apply(view.legal_moves[bot.decide(view).move_index].move)
        if game.is_over:
            raise SystemExit(f"the {players}-player game ends before turn {turn}")
        view = build_view(game.observe(game.current_player))
    return view


def best(means: list[float]) -> int:
    return max(range(len(means)), key=lambda i: (means[i], -i))


def main(argv: list[str] | None = None) -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], choices=[2, 3, 4, 5])
    parser.add_argument("--turns", type=int, nargs="+", default=[10, 40])
    parser.add_argument(
        "--rollouts", type=int, default=32, help="largest rollout count (a power of two is best)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.quick:  # one late decision at 2 players, two rollouts per move
        args.players, args.turns, args.rollouts = [2], [40], 2
    if not 2 <= args.rollouts <= MAX_ROLLOUTS:
        parser.error(f"--rollouts must lie in 2..{MAX_ROLLOUTS}")
    counts = [k for k in (2**i for i in range(1, 11)) if k <= args.rollouts // 2] + [args.rollouts]

    header = (
        f"{'players':>7} {'turn':>4} {'moves':>5} {'k':>4} {'mean se':>7} {'spread':>6} {'regret':>6} "
        f"{'s/decision':>10}"
    )
    print(f"bot {DEFAULT_BOT}, deck seed 0, value seed {args.seed}, one process")
    print(header)
    print("-" * len(header))
    for players in args.players:
        for turn in args.turns:
            view = position(players, turn)
            moves = [legal.move for legal in view.legal_moves]
            begin = time.perf_counter()
            scores = rollout_scores(view, moves, args.rollouts, args.seed, DEFAULT_BOT)
            per_rollout = (time.perf_counter() - begin) / args.rollouts
            full = [statistics.fmean(s) for s in scores]
            overall = best(full)
            for k in counts:
                se = statistics.fmean(statistics.stdev(s[:k]) / math.sqrt(k) for s in scores)
                blocks = args.rollouts // k
                means = [[statistics.fmean(s[b * k : (b + 1) * k]) for s in scores] for b in range(blocks)]
                spread = (
                    statistics.fmean(statistics.stdev(block[m] for block in means) for m in range(len(moves)))
                    if blocks > 1
                    else float("nan")
                )
                regret = statistics.fmean(full[overall] - full[best(block)] for block in means)
                print(
                    f"{players:>7} {view.turn:>4} {len(moves):>5} {k:>4} {se:>7.2f} {spread:>6.2f} "
                    f"{regret:>6.2f} {per_rollout * k:>10.1f}"
                )


if __name__ == "__main__":
    main()
