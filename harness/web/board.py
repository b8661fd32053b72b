"""The board as one seat saw it at one moment: the other hands with their faces, its own hand as its hint knowledge and
could-be sets, fireworks, discards, tokens and deck; and, kept apart, the seat's true cards for the reveal toggle.

Built from the seat's SeatView (the same view its prompt was rendered from), so the page shows exactly what the
seat could know; the truth comes from the engine's hands and is only shown when the reader asks for it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.engine.game import Game, Knowledge
from harness.schema.cards import COLORS
from harness.view.builder import build_view
from harness.view.seat_view import SeatView


class Frozen(BaseModel):
    """What every page model of the viewer is: made once, never changed."""

    model_config = ConfigDict(frozen=True)


class CardCell(Frozen):
    """One card of a hand: its face when the seat can see it, else None; the holder's knowledge of it."""

    index: int  # HLE's index, as prompts number the cards
    face: str | None = None  # "R3", or None for the seat's own card
    truth: str  # the true card (for the seat's own hand, shown only on reveal)
    hinted_color: str | None
    hinted_rank: int | None
    could_be_colors: str  # e.g. "RYG"
    could_be_ranks: str  # e.g. "1245"
    playable_probability: float | None = None  # own cards: the chance it plays now, as far as the seat knows
    playable: bool | None = None  # visible cards: it plays now
    critical: bool | None = None  # visible cards: the last copy of a card still needed
    acted: bool = False  # the card this move played or discarded, or a card its hint touched


class HandRow(Frozen):
    player: int
    offset: int  # seats after the seat to move (0: its own hand)
    who: str  # the player's model:scaffold
    cards: list[CardCell]


class Board(Frozen):
    seat: int
    turn: int
    life_tokens: int
    max_life_tokens: int
    info_tokens: int
    max_info_tokens: int
    deck_size: int
    score: int
    fireworks: list[tuple[str, int]]  # (colour, height) in HLE's colour order
    discards: list[tuple[str, int]]  # (card, copies), colour then rank
    hands: list[HandRow]  # the seat's own hand first, then the others in turn order
    turns_left: int | None  # once the deck is empty: moves left, this one included


def color_letters(colors: set[str] | tuple[str, ...]) -> str:
    """Colours as their letters in HLE's order, e.g. "RYG"."""
    return "".join(c for c in COLORS if c in colors)


def rank_digits(ranks: set[int] | tuple[int, ...]) -> str:
    """Ranks as their digits in order, e.g. "1245"."""
    return "".join(str(r) for r in sorted(ranks))


def _cell(index: int, knowledge: Knowledge, acted: bool, **shown: Any) -> CardCell:
    """A card with its holder's knowledge of it; `shown`: its face, truth and marks."""
    return CardCell(
        index=index,
        hinted_color=knowledge.color,
        hinted_rank=knowledge.rank,
        could_be_colors=color_letters(knowledge.could_be_colors),
        could_be_ranks=rank_digits(knowledge.could_be_ranks),
        acted=acted,
        **shown,
    )


def board_of(game: Game, seat: int, who: list[str], acted: dict[int, set[int]] | None = None) -> Board:
    """The board `seat` saw in `game` now. `who` names each seat's player; `acted` marks cards by player and index
    (the card the move played or discarded, the cards its hint touched)."""
    return view_board(build_view(game.observe(seat)), who, acted, game.hands()[seat])


def view_board(
    view: SeatView, who: list[str] | tuple[str, ...], acted: dict[int, set[int]] | None, own_truth: list[str] | None
) -> Board:
    """The board of a SeatView; `own_truth` the seat's true cards for the reveal toggle, or None (the table page:
    the seat's own cards are known to no one who reads it)."""
    seat = view.seat
    marked = acted or {}
    own = [
        _cell(
            c.index,
            c.knowledge,
            c.index in marked.get(seat, set()),
            truth=own_truth[c.index] if own_truth is not None else "",
            playable_probability=c.playable_probability,
        )
        for c in view.own_hand
    ]
    others = [
        HandRow(
            player=hand.player,
            offset=hand.offset,
            who=who[hand.player],
            cards=[
                _cell(
                    c.index,
                    c.knowledge,
                    c.index in marked.get(hand.player, set()),
                    face=c.card,
                    truth=c.card,
                    playable=c.playable,
                    critical=c.critical,
                )
                for c in hand.cards
            ],
        )
        for hand in view.others
    ]
    return Board(
        seat=seat,
        turn=view.turn,
        life_tokens=view.life_tokens,
        max_life_tokens=view.max_life_tokens,
        info_tokens=view.info_tokens,
        max_info_tokens=view.max_info_tokens,
        deck_size=view.deck_size,
        score=view.score,
        fireworks=[(color, view.fireworks[color]) for color in COLORS],
        discards=list(view.discard_counts.items()),
        hands=[HandRow(player=seat, offset=0, who=who[seat], cards=own), *others],
        turns_left=view.turns_left,
    )
