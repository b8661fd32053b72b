"""hanab.live replays: a logged game in hanab.live's JSON format, cards named by their order in the deck
(followed from the deal into the hands), ending where hanab.live ends the game (HanabLiveEnd)."""

from __future__ import annotations

from collections import Counter

from harness.export.rows import HanabLiveAction, HanabLiveCard, HanabLiveGame, ReplayEnd
from harness.export.source import ExportGame
from harness.schema.cards import COLORS, DECK_SIZE, HAND_SIZE, parse_card
from harness.schema.errors import Refused
from harness.schema.moves import MoveKind
from harness.schema.records import GameHeader, MoveRecord

PLAY, DISCARD, COLOR_CLUE, RANK_CLUE = 0, 1, 2, 3
COPIES = {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}
MAX_STRIKES = 3


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
            raise Refused(f"player {player} has no card {index} (hand of {len(hand)})")
        order = hand.pop(index)
        if self.next_order < DECK_SIZE:
            hand.append(self.next_order)
            self.next_order += 1
        return order


class HanabLiveEnd:
    """hanab.live's end-of-game rules for "No Variant", applied action by action, as its server code has them
    (github.com/Hanabi-Live/hanabi-live, server/src: command_action.go `action()`, game.go `CheckEnd()`): at 3
    strikes; at the turn of the last draw + players + 1 (everyone moves once more); at the max score (per
    suit, the ranks up to the first whose copies are all discarded); or when no unfinished suit's next card is
    left outside the discards and the hands of players who have taken their last turn."""

    def __init__(self, deck: list[tuple[str, int]], players: int) -> None:
        self.deck = deck
        self.players = players
        self.stacks: dict[str, int] = {color: 0 for color in COLORS}
        self.discarded: Counter[tuple[str, int]] = Counter()
        self.dead: set[int] = set()  # card orders in the hands of players who have taken their last turn
        self.strikes = 0
        self.turn = 0  # 0-based, as on hanab.live
        self.end_turn: int | None = None
        self.ended: str | None = None

    @property
    def score(self) -> int:
        return sum(self.stacks.values())

    def max_score(self) -> int:
        best = 0
        for color in COLORS:
            rank = 0
            while rank < 5 and self.discarded[(color, rank + 1)] < COPIES[rank + 1]:
                rank += 1
            best += rank
        return best

    def apply(self, action: HanabLiveAction, hand_after: list[int], drew_last: bool) -> None:
        """Apply one action by the player to move; `hand_after` is that player's hand once they have drawn."""
        if action.type in (PLAY, DISCARD):
            card = self.deck[action.target]
            if action.type == PLAY and self.stacks[card[0]] == card[1] - 1:
                self.stacks[card[0]] = card[1]
            else:
                self.strikes += action.type == PLAY
                self.discarded[card] += 1
        if drew_last:
            self.end_turn = self.turn + self.players + 1
        elif self.end_turn is not None:
            self.dead.update(hand_after)
        self.turn += 1
        self.ended = self._end()

    def _end(self) -> str | None:
        if self.strikes >= MAX_STRIKES:
            return "strikeout"
        if self.turn == self.end_turn:
            return "final round"
        if self.score == self.max_score():
            return "max score"
        for color, height in self.stacks.items():
            if height < 5 and self._live_copy((color, height + 1)):
                return None
        return "no playable card"

    def _live_copy(self, needed: tuple[str, int]) -> bool:
        """Whether a copy of `needed` is neither discarded nor in a hand that will not move again."""
        copies = sum(1 for card in self.deck if card == needed)
        dead = sum(1 for order in self.dead if self.deck[order] == needed)
        return copies - dead - self.discarded[needed] > 0


def player_names(header: GameHeader) -> list[str]:
    return [
        f"P{i} {seat.model.partition(':')[2] or seat.model}" if seat.human else f"P{i} {seat.model}:{seat.scaffold}"
        for i, seat in enumerate(header.seats)
    ]


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


def replay_with_end(game: ExportGame, moves: list[MoveRecord]) -> tuple[HanabLiveGame, ReplayEnd]:
    """The whole game (every seat) as hanab.live JSON up to hanab.live's end, and that end beside HLE's."""
    header = game.header
    cards = [parse_card(text) for text in header.deck]
    deck = [HanabLiveCard(suit_index=COLORS.index(color), rank=rank) for color, rank in cards]
    orders = CardOrders(header.players)
    table = HanabLiveEnd(cards, header.players)
    actions = []
    for record in moves:
        try:
            drawn_before = orders.next_order
            action = action_for(record, header.players, orders)
            drew_last = drawn_before < DECK_SIZE and orders.next_order == DECK_SIZE
            table.apply(action, orders.hands[record.seat], drew_last)
            if table.score != record.fireworks_after:
                raise Refused(
                    f"fireworks {table.score} under hanab.live's rules but {record.fireworks_after} in the log"
                )
        except Refused as exc:
            raise Refused(f"{game.run_id}/{header.game_id} turn {record.turn}: {exc}; the log is damaged") from None
        actions.append(action)
        if table.ended:
            break
    end = ReplayEnd(
        run_id=game.run_id,
        game_id=header.game_id,
        file=file_name(game),
        hle_moves=len(moves),
        hle_score=game.result.fireworks_score,
        hanablive_actions=len(actions),
        hanablive_score=table.score,
        hanablive_end=table.ended or "log ends",
    )
    return HanabLiveGame(players=player_names(header), deck=deck, actions=actions), end


def file_name(game: ExportGame) -> str:
    return f"{game.run_id}__{game.header.game_id}.json"
