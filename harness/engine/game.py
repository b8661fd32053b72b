"""The Hanabi rules engine: a thin, safe wrapper around the Hanabi Learning Environment (pyhanabi).

This is the only module that imports pyhanabi. It deals games from a stored 50-card deck (never from the engine's
own random generator, whose deck order can differ between C++ standard libraries), lists legal moves in HLE's
order with HLE's descriptions, applies only moves it has checked to be legal (an illegal move would abort the
whole interpreter), extracts plain per-seat observations, and rebuilds a game from its deck and move list.
It must never expose a seat's own hidden cards through `observe`.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import NamedTuple

from hanabi_learning_environment import pyhanabi as ph
from pydantic import BaseModel, ConfigDict

from harness.schema.cards import (
    COLORS,
    DECK_SIZE,
    HAND_SIZE,
    MAX_PLAYERS,
    MAX_SEED,
    MIN_PLAYERS,
    MIN_SEED,
    RANKS,
    validate_deck,
)
from harness.schema.moves import EndReason, Move, MoveKind

MAX_LIFE_TOKENS = 3
MAX_INFO_TOKENS = 8


class IllegalMoveError(ValueError):
    """A move that is not legal in the current state was about to reach the C++ core."""


class Knowledge(BaseModel):
    """What a card's holder knows about it from hints: directly hinted values and HLE's could-be sets."""

    model_config = ConfigDict(frozen=True)

    color: str | None
    rank: int | None
    could_be_colors: tuple[str, ...]
    could_be_ranks: tuple[int, ...]


class HistoryEntry(BaseModel):
    """One move already made, with its public outcome. Players are absolute seat numbers."""

    model_config = ConfigDict(frozen=True)

    turn: int  # 1-based
    player: int
    move: Move
    card: str | None = None  # the card played or discarded
    scored: bool = False
    target_player: int | None = None
    revealed: tuple[int, ...] = ()  # hand indices the hint touched


class Observation(BaseModel):
    """Everything one seat may know, extracted from HLE's observation for that seat. Players are absolute."""

    model_config = ConfigDict(frozen=True)

    seat: int
    num_players: int
    hand_size: int
    current_player: int
    turn: int  # 1-based number of the next move
    life_tokens: int
    info_tokens: int
    fireworks: dict[str, int]
    discards: tuple[str, ...]
    deck_size: int
    # hands[p][i]: the card, or None for the observing seat's own cards.
    hands: tuple[tuple[str | None, ...], ...]
    knowledge: tuple[tuple[Knowledge, ...], ...]
    legal_moves: tuple[Move, ...]  # empty unless it is this seat's turn
    history: tuple[HistoryEntry, ...]
    last_player: int | None  # once the deck is empty: the player who makes the game's last move
    is_over: bool


def _card_text(color_index: int, rank_index: int) -> str:
    return f"{COLORS[color_index]}{rank_index + 1}"


def _move_from_hle(move: ph.HanabiMove) -> Move:
    kind = move.type()
    if kind == ph.HanabiMoveType.PLAY:
        return Move(kind=MoveKind.PLAY, card_index=move.card_index())
    if kind == ph.HanabiMoveType.DISCARD:
        return Move(kind=MoveKind.DISCARD, card_index=move.card_index())
    if kind == ph.HanabiMoveType.REVEAL_COLOR:
        return Move(
            kind=MoveKind.REVEAL_COLOR, target_offset=move.target_offset(), color=COLORS[move.color()]
        )
    if kind == ph.HanabiMoveType.REVEAL_RANK:
        return Move(kind=MoveKind.REVEAL_RANK, target_offset=move.target_offset(), rank=move.rank() + 1)
    raise ValueError(f"not a player move: {move}")


@cache
def _move_table(players: int) -> tuple[list[ph.HanabiMove], tuple[Move, ...]]:
    """HLE's move objects of a game with this many players and their Moves, by uid: built once per player
    count (a move holds no reference to its game), so that listing, checking or applying a move allocates
    nothing."""
    game = ph.HanabiGame({"players": players, "seed": 0, "random_start_player": False})
    hle = [game.get_move(uid) for uid in range(game.max_moves())]
    return hle, tuple(_move_from_hle(move) for move in hle)


def player_moves(players: int) -> tuple[Move, ...]:
    """Every player move of a game with this many players, in HLE's uid order: the very Move objects `legal_moves()`
    lists (engine/rollout_game.py hands out the same ones, since views cache by a move's identity)."""
    return _move_table(players)[1]


@cache
def _deal_moves() -> dict[str, ph.HanabiMove]:
    """One DEAL move per card identity, harvested from a throwaway game's history (HLE has no constructor)."""
    found: dict[str, ph.HanabiMove] = {}
    seed = 0
    while len(found) < len(COLORS) * len(RANKS):
        game = ph.HanabiGame({"players": 2, "seed": seed, "random_start_player": False})
        for drawn, move in _draw_whole_deck(game):
            found.setdefault(drawn, move)
        seed += 1
    return found


def _draw_whole_deck(game: ph.HanabiGame) -> list[tuple[str, ph.HanabiMove]]:
    """Deal a game from its own generator until the deck is empty; return the deals in order. It discards the
    oldest card whenever a hint token is spent, else hints the next player a rank they hold, so that the game
    cannot end before every card is drawn (HLE's draw order for a seed does not depend on the moves)."""
    discard = ph.HanabiMove.get_discard_move(0)
    hints = [ph.HanabiMove.get_reveal_rank_move(1, rank) for rank in range(len(RANKS))]
    state = game.new_initial_state()
    while (not state.is_terminal() and state.deck_size() > 0) or state.cur_player() == ph.CHANCE_PLAYER_ID:
        if state.cur_player() == ph.CHANCE_PLAYER_ID:
            state.deal_random_card()
            continue
        move = next((m for m in [discard, *hints] if state.move_is_legal(m)), None)
        if move is None:  # never in a standard game: some hint or discard is always legal
            raise RuntimeError("no discard or rank hint is legal while drawing the deck")
        state.apply_move(move)
    deals = []
    for item in state.move_history():
        move = item.move()
        if move.type() == ph.HanabiMoveType.DEAL:
            deals.append((_card_text(move.color(), move.rank()), move))
    return deals


def deck_for_seed(seed: int) -> list[str]:
    """The 50-card deck HLE deals for `seed` on this platform. Store it: other platforms may deal differently."""
    if not MIN_SEED <= seed <= MAX_SEED:  # HLE would abort the whole process (std::stoi out of range)
        raise ValueError(f"seed {seed} is outside {MIN_SEED}-{MAX_SEED}, the seeds the engine takes")
    game = ph.HanabiGame({"players": 2, "seed": seed, "random_start_player": False})
    deck = [drawn for drawn, _ in _draw_whole_deck(game)]
    validate_deck(deck)
    return deck


class Game:
    """One game of Hanabi dealt from a stored deck. Player 0 moves first."""

    def __init__(self, players: int, deck: list[str]) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Hanabi is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
        validate_deck(deck)
        self.players = players
        self.deck: tuple[str, ...] = tuple(deck)
        # The state keeps a raw pointer into the game object: both live exactly as long as this Game.
        self._game = ph.HanabiGame({"players": players, "seed": 0, "random_start_player": False})
        self._state = self._game.new_initial_state()
        self._dealt = 0
        self._history: list[HistoryEntry] = []
        self._last_player: int | None = None
        self._legal_cache: list[tuple[Move, int]] | None = None  # the legal moves with their HLE move uids
        self._over: bool | None = None
        self._deal_pending()

    # ---- construction ------------------------------------------------------------------------------------------

    def _deal_pending(self) -> None:
        deals = _deal_moves()
        while self._state.cur_player() == ph.CHANCE_PLAYER_ID:
            if self._dealt >= DECK_SIZE:
                raise RuntimeError("the engine asked for a card after the whole deck was dealt")
            self._state.apply_move(deals[self.deck[self._dealt]])
            self._dealt += 1

    # ---- reading the state -------------------------------------------------------------------------------------

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[self.players]

    @property
    def turn(self) -> int:
        """1-based number of the next move."""
        return len(self._history) + 1

    @property
    def history(self) -> tuple[HistoryEntry, ...]:
        return tuple(self._history)

    @property
    def current_player(self) -> int:
        return self._state.cur_player()

    @property
    def is_over(self) -> bool:
        if self._over is None:
            self._over = self._state.is_terminal()
        return self._over

    @property
    def life_tokens(self) -> int:
        return self._state.life_tokens()

    @property
    def info_tokens(self) -> int:
        return self._state.information_tokens()

    @property
    def deck_size(self) -> int:
        return self._state.deck_size()

    @property
    def fireworks(self) -> dict[str, int]:
        return dict(zip(COLORS, self._state.fireworks(), strict=True))

    @property
    def fireworks_sum(self) -> int:
        """Cards played onto the fireworks: the paper's score, which stays counted after a third strike."""
        return sum(self._state.fireworks())

    @property
    def score(self) -> int:
        """HLE's score: the fireworks sum, or 0 once all lives are lost (the AH2AC2 / SPIN-Bench convention)."""
        return 0 if self.life_tokens == 0 else self.fireworks_sum

    @property
    def end_reason(self) -> EndReason | None:
        status = self._state.end_of_game_status()
        return {
            ph.HanabiEndOfGameType.OUT_OF_LIFE_TOKENS: EndReason.LIVES_LOST,
            ph.HanabiEndOfGameType.OUT_OF_CARDS: EndReason.DECK_EXHAUSTED,
            ph.HanabiEndOfGameType.COMPLETED_FIREWORKS: EndReason.ALL_FIREWORKS,
        }.get(status)

    @property
    def last_player(self) -> int | None:
        """Once the deck is empty, the player who moves last (the one who drew the last card)."""
        return self._last_player

    def hands(self) -> list[list[str]]:
        """Every player's true hand, oldest card first. Ground truth: never put this in a seat's prompt."""
        return [[str(c) for c in hand] for hand in self._state.player_hands()]

    def knowledge(self, player: int) -> list[Knowledge]:
        """What `player` knows about each of their own cards from hints (HLE's could-be sets)."""
        observation = self._state.observation(player)
        return [knowledge_from_text(str(k)) for k in observation.card_knowledge()[0]]

    def legal_moves(self) -> list[Move]:
        """Legal moves of the current player, in HLE's order: the index in this list is the move number."""
        return [move for move, _ in self._legal()]

    def _legal(self) -> list[tuple[Move, int]]:
        """The legal moves with their HLE move uids, read from the engine once per state."""
        if self._legal_cache is None:
            hle, moves = _move_table(self.players)
            legal = [] if self.is_over else _legal_uids(self._state, hle)
            self._legal_cache = [(moves[uid], uid) for uid in legal]
        return self._legal_cache

    def discards(self) -> list[str]:
        return [str(c) for c in self._state.discard_pile()]

    def digest(self) -> str:
        """A short fingerprint of the whole state (HLE's text of it, with the move count), to check that a
        rebuilt game matches its log."""
        return hashlib.sha256(f"{self.turn}|{self._state}".encode()).hexdigest()[:16]

    def first_commit_digest(self) -> str:
        """The fingerprint the first logs hold: the same state, hashed as a JSON object of its parts. Those logs are
        schema version 1 like every later one, so replays accept either fingerprint."""
        payload = {
            "turn": self.turn,
            "current": self.current_player,
            "life": self.life_tokens,
            "info": self.info_tokens,
            "fireworks": self.fireworks,
            "deck": self.deck_size,
            "discards": self.discards(),
            "hands": self.hands(),
            "knowledge": [[k.model_dump(mode="json") for k in self.knowledge(p)] for p in range(self.players)],
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    def matches_digest(self, logged: str) -> bool:
        """Whether a logged state fingerprint is this state's, as this code or the first commit wrote it."""
        return logged == self.digest() or logged == self.first_commit_digest()

    def observe(self, seat: int) -> Observation:
        """The observation of one seat, built from HLE's observation for that seat only."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} in a {self.players}-player game")
        seen = _read_observation_text(str(self._state.observation(seat)))
        n = self.players
        hands: list[tuple[str | None, ...]] = [()] * n
        knowledge: list[tuple[Knowledge, ...]] = [()] * n
        for relative, cards in enumerate(seen.hands):
            absolute = (seat + relative) % n
            hands[absolute] = tuple(None if relative == 0 else card for card, _ in cards)
            knowledge[absolute] = tuple(knowledge_from_text(known) for _, known in cards)
        is_turn = self.current_player == seat and not self.is_over
        return Observation(
            seat=seat,
            num_players=n,
            hand_size=self.hand_size,
            current_player=self.current_player,
            turn=self.turn,
            life_tokens=seen.life_tokens,
            info_tokens=seen.info_tokens,
            fireworks=seen.fireworks,
            discards=seen.discards,
            deck_size=seen.deck_size,
            hands=tuple(hands),
            knowledge=tuple(knowledge),
            legal_moves=tuple(self.legal_moves()) if is_turn else (),
            history=tuple(self._history),
            last_player=self._last_player,
            is_over=self.is_over,
        )

    # ---- changing the state ------------------------------------------------------------------------------------

    def apply(self, move: Move) -> HistoryEntry:
        """Apply a legal move of the current player; raise IllegalMoveError (before the C++ core sees it) if not."""
        if self.is_over:
            raise IllegalMoveError(f"the game is over; {move.description} cannot be played")
        legal_moves = self._legal()  # a move taken from legal_moves() is found by identity, without comparing fields
        chosen = next((uid for legal, uid in legal_moves if legal is move), None)
        if chosen is None:
            chosen = next((uid for legal, uid in legal_moves if legal == move), None)
        if chosen is None:
            raise IllegalMoveError(f"{move.description} is not a legal move for player {self.current_player}")
        player = self.current_player
        history_index = ph.lib.StateLenMoveHistory(self._state._state)
        self._state.apply_move(_move_table(self.players)[0][chosen])  # legal: one of this state's legal uids
        item = _history_item(self._state, history_index)
        card = None
        if move.kind in (MoveKind.PLAY, MoveKind.DISCARD):
            card = _card_text(item.color(), item.rank())
        entry = HistoryEntry(
            turn=len(self._history) + 1,
            player=player,
            move=move,
            card=card,
            scored=item.scored(),
            target_player=(player + (move.target_offset or 0)) % self.players if move.is_hint else None,
            revealed=tuple(item.card_info_revealed()) if move.is_hint else (),
        )
        self._history.append(entry)
        self._legal_cache = None
        self._over = None
        self._deal_pending()
        if self._last_player is None and self.deck_size == 0 and card is not None:
            self._last_player = player
        return entry


class _ObservationText(NamedTuple):
    life_tokens: int
    info_tokens: int
    fireworks: dict[str, int]
    hands: list[list[tuple[str, str]]]  # per hand, from the observer on: (card or 'XX', knowledge text)
    deck_size: int
    discards: tuple[str, ...]


def _read_observation_text(text: str) -> _ObservationText:
    """The table and every hand, from the observer's on, read from HLE's text of one seat's observation (one
    call into the engine). It reads:
    'Life tokens: 2', 'Info tokens: 8', 'Fireworks: R0 Y0 G0 W0 B0 ', 'Hands:', then every hand from the
    observer's on, separated by '-----' (with a 'Cur player' line before the hand of the player to move), one
    card per line as 'G3 || XX|RYGWB1234' (the card, 'XX' when hidden from the observer, then its holder's
    knowledge), 'Deck size: 31', 'Discards: B5 Y2'."""
    lines = text.split("\n")
    if not (
        lines[0].startswith("Life tokens: ") and lines[3] == "Hands:" and lines[-1].startswith("Discards:")
    ):
        raise RuntimeError(f"unexpected HLE observation text: {text[:80]!r}")
    hands: list[list[tuple[str, str]]] = [[]]
    for line in lines[4:-2]:
        if line == "-----":
            hands.append([])
        elif line != "Cur player":
            card, _, known = line.partition(" || ")
            hands[-1].append((card, known))
    return _ObservationText(
        life_tokens=int(lines[0][len("Life tokens: ") :]),
        info_tokens=int(lines[1][len("Info tokens: ") :]),
        fireworks={item[0]: int(item[1:]) for item in lines[2][len("Fireworks: ") :].split()},
        hands=hands,
        deck_size=int(lines[-2][len("Deck size: ") :]),
        discards=tuple(lines[-1][len("Discards:") :].split()),
    )


@cache
def knowledge_from_text(text: str) -> Knowledge:
    """Parse HLE's knowledge text of one card, e.g. 'RX|R245' (hinted colour and rank, then the could-be
    colours and ranks), once per process: each text gives one Knowledge object (views cache by identity)."""
    hinted, plausible = text.split("|")
    return Knowledge(
        color=None if hinted[0] == "X" else hinted[0],
        rank=None if hinted[1] == "X" else int(hinted[1]),
        could_be_colors=tuple(ch for ch in plausible if ch.isalpha()),
        could_be_ranks=tuple(int(ch) for ch in plausible if ch.isdigit()),
    )


def _legal_uids(state: ph.HanabiState, moves: list[ph.HanabiMove]) -> list[int]:
    """The uids of a state's legal moves, in HLE's order (ascending uid; tests/engine/test_engine.py compares
    the two): one call into HLE per move, where pyhanabi's `legal_moves()` builds a Python object for each."""
    is_legal, c_state = ph.lib.MoveIsLegal, state._state
    return [uid for uid, move in enumerate(moves) if is_legal(c_state, move.c_move)]


def _history_item(state: ph.HanabiState, index: int) -> ph.HanabiHistoryItem:
    item = ph.ffi.new("pyhanabi_history_item_t*")
    ph.lib.StateGetMoveHistory(state._state, index, item)
    return ph.HanabiHistoryItem(item)
