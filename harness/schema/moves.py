"""A move and how a game ends: plain data that every log record, reader and player shares."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class MoveKind(StrEnum):
    PLAY = "play"
    DISCARD = "discard"
    REVEAL_COLOR = "reveal_color"
    REVEAL_RANK = "reveal_rank"


class EndReason(StrEnum):
    LIVES_LOST = "lives_lost"
    DECK_EXHAUSTED = "deck_exhausted"
    ALL_FIREWORKS = "all_fireworks_complete"


class Move(BaseModel):
    """A player's move. Hint targets are offsets relative to the mover (1 = next player), as in HLE."""

    model_config = ConfigDict(frozen=True)

    kind: MoveKind
    card_index: int | None = None
    target_offset: int | None = None
    color: str | None = None
    rank: int | None = None  # 1-based

    @property
    def description(self) -> str:
        """HLE's own text for the move, e.g. '(Play 2)' or '(Reveal player +1 color R)'."""
        if self.kind is MoveKind.PLAY:
            return f"(Play {self.card_index})"
        if self.kind is MoveKind.DISCARD:
            return f"(Discard {self.card_index})"
        if self.kind is MoveKind.REVEAL_COLOR:
            return f"(Reveal player +{self.target_offset} color {self.color})"
        return f"(Reveal player +{self.target_offset} rank {self.rank})"

    @property
    def is_hint(self) -> bool:
        return self.kind in (MoveKind.REVEAL_COLOR, MoveKind.REVEAL_RANK)
