"""The "cautious" bot: a simple baseline that never takes a risk and follows no clue convention.

It plays only cards it knows are playable, hints teammates about playable cards, and otherwise discards its oldest
card that no hint has touched.
"""

from __future__ import annotations

from harness.bots.base import Bot, BotDecision, decide_by_ratings
from harness.schema.moves import MoveKind
from harness.view.seat_view import LegalMove, SeatView


def _knows_playable(colors: tuple[str, ...], ranks: tuple[int, ...], fireworks: dict[str, int]) -> bool:
    """Whether every identity the could-be sets allow is playable (hint knowledge only, no card counting)."""
    return bool(colors and ranks) and all(fireworks[c] + 1 == r for c in colors for r in ranks)


class CautiousBot(Bot):
    name = "cautious"
    description = (
        "Simple baseline: plays only cards known to be playable, hints playable cards, otherwise discards its "
        "oldest unhinted card."
    )

    def decide(self, view: SeatView) -> BotDecision:
        oldest_unhinted = next((c.index for c in view.own_hand if not c.clued), 0)
        ratings, reasons = [], []
        for legal in view.legal_moves:
            move = legal.move
            if move.kind is MoveKind.PLAY and move.card_index is not None:
                rating, reason = self._rate_play(view, move.card_index)
            elif move.kind is MoveKind.DISCARD and move.card_index is not None:
                rating, reason = self._rate_discard(view, move.card_index, oldest_unhinted)
            else:
                rating, reason = self._rate_hint(view, legal)
            ratings.append(rating)
            reasons.append(reason)
        return decide_by_ratings(ratings, reasons)

    @staticmethod
    def _rate_play(view: SeatView, index: int) -> tuple[float, str]:
        p = view.own_hand[index].playable_probability
        if p == 1.0:
            return 0.9, f"Card {index} is known to be playable."
        return -0.5 - 0.4 * (1 - p), f"Card {index} is playable only with probability {p:.2f}; I never guess."

    @staticmethod
    def _rate_discard(view: SeatView, index: int, oldest_unhinted: int) -> tuple[float, str]:
        own = view.own_hand[index]
        if own.useless_probability == 1.0:
            return 0.25, f"Card {index} can no longer score."
        if own.clued:
            return -0.4, f"Card {index} was hinted; I keep hinted cards."
        if index == oldest_unhinted:
            return 0.2, f"Nothing to play or hint, so I discard my oldest unhinted card, card {index}."
        return 0.1 - 0.02 * index, f"Card {index} is unhinted but newer than card {oldest_unhinted}."

    @staticmethod
    def _rate_hint(view: SeatView, legal: LegalMove) -> tuple[float, str]:
        move = legal.move
        assert legal.target_player is not None
        hand = view.hand_of(legal.target_player)
        what = move.color if move.color else f"{move.rank}s"
        learned, touched_playable, touched_useless = [], 0, 0
        for index in legal.touches:
            c = hand.cards[index]
            k = c.knowledge
            colors = (move.color,) if move.color else k.could_be_colors
            ranks = (move.rank,) if move.rank else k.could_be_ranks
            if c.playable:
                touched_playable += 1
                knew = _knows_playable(k.could_be_colors, k.could_be_ranks, view.fireworks)
                if not knew and _knows_playable(colors, ranks, view.fireworks):
                    learned.append(c.card)
            elif c.useless:
                touched_useless += 1
        penalty = 0.05 * touched_useless
        if learned:
            rating = 0.5 + 0.1 * min(len(learned), 3) - penalty
            shown = ", ".join(learned)
            return rating, f"Hinting {what} to player {legal.target_player} shows them they can play {shown}."
        if touched_playable:
            return 0.3 - penalty, f"Hinting {what} to player {legal.target_player} points at a playable card."
        return -0.1 - penalty, f"Hinting {what} to player {legal.target_player} only gives information."
