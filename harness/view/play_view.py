"""PlayView: the part of a seat's view that the smart bot reads, as plain classes (compiled with the bot,
setup.py) for play-outs, where SeatView's pydantic models cost a quarter of a step.

A PlayView is built from a seat's Observation (`builder.play_view`) or from its SeatView
(`builder.play_view_of`), never from anything else, so the bot sees only what the seat may know. Nothing may
change a PlayView once built.
"""

from __future__ import annotations

from harness.engine.game import HistoryEntry
from harness.schema.moves import Move, MoveKind


class TableFacts:
    """What the fireworks and the discard pile alone imply, shared by every view of that table (never changed)."""

    def __init__(
        self,
        discard_counts: dict[str, int],
        dead: frozenset[str],
        playable: frozenset[str],
        unseen: dict[str, int],
        status: dict[str, tuple[bool, bool, bool]],
    ) -> None:
        self.discard_counts = discard_counts  # in colour then rank order, without zeros
        self.dead = dead
        self.playable = playable
        self.unseen = unseen  # copies not on the table: in some hand or in the deck
        self.status = status  # every card: whether it is playable, useless, critical


class PlayCard:
    """A card in another player's hand (SeatView's VisibleCard, without what the bot does not read)."""

    def __init__(self, index: int, card: str, playable: bool, useless: bool, critical: bool) -> None:
        self.index = index
        self.card = card
        self.playable = playable
        self.useless = useless
        self.critical = critical


class PlayHand:
    """Another player's hand (SeatView's OtherHand): its cards, oldest first."""

    def __init__(self, player: int, cards: tuple[PlayCard, ...]) -> None:
        self.player = player
        self.cards = cards


class PlayMove:
    """A legal move (SeatView's LegalMove, whose index is its place in PlayView.legal_moves) with the engine move's
    fields beside it."""

    def __init__(self, move: Move, target_player: int | None, touches: tuple[int, ...]) -> None:
        self.move = move
        self.kind: MoveKind = move.kind
        self.card_index: int | None = move.card_index
        self.target_offset: int | None = move.target_offset
        self.color: str | None = move.color
        self.rank: int | None = move.rank
        self.target_player = target_player
        self.touches = touches  # for hints: the target's hand indices the hint would point at


class PlayView:
    """What the smart bot reads of a seat's view: the fields of SeatView of the same names, the own cards' candidates
    (OwnCard.candidates, oldest card first: cards with the same hint knowledge may share one dict), the facts of the
    table that the view was built from, and the legal moves as PlayMoves."""

    def __init__(
        self,
        seat: int,
        num_players: int,
        hand_size: int,
        life_tokens: int,
        info_tokens: int,
        max_info_tokens: int,
        deck_size: int,
        turns_left: int | None,
        fireworks: dict[str, int],
        unseen: dict[str, int],
        history: tuple[HistoryEntry, ...],
        own_candidates: tuple[dict[str, int], ...],
        others: tuple[PlayHand, ...],
        table: TableFacts,
        legal_moves: tuple[PlayMove, ...],
    ) -> None:
        self.seat = seat
        self.num_players = num_players
        self.hand_size = hand_size
        self.life_tokens = life_tokens
        self.info_tokens = info_tokens
        self.max_info_tokens = max_info_tokens
        self.deck_size = deck_size
        self.turns_left = turns_left
        self.fireworks = fireworks
        self.unseen = unseen
        self.history = history
        self.own_candidates = own_candidates
        self.others = others
        self.table = table  # the facts of the table (fireworks and discards), shared with every view of it
        self.legal_moves = legal_moves
