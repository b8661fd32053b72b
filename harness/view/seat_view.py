"""SeatView: everything ONE seat may know at one moment, plus facts derived from it in Python (by builder.py).

A SeatView can only be built from an engine Observation of that seat (view/builder.py), which never contains the
seat's own cards. Templates and rule-based players read a SeatView (the smart bot: its PlayView, play_view.py, built
from the same observation) and nothing else, so the information boundary is structural.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from harness.engine.game import HistoryEntry, Knowledge
from harness.schema.moves import Move

_FROZEN = ConfigDict(frozen=True)


class OwnCard(BaseModel):
    """A card in the seat's own hand: only what hints and visible cards imply."""

    model_config = _FROZEN

    index: int
    slot: int  # H-group numbering: slot 1 is the newest card (HLE index n-1), slot n the oldest (index 0)
    clued: bool  # some hint touched this card
    knowledge: Knowledge
    candidates: dict[str, int]  # identities allowed by the could-be sets, with unseen copies of each
    playable_probability: float
    useless_probability: float


class VisibleCard(BaseModel):
    """A card in another player's hand, which the seat can see, with what its holder knows about it."""

    model_config = _FROZEN

    index: int
    slot: int  # H-group numbering: slot 1 is the newest card
    clued: bool
    card: str
    knowledge: Knowledge
    playable: bool
    useless: bool
    critical: bool  # the last copy of a card still needed


class OtherHand(BaseModel):
    model_config = _FROZEN

    player: int
    offset: int  # seats ahead of the viewing seat (hint targets use this)
    cards: tuple[VisibleCard, ...]
    chop: int | None  # HLE index of the oldest card no hint touched (None when every card is clued)


class LegalMove(BaseModel):
    model_config = _FROZEN

    index: int
    move: Move
    description: str
    target_player: int | None = None
    touches: tuple[int, ...] = ()  # for hints: the target's hand indices the hint would point at


class Event(BaseModel):
    """A move already made, as the paper's prompts report it: the engine's move string, and the fireworks and
    information tokens before and after it. No played or discarded card is named."""

    model_config = _FROZEN

    turn: int  # 1-based
    player: int
    offset: int  # seats ahead of the viewing seat (0: the seat itself)
    move: str  # HLE's text, hint targets relative to the mover: "(Reveal player +2 rank 5)"
    absolute_move: str  # the same with the target as an absolute id: "(Reveal player P3 rank 5)"
    fireworks_before: str  # "R4 Y4 G3 W2 B3"
    info_before: int
    fireworks_after: str
    info_after: int


class SeatView(BaseModel):
    model_config = _FROZEN

    seat: int
    num_players: int
    hand_size: int
    turn: int
    life_tokens: int
    max_life_tokens: int
    info_tokens: int
    max_info_tokens: int
    fireworks: dict[str, int]
    score: int
    max_score: int
    discards: tuple[str, ...]
    discard_counts: dict[str, int]  # card -> copies discarded, in colour then rank order
    deck_size: int
    own_hand: tuple[OwnCard, ...]
    own_chop: int | None  # HLE index of the seat's oldest card that no hint touched
    others: tuple[OtherHand, ...]  # in turn order, starting with the next player
    unseen: dict[str, int]  # copies this seat cannot see anywhere: in the deck or in its own hand
    history: tuple[HistoryEntry, ...]  # every move so far (all public)
    recent: tuple[HistoryEntry, ...]  # the other players' moves since this seat last moved
    events: tuple[Event, ...]  # every move so far, with the fireworks and info tokens around it
    recent_events: tuple[Event, ...]  # the events of `recent`
    final_round: bool
    last_player: int | None
    last_player_offset: int | None  # seats from this seat to the last player (0: this seat is last)
    turns_left: int | None  # once the deck is empty: moves left in the game, this one included
    legal_moves: tuple[LegalMove, ...]

    @property
    def engine_moves(self) -> tuple[Move, ...]:
        """The legal moves themselves, in order: what a reply's description of its move is checked against."""
        return tuple(legal.move for legal in self.legal_moves)

    def hand_of(self, player: int) -> OtherHand:
        for hand in self.others:
            if hand.player == player:
                return hand
        raise KeyError(f"player {player} is not another player of seat {self.seat}")
