"""The desk of a human seat: where the game loop and the seat's table page (harness.web.table) meet.

The game loop shows the desk the seat's SeatView after every move and, on the seat's turn, waits there for the
person's move; the page's server reads the desk and hands it the move. The desk holds the seat's view only, never the
game state or another seat's reply. The game loop runs in an event loop and the server in threads, so every field is
read and written under the desk's condition, and a move reaches the waiting loop through `call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.view.seat_view import SeatView


@dataclass(frozen=True)
class FinishedGame:
    """A game this seat played to its end in this session (its viewer page may now be shown to the seat)."""

    game_id: str
    run_path: Path
    score: int
    max_score: int


@dataclass(frozen=True)
class DeskState:
    """What the table page of one seat is built from, copied out of its desk at one moment."""

    name: str
    version: int
    game_id: str | None
    run_path: Path | None
    who: tuple[str, ...]  # each seat's player label, by seat
    view: SeatView | None  # the seat's latest view (its own cards never in it)
    to_move: int | None  # the seat whose turn it is; None when the game is over
    waiting_s: float  # how long the seat to move has been deciding
    asking: int | None  # the turn whose move this seat's page may send now
    over: bool
    finished: tuple[FinishedGame, ...]
    stopped: str | None  # why play stopped, if it stopped before the game ended


@dataclass
class _Pending:
    turn: int
    moves: int  # legal moves offered
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[int]


@dataclass
class Desk:
    """One human seat's meeting point of the game loop and its table page; `token` is the page's secret."""

    name: str
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    condition: threading.Condition = field(default_factory=threading.Condition)
    state: DeskState = field(init=False)
    since: float = field(default_factory=time.monotonic)
    pending: _Pending | None = None
    closed: bool = False  # the table closed: no move will come

    def __post_init__(self) -> None:
        self.state = DeskState(self.name, 0, None, None, (), None, None, 0.0, None, False, (), None)

    def snapshot(self) -> DeskState:
        with self.condition:
            return replace(self.state, waiting_s=time.monotonic() - self.since)

    def wait(self, version: int, timeout_s: float) -> None:
        """Block until the desk changes past `version`, or `timeout_s` passes (the page's long poll)."""
        with self.condition:
            self.condition.wait_for(lambda: self.state.version != version, timeout_s)

    def settle(self, timeout_s: float) -> None:
        """Block until the seat is asked for a move, or play ends or stops, or `timeout_s` passes: a page drawn then
        shows a built-in partner's answer at once, rather than the moment between two moves."""
        with self.condition:
            self.condition.wait_for(self._settled, timeout_s)

    def _settled(self) -> bool:
        return self.state.asking is not None or self.state.over or self.state.stopped is not None

    def show(self, game_id: str, run_path: Path, who: tuple[str, ...], view: SeatView, to_move: int | None) -> None:
        """The seat's view after a move (or at the start); `to_move` None: the game is over."""
        with self.condition:
            finished = self.state.finished
            if to_move is None and all((f.game_id, f.run_path) != (game_id, run_path) for f in finished):
                finished = (*finished, FinishedGame(game_id, run_path, view.score, view.max_score))
            self.since = time.monotonic()
            self._update(
                game_id=game_id,
                run_path=run_path,
                who=who,
                view=view,
                to_move=to_move,
                asking=None,
                over=to_move is None,
                finished=finished,
                stopped=None,
            )

    def stop(self, reason: str) -> None:
        with self.condition:
            self.pending = None
            self._update(asking=None, stopped=reason)

    def cancel(self) -> None:
        """The table closed: a move waited for will not come (the game stops there, to be resumed)."""
        with self.condition:
            pending, self.pending = self.pending, None
            self.closed = True
        if pending is not None:
            pending.loop.call_soon_threadsafe(pending.future.cancel)

    async def ask(self, view: SeatView) -> int:
        """Wait for the person's move on this view: the index of one of its legal moves."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        with self.condition:
            if self.closed:
                raise asyncio.CancelledError
            self.pending = _Pending(view.turn, len(view.legal_moves), loop, future)
            self._update(view=view, asking=view.turn)
        try:
            return await future
        finally:
            with self.condition:
                if self.pending is not None and self.pending.future is future:
                    self.pending = None
                    self._update(asking=None)

    def submit(self, turn: int, move: int) -> str | None:
        """Take the move the page sent for `turn`, once; a refusal (why not) when this seat is not asked that turn
        or the move is not one of those offered."""
        with self.condition:
            pending = self.pending
            if pending is None:
                return f"turn {turn} is not yours to move now; nothing was played"
            if pending.turn != turn:
                return f"that move was for turn {turn}, and it is now turn {pending.turn}; nothing was played"
            if not 0 <= move < pending.moves:
                return f"move {move} is not one of the {pending.moves} legal moves; nothing was played"
            self.pending = None
            self._update(asking=None)
            pending.loop.call_soon_threadsafe(_settle, pending.future, move)
            return None

    def _update(self, **changes: Any) -> None:
        self.state = replace(self.state, version=self.state.version + 1, **changes)
        self.condition.notify_all()


def _settle(future: asyncio.Future[int], move: int) -> None:
    if not future.done():
        future.set_result(move)


class Table:
    """The desks of this process's human seats, by seat model string; opened by the table page's server."""

    def __init__(self) -> None:
        self._desks: dict[str, Desk] = {}
        self._lock = threading.Lock()

    def open(self, names: list[str]) -> dict[str, Desk]:
        with self._lock:
            self._desks = {name: Desk(name) for name in dict.fromkeys(names)}
            return dict(self._desks)

    def close(self, desks: dict[str, Desk]) -> None:
        """Close these desks (those of one table; another table may have opened since)."""
        with self._lock:
            self._desks = {name: desk for name, desk in self._desks.items() if desks.get(name) is not desk}

    def desk(self, name: str) -> Desk | None:
        with self._lock:
            return self._desks.get(name)


TABLE = Table()
