"""A human seat's part in the game loop: its move asked at its desk (harness.models.human) and logged as the seat's
one attempt with the move and the time taken (no prompt, tokens or cost), and its view shown to its desk after
every move."""

from __future__ import annotations

import time
from pathlib import Path

from harness.engine.game import Game
from harness.formats import ParsedReply
from harness.models.human import HumanCaller
from harness.play.desk import TABLE
from harness.schema.records import Attempt, Call
from harness.strategies.asking import Decision, Journal, MoveInterrupted
from harness.view.builder import build_view
from harness.view.seat_view import SeatView

ROLE = "human"


async def human_decision(view: SeatView, caller: HumanCaller, journal: Journal) -> Decision:
    """The person's move on this view, from the seat's desk; MoveInterrupted when no table page serves the seat."""
    desk = TABLE.desk(caller.seat.model)
    if desk is None:
        raise MoveInterrupted(
            f"{caller.seat.model} is played by a person, and no table page serves it here; continue with "
            "`hanabi-eval resume RUN`, which serves it",
            [],
        )
    started = time.monotonic()
    attempts: list[Attempt] = []
    journal.append((ROLE, attempts))
    action = await desk.ask(view)
    attempts.append(
        Attempt(
            number=1,
            messages=[],
            reply=view.legal_moves[action].description,
            finish_reason="stop",
            cost_usd=0.0,
            latency_s=round(time.monotonic() - started, 3),
        )
    )
    reply = ParsedReply(action=action, ratings=[None] * len(view.legal_moves), invalid_ratings={}, reason="", extras={})
    return Decision(reply=reply, calls=[Call(role=ROLE, model=caller.seat.model, attempts=attempts)])


def humans_of(agents: dict[int, object]) -> dict[int, HumanCaller]:
    """The human seats of a game, by seat number."""
    found = {seat: getattr(agent, "client", None) for seat, agent in agents.items()}
    return {seat: client for seat, client in found.items() if isinstance(client, HumanCaller)}


def show_humans(humans: dict[int, HumanCaller], game_id: str, log_path: Path, who: tuple[str, ...], game: Game) -> None:
    """Show each human seat's desk its view of `game` now, and whose turn it is (None once the game is over)."""
    to_move = None if game.is_over else game.current_player
    for seat, caller in humans.items():
        desk = TABLE.desk(caller.seat.model)
        if desk is not None:
            desk.show(game_id, Path(log_path).parent.parent, who, build_view(game.observe(seat)), to_move)


def stop_humans(humans: dict[int, HumanCaller], reason: str) -> None:
    for caller in humans.values():
        desk = TABLE.desk(caller.seat.model)
        if desk is not None:
            desk.stop(reason)
