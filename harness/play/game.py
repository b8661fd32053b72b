"""The game loop: seats take turns, each move becomes a durable MoveRecord, the game ends with a GameResult.

A game whose log already holds moves continues exactly where the log stops: the engine is rebuilt from the stored
deck and the logged moves, each logged state digest is checked against the rebuilt state, and each seat's working
memory is restored from its last move record. A log that does not match its deck is refused, never extended.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import Any

from harness import __version__
from harness.engine.game import MAX_LIFE_TOKENS, Game
from harness.engine.replay import replay
from harness.models.budget import LimitReached
from harness.models.client import sent_params_record
from harness.play.agent import SeatAgent
from harness.play.human import humans_of, show_humans, stop_humans
from harness.schema.log_file import GameLog, GameLogContents, finished_result, read_game_log
from harness.schema.records import (
    PROVIDER_ERROR_KINDS,
    Call,
    GameHeader,
    GamePlan,
    GameResult,
    MoveRecord,
    Usage,
    now_iso,
    total_cost,
    total_saving,
)
from harness.schema.secrets import public_seat
from harness.strategies.asking import Decision, Journal, MoveInterrupted, journal_calls
from harness.view.builder import build_view
from harness.view.seat_view import SeatView

MoveListener = Callable[[MoveRecord], None]
# why a stopped move's result line was written (status "stopped")
STOPPED_PAGE = "the run was stopped; it continues from this turn with `hanabi-eval resume`"
STOPPED = "the run was stopped (Ctrl-C or SIGTERM) while this move was being asked; asked again on resume"


def cache_key(run_id: str, game_id: str, seat: int) -> str:
    """The prompt-cache key of one seat of one game (OpenAI's prompt_cache_key): short, and naming nothing."""
    return "hanabi-" + hashlib.sha256(f"{run_id}/{game_id}/{seat}".encode()).hexdigest()[:16]


def rebuild(plan: GamePlan, deck: list[str], contents: GameLogContents) -> tuple[Game, dict[int, Any]]:
    """The engine state and seat memories at the end of a log, checked move by move."""
    memories: dict[int, Any] = {}
    last = None
    for last in replay(plan.players, deck, contents.moves, where=f"game {plan.game_id}"):
        if last.record is not None and last.record.memory is not None:
            memories[last.record.seat] = last.record.memory
    game = last.game if last is not None else Game(plan.players, deck)
    return game, memories


async def play_game(
    plan: GamePlan,
    deck: list[str],
    log_path: Any,
    agents: dict[int, SeatAgent],
    run_id: str,
    git_commit: str | None,
    on_move: MoveListener | None = None,
    cancelled_line: str = STOPPED,
) -> GameResult:
    """Play (or continue) one game to its end or to an interruption; return its result. Raises LimitReached when a
    limit of the session (its budget, an Inspect limit) stopped a move: the move is not made, the game stays
    unfinished. `cancelled_line` says why in the stopped line of a move a cancellation cut short."""
    finished = finished_result(log_path)
    if finished is not None:
        return finished
    contents = read_game_log(log_path)
    game, memories = rebuild(plan, deck, contents)
    moves = list(contents.moves)
    with GameLog(log_path, valid_bytes=contents.valid_bytes) as log:
        if contents.header is None:
            await log.append(
                GameHeader(
                    run_id=run_id,
                    game_id=plan.game_id,
                    seed=plan.seed,
                    seed_set=plan.seed_set,
                    repeat=plan.repeat,
                    deck=list(deck),
                    players=plan.players,
                    seats=[public_seat(s) for s in plan.seats],
                    harness_version=__version__,
                    git_commit=git_commit,
                    started_at=now_iso(),
                    sent_params=[sent_params_record(s) for s in plan.seats],
                )
            )
        humans = humans_of(dict(agents))  # seats a person plays: their table pages are shown every move
        who = tuple(s.label for s in plan.seats)
        while not game.is_over:
            seat = game.current_player
            if humans:
                show_humans(humans, plan.game_id, log_path, who, game)
            view = build_view(game.observe(seat))
            agent = agents[seat]
            journal: Journal = []  # the move's calls as they are answered
            try:
                key = cache_key(run_id, plan.game_id, seat)
                decision = await agent.decide(view, memories.get(seat), journal, key)
                game.apply(view.legal_moves[decision.reply.action].move)
                record = move_record(view, agent, decision, game)
                await log.append(record)  # whole or not at all: its one wait comes before it writes
            except MoveInterrupted as stop:
                stop_humans(humans, stop.reason)
                result = _result(game, moves, contents.failed_calls, stop.reason, seat, stop.calls)
                await log.append(result)
                await log.durable()
                return result
            except LimitReached as limit:  # the move is not made: what it was answered is kept, the game unfinished
                answered = journal_calls(journal, agent.config.model)
                if answered:
                    line = limit.stopped_line
                    stopped = _result(game, moves, contents.failed_calls, line, seat, answered, stop=True)
                    await log.append(stopped)
                    await log.durable()
                raise
            except asyncio.CancelledError:  # the run was stopped: keep what the move was answered so far
                stop_humans(humans, STOPPED_PAGE)
                answered = journal_calls(journal, agent.config.model)
                if answered:
                    stopped = _result(game, moves, contents.failed_calls, cancelled_line, seat, answered, stop=True)
                    await log.append(stopped)
                raise
            if decision.memory is not None:
                memories[seat] = decision.memory
            moves.append(record)
            if on_move is not None:
                on_move(record)
        result = _result(game, moves, contents.failed_calls, None, None, [])
        await log.append(result)
        await log.durable()
        if humans:
            show_humans(humans, plan.game_id, log_path, who, game)
        return result


def move_record(view: SeatView, agent: SeatAgent, decision: Decision, game: Game) -> MoveRecord:
    """The log record of a move just made: the view it was decided on, the decision with every call made for it,
    and the engine state after it (`game`, the move applied)."""
    reply = decision.reply
    return MoveRecord(
        turn=view.turn,
        seat=view.seat,
        player=agent.config.label,
        scaffold=agent.scaffold.name,
        legal_moves=[m.description for m in view.legal_moves],
        move_index=reply.action,
        move=view.legal_moves[reply.action].move,
        ratings=reply.ratings,
        invalid_ratings=reply.invalid_ratings,
        reason=reply.reason,
        calls=decision.calls,
        memory=decision.memory,
        tracking=decision.tracking,
        digest_after=game.digest(),
        fireworks_after=game.fireworks_sum,
        life_tokens_after=game.life_tokens,
        info_tokens_after=game.info_tokens,
    )


def _result(
    game: Game,
    moves: list[MoveRecord],
    earlier_failed: list[Call],
    interrupted: str | None,
    seat: int | None,
    failed_now: list[Call],
    stop: bool = False,
) -> GameResult:
    """The game's result so far (with `stop`, the line of a move a stop cut short: status "stopped"). Counts cover
    every call ever made for the game: the moves' calls and the failed calls of every interruption and stop (each
    such line holds only its own)."""
    calls = [c for m in moves for c in m.calls] + earlier_failed + failed_now
    attempts = [a for c in calls for a in c.attempts]
    return GameResult(
        status="stopped" if stop else "interrupted" if interrupted else "complete",
        interrupted_reason=interrupted,
        interrupted_seat=seat,
        end_reason=game.end_reason,
        fireworks_score=game.fireworks_sum,
        engine_score=game.score,
        turns=len(moves),
        lives_lost=MAX_LIFE_TOKENS - game.life_tokens,
        hints_given=sum(1 for m in moves if m.move.is_hint),
        calls=len(calls),
        retries=sum(len(c.attempts) - 1 for c in calls),
        invalid_replies=sum(1 for a in attempts if a.error_kind and a.error_kind not in PROVIDER_ERROR_KINDS),
        provider_errors=sum(1 for a in attempts if a.error_kind in PROVIDER_ERROR_KINDS),
        usage=sum((a.usage for a in attempts), Usage()),
        cost_usd=total_cost(attempts),
        cache_saving_usd=total_saving(attempts),
        failed_calls=failed_now,
        finished_at=now_iso(),
    )
