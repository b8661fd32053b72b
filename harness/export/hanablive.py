"""hanab.live replays: a logged game as hanab.live's JSON game format, watchable in the standard Hanabi client.

hanab.live names cards by their ORDER (index in the deck), not by hand slot, so this module follows every card from
the deck into a hand: the initial deal fills player 0's hand first, then player 1's, and so on; after a play or
discard the card at that hand index leaves, later cards shift down, and the drawn card is appended (HLE's hand order,
index 0 the oldest card). Clues name the absolute player and a 0-based suit index (HLE's R, Y, G, W, B are
hanab.live's Red, Yellow, Green, Blue, Purple of "No Variant") or a rank 1-5.
"""

from __future__ import annotations

from harness.cards import COLORS, DECK_SIZE, HAND_SIZE, parse_card
from harness.engine import MoveKind
from harness.export.rows import HanabLiveAction, HanabLiveCard, HanabLiveGame
from harness.export.source import ExportGame
from harness.records import GameHeader, MoveRecord

PLAY, DISCARD, COLOR_CLUE, RANK_CLUE = 0, 1, 2, 3


class ReplayError(ValueError):
    """A logged move that cannot be placed in the dealt hands (the log does not match its deck)."""


class CardOrders:
    """Which deck card (by order) sits in which hand slot of which player."""

    def __init__(self, players: int) -> None:
        size = HAND_SIZE[players]
        self.hands: list[list[int]] = [list(range(p * size, (p + 1) * size)) for p in range(players)]
        self.next_order = players * size

    def remove(self, player: int, index: int) -> int:
        """Take the card at `index` out of `player`'s hand, draw the next card if any; return its order."""
        hand = self.hands[player]
        if not 0 <= index < len(hand):
            raise ReplayError(f"player {player} has no card {index} (hand of {len(hand)})")
        order = hand.pop(index)
        if self.next_order < DECK_SIZE:
            hand.append(self.next_order)
            self.next_order += 1
        return order


def player_names(header: GameHeader) -> list[str]:
    return [f"P{i} {seat.model}:{seat.scaffold}" for i, seat in enumerate(header.seats)]


def action_for(record: MoveRecord, players: int, orders: CardOrders) -> HanabLiveAction:
    move = record.move
    if move.kind in (MoveKind.PLAY, MoveKind.DISCARD):
        assert move.card_index is not None
        order = orders.remove(record.seat, move.card_index)
        return HanabLiveAction(type=PLAY if move.kind is MoveKind.PLAY else DISCARD, target=order)
    assert move.target_offset is not None
    target = (record.seat + move.target_offset) % players
    if move.kind is MoveKind.REVEAL_COLOR:
        assert move.color is not None
        return HanabLiveAction(type=COLOR_CLUE, target=target, value=COLORS.index(move.color))
    assert move.rank is not None
    return HanabLiveAction(type=RANK_CLUE, target=target, value=move.rank)


def replay(game: ExportGame) -> HanabLiveGame:
    """The whole game as hanab.live JSON (every logged move, whatever seats the filters selected)."""
    header = game.header
    deck = []
    for text in header.deck:
        color, rank = parse_card(text)
        deck.append(HanabLiveCard(suit_index=COLORS.index(color), rank=rank))
    orders = CardOrders(header.players)
    actions = []
    for record in game.moves:
        try:
            actions.append(action_for(record, header.players, orders))
        except ReplayError as exc:
            raise ReplayError(f"{game.run_id}/{header.game_id} turn {record.turn}: {exc}") from None
    return HanabLiveGame(players=player_names(header), deck=deck, actions=actions)


def replay_json(game: ExportGame) -> str:
    """The replay file's text: hanab.live's field names, no null fields."""
    return replay(game).model_dump_json(by_alias=True, exclude_none=True, indent=2) + "\n"


def file_name(game: ExportGame) -> str:
    return f"{game.run_id}__{game.header.game_id}.json"
