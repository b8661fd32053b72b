"""A session's budget (--max-cost): what its runs have spent, in every session, against the limit no call may
take them past. A caller reserves what a request could cost at most before it is sent (harness.models.client),
and the answer settles it at what the provider charged. Worker processes share it in shared memory (`shared`).
"""

from __future__ import annotations

import threading
from typing import Any

from harness.schema.records import Attempt

_SPENT, _RESERVED, _REACHED, _REFUSED, _HELD = 0, 1, 2, 3, 4


class LimitReached(Exception):
    """A limit of the session was reached while a move was being asked: the move stops unmade and its game stays
    unfinished. `attempts` are the call's attempts the log keeps (provider errors retried, replies rejected, a reply
    that reached the limit). The game loop writes the move's answered calls to a "stopped" line worded by
    `stopped_line`, then lets this go on up to whoever set the limit: the session (BudgetReached), or Inspect."""

    stopped_line = "a limit of the session was reached while this move was being asked"

    def __init__(self, message: str, attempts: list[Attempt] | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts or []


class BudgetReached(LimitReached):
    """A call was not sent: it could have taken the spend past the budget (--max-cost)."""

    stopped_line = (
        "the run stopped at its budget (--max-cost) while this move was being asked; asked again on resume with a "
        "higher budget"
    )


class Budget:
    """The spend of a session's runs against `limit` USD: `spent` (earlier sessions' included), what calls in flight
    reserved, and whether a call was refused (and what it could have cost)."""

    def __init__(self, limit: float, spent: float = 0.0) -> None:
        self.limit = limit
        self._state: Any = [spent, 0.0, 0.0, 0.0, 0.0]
        self._lock: Any = threading.Lock()

    def shared(self, context: Any) -> Budget:
        """This budget in memory that processes of `context` (a multiprocessing context) share: pass it to them."""
        budget = Budget(self.limit)
        budget._state = context.Array("d", list(self._state), lock=False)
        budget._lock = context.Lock()
        return budget

    def take(self, other: Budget) -> None:
        """Hold what `other` (its copy shared with worker processes) holds now."""
        with self._lock:
            for index in (_SPENT, _RESERVED, _REACHED, _REFUSED, _HELD):
                self._state[index] = other._state[index]

    @property
    def spent(self) -> float:
        return float(self._state[_SPENT])

    @property
    def reached(self) -> bool:
        """Whether a call was refused: no call is sent any more."""
        return bool(self._state[_REACHED])

    @property
    def refused(self) -> tuple[float, float]:
        """What the first call refused could have cost at most, and what calls in flight held then."""
        return float(self._state[_REFUSED]), float(self._state[_HELD])

    def reserve(self, amount: float) -> bool:
        """Set `amount` aside for a call, if the spend, the calls in flight and it stay within the limit; otherwise
        refuse it, and every call after it."""
        with self._lock:
            state = self._state
            if state[_REACHED] or state[_SPENT] + state[_RESERVED] + amount > self.limit:
                if not state[_REACHED]:
                    state[_REACHED], state[_REFUSED], state[_HELD] = 1.0, amount, state[_RESERVED]
                return False
            state[_RESERVED] += amount
            return True

    def settle(self, reserved: float, cost: float) -> None:
        """A call reserved `reserved` and cost `cost`."""
        with self._lock:
            self._state[_RESERVED] -= reserved
            self._state[_SPENT] += cost
