"""The interface every rule-based player implements: a Bot reads one SeatView and returns a BotDecision.

A decision names one legal move, rates every legal move in [-1, 1] (the chosen one strictly highest) and says why
in plain English. Bots are deterministic and keep no state between calls, so one instance can serve many seats and
games at once; everything they use comes from the SeatView.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, model_validator

from harness.bots.choice import best_index
from harness.engine.game import Observation
from harness.view.builder import build_view
from harness.view.seat_view import SeatView

# Ties at the top are broken towards the lower move index; the others are pushed down by this much.
TIE_MARGIN = 1e-3


class BotDecision(BaseModel):
    """One move chosen by a bot, with a rating for every legal move and a short reason."""

    model_config = ConfigDict(frozen=True)

    move_index: int  # index into view.legal_moves
    ratings: list[float]  # one per legal move, in view.legal_moves order, each in [-1, 1]
    reason: str

    @model_validator(mode="after")
    def _check(self) -> BotDecision:
        if not 0 <= self.move_index < len(self.ratings):
            raise ValueError(
                f"move_index {self.move_index} is not one of the {len(self.ratings)} rated moves"
            )
        if any(not -1.0 <= r <= 1.0 for r in self.ratings):
            raise ValueError("every rating must lie in [-1, 1]")
        best = self.ratings[self.move_index]
        if any(r >= best for i, r in enumerate(self.ratings) if i != self.move_index):
            raise ValueError("the chosen move must have the unique highest rating")
        return self


class Policy(Protocol):
    """A bot playing whole games: only the move, for the observations of one game's seats in turn (see Bot.policy).
    It builds what it reads from the observation (a SeatView, or the smart bot's PlayView), so it too sees only what
    the seat may know."""

    def choose(self, obs: Observation) -> int:
        """The index in obs.legal_moves of the move `Bot.decide` would choose on the seat's view."""
        ...


class Bot(ABC):
    """A rule-based Hanabi player that sees only a SeatView."""

    name: ClassVar[str]
    description: ClassVar[str]

    @abstractmethod
    def decide(self, view: SeatView) -> BotDecision:
        """Choose one of view.legal_moves (the view must be of the seat whose turn it is)."""

    def policy(self) -> Policy:
        """A player of one game's seats that chooses exactly as `decide` does, without ratings or reasons, and may
        keep what it worked out for a seat's earlier views (rollouts and self-play ask it for every move)."""
        return _Deciding(self)


class _Deciding:
    """The policy of a bot that keeps nothing between moves: `decide`'s choice."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def choose(self, obs: Observation) -> int:
        return self.bot.decide(build_view(obs, events=False)).move_index


def decide_by_ratings(ratings: list[float], reasons: list[str]) -> BotDecision:
    """Pick the highest-rated move (lowest index on ties), making its rating strictly the highest: ratings are
    clamped into [-1, 1], and moves tied with the chosen one lowered by TIE_MARGIN (at the very bottom of the
    scale, the chosen one raised instead)."""
    if len(ratings) != len(reasons):
        raise ValueError(f"{len(ratings)} ratings but {len(reasons)} reasons")
    # clamped first: best_index, compiled (setup.py), takes a list of numbers only
    clamped = [min(1.0, max(-1.0, float(r))) for r in ratings]
    best = best_index(clamped)
    top = clamped[best]
    tied = [i for i, r in enumerate(clamped) if i != best and r >= top]
    if tied:
        if top - TIE_MARGIN >= -1.0:
            for i in tied:
                clamped[i] = top - TIE_MARGIN
        else:
            clamped[best] = top + TIE_MARGIN
    return BotDecision(move_index=best, ratings=clamped, reason=reasons[best])
