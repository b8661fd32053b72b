"""The one replay of a logged game: deal its stored deck and apply its moves in order, checking each against the log.

Resume, the report and the exports all read a game's states through `replay`. It yields one step per move with the
game as it stood before that move; the caller looks at that state, then calls `step.apply()` (or lets the loop go
on, which applies it). Given MoveRecords, every step is checked against the log: the seat and turn, the move's index
among the legal moves, its legality and the state digest after it. A log that does not replay raises
ReplayMismatch; nothing is ever repaired or guessed. Plain Moves (no record) get the legality check only.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence

from harness.engine.game import Game, HistoryEntry, IllegalMoveError
from harness.schema.moves import Move
from harness.schema.records import MoveRecord


class ReplayMismatch(ValueError):
    """A game log does not replay to the states it recorded."""


class ReplayStep:
    """One logged move and the game as it stood before it."""

    def __init__(self, game: Game, logged: MoveRecord | Move, where: str) -> None:
        self.game = game
        self.record = logged if isinstance(logged, MoveRecord) else None
        self.move = logged.move if isinstance(logged, MoveRecord) else logged
        self.seat = game.current_player
        self.entry: HistoryEntry | None = None
        self._where = where

    def apply(self) -> HistoryEntry:
        """Make the move (once) and return what it did; raises ReplayMismatch where the log and the engine differ."""
        if self.entry is not None:
            return self.entry
        record = self.record
        where = f"{self._where}turn {self.game.turn}"
        if record is not None:
            legal = self.game.legal_moves()
            if not 0 <= record.move_index < len(legal) or legal[record.move_index] != record.move:
                raise ReplayMismatch(
                    f"{where}: logged move {record.move.description} is not legal move "
                    f"{record.move_index} of the rebuilt state"
                )
        try:
            self.entry = self.game.apply(self.move)
        except IllegalMoveError as exc:
            raise ReplayMismatch(f"{where}: {exc}") from None
        if record is not None and not self.game.matches_digest(record.digest_after):
            raise ReplayMismatch(f"{where}: the rebuilt state does not match the logged state digest")
        return self.entry


def replay(
    players: int, deck: Sequence[str], moves: Sequence[MoveRecord | Move], where: str = ""
) -> Iterator[ReplayStep]:
    """Replay `moves` from the deck, one step per move (see the module docstring). `where` prefixes messages."""
    prefix = f"{where} " if where else ""
    game = Game(players, list(deck))
    for logged in moves:
        if isinstance(logged, MoveRecord) and (logged.turn != game.turn or logged.seat != game.current_player):
            raise ReplayMismatch(
                f"{prefix}turn {logged.turn}: the log says seat {logged.seat} moved, the engine expects "
                f"seat {game.current_player} at turn {game.turn}"
            )
        step = ReplayStep(game, logged, prefix)
        yield step
        step.apply()


def replay_to_end(players: int, deck: Sequence[str], moves: Sequence[MoveRecord | Move], where: str = "") -> Game:
    """The game after every move of `moves`, each checked as `replay` checks it."""
    last = deque(replay(players, deck, moves, where), maxlen=1)  # running the steps applies every move
    return last[0].game if last else Game(players, list(deck))
