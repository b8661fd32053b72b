"""HLE's rules in pure Python, for rollouts: a game that gives the same legal moves, history entries and observations
as `Game` (engine/game.py) without a call into the C++ engine or a parse of its text.

Used only where a built-in player plays sampled worlds to their end (play/values.py); everything else uses `Game`.
Its moves are the engine's own Move objects and its card knowledge the engine's interned Knowledge objects, since the
view's caches go by identity. tests/engine/test_rollout_game.py plays it beside `Game` and compares every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final, NamedTuple

from harness.engine.game import (
    MAX_INFO_TOKENS,
    MAX_LIFE_TOKENS,
    HistoryEntry,
    IllegalMoveError,
    Knowledge,
    Observation,
    knowledge_from_text,
    player_moves,
)
from harness.engine.replay import ReplayMismatch
from harness.schema.cards import (
    COLORS,
    DECK_SIZE,
    HAND_SIZE,
    MAX_PLAYERS,
    MAX_SCORE,
    MIN_PLAYERS,
    RANKS,
    validate_deck,
)
from harness.schema.moves import Move, MoveKind
from harness.schema.trusted import trusted

_RANK_TEXTS = tuple(str(rank) for rank in RANKS)  # a card's rank as its text holds it
# Read once: each read of an Enum's member goes through the Enum class's __getattr__ hook.
_PLAY: Final = MoveKind.PLAY
_DISCARD: Final = MoveKind.DISCARD
_REVEAL_COLOR: Final = MoveKind.REVEAL_COLOR
_UNKNOWN = knowledge_from_text(f"XX|{''.join(COLORS)}{''.join(_RANK_TEXTS)}")  # a card no hint has touched
_HIDDEN = tuple((None,) * size for size in range(max(HAND_SIZE.values()) + 1))  # a seat's own cards, unseen


class _Moves(NamedTuple):
    """The moves of one player count (the engine's objects), grouped the way HLE numbers them: discards, plays,
    colour hints by target offset and colour, rank hints by target offset and rank. HLE lists legal moves by uid."""

    discards: tuple[Move, ...]  # by card index
    plays: tuple[Move, ...]
    colors: tuple[tuple[Move, ...], ...]  # [offset - 1][colour index]
    ranks: tuple[tuple[Move, ...], ...]  # [offset - 1][rank - 1]


@cache
def _moves(players: int) -> _Moves:
    """The engine's moves of this player count, grouped; RuntimeError if HLE's uid order is not discards, plays,
    colour hints, rank hints (the order in which the groups list legal moves)."""
    listed = player_moves(players)
    size, offsets = HAND_SIZE[players], range(1, players)
    by_fields = {(m.kind, m.card_index, m.target_offset, m.color, m.rank): m for m in listed}
    grouped = _Moves(
        discards=tuple(by_fields[MoveKind.DISCARD, i, None, None, None] for i in range(size)),
        plays=tuple(by_fields[MoveKind.PLAY, i, None, None, None] for i in range(size)),
        colors=tuple(tuple(by_fields[MoveKind.REVEAL_COLOR, None, o, c, None] for c in COLORS) for o in offsets),
        ranks=tuple(tuple(by_fields[MoveKind.REVEAL_RANK, None, o, None, r] for r in RANKS) for o in offsets),
    )
    ordered = [*grouped.discards, *grouped.plays, *(m for g in grouped.colors for m in g)]
    ordered += [m for g in grouped.ranks for m in g]
    if len(ordered) != len(listed) or any(a is not b for a, b in zip(ordered, listed, strict=True)):
        raise RuntimeError(f"HLE numbers the moves of {players} players otherwise than this module lists them")
    return grouped


_HINTED: dict[tuple[int, str, bool], tuple[Knowledge, Knowledge]] = {}


def _hinted(known: Knowledge, value: str, touched: bool) -> Knowledge:
    """A card's knowledge after a hint of `value` (a colour letter or a rank digit) that touches it or not, as
    HLE's CardKnowledge has it, remembered by the id of the object the entry itself holds."""
    key = (id(known), value, touched)
    found = _HINTED.get(key)
    if found is not None and found[0] is known:
        return found[1]
    color, rank = known.color or "X", "X" if known.rank is None else str(known.rank)
    colors, ranks = "".join(known.could_be_colors), "".join(map(str, known.could_be_ranks))
    if value in COLORS:
        color, colors = (value, value) if touched else (color, colors.replace(value, ""))
    else:
        rank, ranks = (value, value) if touched else (rank, ranks.replace(value, ""))
    after = knowledge_from_text(f"{color}{rank}|{colors}{ranks}")
    _HINTED[key] = (known, after)
    return after


class RolloutGame:
    """One game dealt from a stored deck, in plain Python: HLE's rules and nothing else. Player 0 moves first."""

    def __init__(self, players: int, deck: Sequence[str]) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Hanabi is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
        validate_deck(list(deck))
        size = HAND_SIZE[players]
        self.players = players
        self.hand_size = size
        self._deck = tuple(deck)
        self._moves = _moves(players)
        # Hands hold the cards oldest first, as tuples: a change replaces a hand, so copies share the unchanged ones.
        self._hands = [self._deck[p * size : (p + 1) * size] for p in range(players)]
        self._knowledge = [(_UNKNOWN,) * size for _ in range(players)]
        self._dealt = players * size
        self._fireworks = dict.fromkeys(COLORS, 0)  # replaced, never changed in place: copies share it
        self._score = 0
        self._discards: tuple[str, ...] = ()
        self._info = MAX_INFO_TOKENS
        self._lives = MAX_LIFE_TOKENS
        self._current = 0
        self._turns_to_play = players  # HLE's count of the moves left once the deck is empty
        self._history: list[HistoryEntry] = []
        self._last_player: int | None = None
        self._over = False
        self._legal: tuple[Move, ...] | None = None  # the legal moves of this state, once listed

    @classmethod
    def replay(cls, players: int, deck: Sequence[str], moves: Sequence[Move]) -> RolloutGame:
        """The game after `moves`, each checked to be legal: ReplayMismatch naming the turn otherwise, as
        `replay_to_end` says it."""
        game = cls(players, deck)
        for move in moves:
            try:
                game.apply(move)
            except IllegalMoveError as exc:
                raise ReplayMismatch(f"turn {game.turn}: {exc}") from None
        return game

    def copy(self) -> RolloutGame:
        """An independent game in the same state: the history list is copied, its entries and the hands shared."""
        # Set attribute by attribute: compiled (setup.py), an instance has no __dict__ to copy.
        twin = RolloutGame(self.players, self._deck)
        twin._hands = list(self._hands)
        twin._knowledge = list(self._knowledge)
        twin._dealt = self._dealt
        twin._fireworks = self._fireworks
        twin._score = self._score
        twin._discards = self._discards
        twin._info = self._info
        twin._lives = self._lives
        twin._current = self._current
        twin._turns_to_play = self._turns_to_play
        twin._history = list(self._history)
        twin._last_player = self._last_player
        twin._over = self._over
        twin._legal = self._legal
        return twin

    @property
    def turn(self) -> int:
        """1-based number of the next move."""
        return len(self._history) + 1

    @property
    def current_player(self) -> int:
        return self._current

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def fireworks_sum(self) -> int:
        """Cards played onto the fireworks: the paper's score, which stays counted after a third strike."""
        return self._score

    def legal_moves(self) -> tuple[Move, ...]:
        """Legal moves of the current player, in HLE's order (by move uid)."""
        if self._legal is None:
            self._legal = () if self._over else self._list_legal()
        return self._legal

    def _list_legal(self) -> tuple[Move, ...]:
        moves, hands, player = self._moves, self._hands, self._current
        held = len(hands[player])
        legal = list(moves.discards[:held]) if self._info < MAX_INFO_TOKENS else []
        legal += moves.plays[:held]
        if self._info > 0:
            targets = [hands[(player + offset) % self.players] for offset in range(1, self.players)]
            for hints, hand in zip(moves.colors, targets, strict=True):
                held_colors = {c[0] for c in hand}
                legal += [move for move, color in zip(hints, COLORS, strict=True) if color in held_colors]
            for hints, hand in zip(moves.ranks, targets, strict=True):
                held_ranks = {c[1] for c in hand}
                legal += [move for move, rank in zip(hints, _RANK_TEXTS, strict=True) if rank in held_ranks]
        return tuple(legal)

    def observe(self, seat: int) -> Observation:
        """The observation of one seat: equal to `Game.observe(seat)` in the same state."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} in a {self.players}-player game")
        hands: list[tuple[str | None, ...]] = list(self._hands)
        hands[seat] = _HIDDEN[len(hands[seat])]
        return trusted(
            Observation,
            {
                "seat": seat,
                "num_players": self.players,
                "hand_size": self.hand_size,
                "current_player": self._current,
                "turn": len(self._history) + 1,
                "life_tokens": self._lives,
                "info_tokens": self._info,
                "fireworks": dict(self._fireworks),
                "discards": self._discards,
                "deck_size": DECK_SIZE - self._dealt,
                "hands": tuple(hands),
                "knowledge": tuple(self._knowledge),
                "legal_moves": self.legal_moves() if seat == self._current else (),
                "history": tuple(self._history),
                "last_player": self._last_player,
                "is_over": self._over,
            },
        )

    def apply(self, move: Move) -> HistoryEntry:
        """Apply a legal move of the current player (IllegalMoveError if it is not one, worded as `Game` words it)."""
        if self._over:
            raise IllegalMoveError(f"the game is over; {move.description} cannot be played")
        legal = self.legal_moves()
        if not any(move is m for m in legal) and move not in legal:
            raise IllegalMoveError(f"{move.description} is not a legal move for player {self._current}")
        player, n = self._current, self.players
        if self._dealt == DECK_SIZE:
            self._turns_to_play -= 1
        card: str | None = None
        scored = False
        target: int | None = None
        revealed: tuple[int, ...] = ()
        kind = move.kind
        if kind is _PLAY or kind is _DISCARD:
            index = move.card_index
            assert index is not None
            hand, known = self._hands[player], self._knowledge[player]
            card = hand[index]
            hand, known = hand[:index] + hand[index + 1 :], known[:index] + known[index + 1 :]
            color, rank = card[0], int(card[1])
            if kind is _PLAY and self._fireworks[color] + 1 == rank:
                scored = True
                self._fireworks = {**self._fireworks, color: rank}
                self._score += 1
                if rank == len(RANKS) and self._info < MAX_INFO_TOKENS:
                    self._info += 1
            else:
                if kind is _PLAY:
                    self._lives -= 1
                else:
                    self._info += 1
                self._discards = (*self._discards, card)
            if self._dealt < DECK_SIZE:
                hand, known = (*hand, self._deck[self._dealt]), (*known, _UNKNOWN)
                self._dealt += 1
                if self._dealt == DECK_SIZE:
                    self._last_player = player
            self._hands[player], self._knowledge[player] = hand, known
        else:
            assert move.target_offset is not None
            target = (player + move.target_offset) % n
            if kind is _REVEAL_COLOR:
                assert move.color is not None
                value, at = move.color, 0
            else:
                value, at = str(move.rank), 1
            hand = self._hands[target]
            revealed = tuple(i for i, c in enumerate(hand) if c[at] == value)
            self._knowledge[target] = tuple(
                _hinted(k, value, i in revealed) for i, k in enumerate(self._knowledge[target])
            )
            self._info -= 1
        entry = trusted(
            HistoryEntry,
            {
                "turn": len(self._history) + 1,
                "player": player,
                "move": move,
                "card": card,
                "scored": scored,
                "target_player": target,
                "revealed": revealed,
            },
        )
        self._history.append(entry)
        self._current = (player + 1) % n
        self._over = self._lives < 1 or self._score >= MAX_SCORE or self._turns_to_play <= 0
        self._legal = None
        return entry
