"""The one rule every bot's choice follows among rated moves, in its own module (no pydantic model) so that
the build compiles it with the smart bot; compiled, it checks that its argument is a list of numbers, so other
callers go through base.decide_by_ratings."""

from __future__ import annotations


def best_index(ratings: list[float]) -> int:
    """The move decide_by_ratings chooses: the highest rating once clamped into [-1, 1], the lowest index on ties."""
    if not ratings:
        raise ValueError(
            "no legal moves to choose from: the view is not of the seat to move, or the game is over"
        )
    best, top = 0, min(1.0, max(-1.0, float(ratings[0])))
    for index in range(1, len(ratings)):
        rating = min(1.0, max(-1.0, float(ratings[index])))
        if rating > top:  # strictly: the first of equal ratings stays chosen
            best, top = index, rating
    return best
