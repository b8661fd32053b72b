"""Strategies by name: how a seat turns one SeatView into a Decision. A scaffold file names its strategy.

A strategy is a `Strategy` subclass in a module of its own, registered with `@register`; it decides a move
through `ctx.asker`, which reads replies strictly, re-asks and records every attempt. The built-in ones are
registered by harness.strategies.scaffold, which imports them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from harness.strategies.asking import Asker, Decision
from harness.strategies.definition import ScaffoldDef
from harness.view.seat_view import SeatView


@dataclass(frozen=True)
class TurnContext:
    """What a strategy has for one move besides the view."""

    scaffold: ScaffoldDef
    asker: Asker  # asks the seat's model about this view, strictly, re-asking on a bad reply
    memory: dict[str, Any] | None = None  # the seat's notes from its previous turn (working-memory scaffolds)


class Strategy(ABC):
    """How a seat decides a move; one instance per registered name."""

    name: ClassVar[str]
    takes_k: ClassVar[bool] = False  # whether a seat may set k (samples per move) for scaffolds of this strategy

    def check(self, scaffold: ScaffoldDef) -> str | None:
        """What is wrong with a scaffold file for this strategy (keys it needs or must not have); None if nothing."""
        return None

    @abstractmethod
    def calls_per_move(self, scaffold: ScaffoldDef, players: int) -> int:
        """Model calls one move makes when nothing is re-asked."""

    def calls_text(self, scaffold: ScaffoldDef) -> str:
        """Calls per move as people read it: "6 (5 for 2 players)"."""
        counts = {p: self.calls_per_move(scaffold, p) for p in range(2, 6)}
        if len(set(counts.values())) == 1:
            return str(counts[2])
        exceptions = ", ".join(f"{n} for {p} players" for p, n in counts.items() if n != counts[5])
        return f"{counts[5]} ({exceptions})"

    @abstractmethod
    async def decide(self, view: SeatView, ctx: TurnContext) -> Decision:
        """One move: ask the model (raising MoveInterrupted when it cannot give a valid reply) and decide."""


_STRATEGIES: dict[str, Strategy] = {}
S = TypeVar("S", bound=type[Strategy])


def register(cls: S) -> S:
    """Class decorator: make a strategy available under its `name` to scaffold files."""
    known = _STRATEGIES.get(cls.name)
    if known is not None and type(known) is not cls:
        raise ValueError(f"strategy {cls.name!r} is registered twice ({type(known).__name__}, {cls.__name__})")
    _STRATEGIES[cls.name] = cls()
    return cls


def strategy_names() -> list[str]:
    return sorted(_STRATEGIES)


def get_strategy(name: str) -> Strategy:
    """The strategy registered under `name`; KeyError names the known ones."""
    try:
        return _STRATEGIES[name]
    except KeyError:
        raise KeyError(f"unknown strategy {name!r}; known: {', '.join(strategy_names())}") from None
