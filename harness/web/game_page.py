"""Everything a game's page shows, computed from its log: one step per logged move (the board as the seat to move
saw it, the prompts, every attempt of every call, ratings beside engine values, Mycroft's deductions beside the truth,
the move and what it did), a step per interruption, and the state where the log ends. The log is replayed through
the engine's one checked replay; a log that stops replaying keeps the steps before the mismatch and names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from harness.engine.game import Game
from harness.engine.replay import ReplayMismatch, ReplayStep, replay
from harness.run.store import RunDir
from harness.schema.log_file import GameLogContents
from harness.schema.moves import Move, MoveKind
from harness.schema.records import PROVIDER_ERROR_KINDS, Call, GameHeader, GameResult, Message, MoveRecord
from harness.schema.value_records import DecisionValueRecord, ValuesUnreadable, game_values
from harness.web.board import Board, Frozen, board_of
from harness.web.catalog import GameSummary
from harness.web.deductions import Deductions, deductions_of
from harness.web.marks import aligned_values, reasked, regret


class AttemptPage(Frozen):
    number: int
    sent: list[Message]  # attempt 1: every message; later ones: what was added to the first (reply, feedback)
    sent_whole: bool  # `sent` is the whole request
    reply: str | None
    reasoning: str | None
    error_kind: str | None
    error: str | None
    sent_back: bool  # `error` is the feedback the next attempt sent back to the model
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cost_usd: float | None
    accepted: bool


class CallPage(Frozen):
    role: str
    model: str
    attempts: list[AttemptPage]
    accepted: bool  # its last attempt was used


class RatedMove(Frozen):
    """A legal move as the seat was shown it, with the model's rating and the engine's value."""

    index: int
    description: str
    rating: float | None
    invalid_rating: str | None  # an out-of-range or unreadable rating, as given
    value: float | None
    se: float | None
    chosen: bool
    model_top: bool  # among the moves the model rated highest
    engine_best: bool  # among the moves with the best engine value


class Outcome(Frozen):
    """What the move did, from the engine's record of it."""

    kind: MoveKind
    card: str | None  # the card played or discarded
    scored: bool  # a play that went onto its firework
    strike: bool  # a play that did not: a life lost
    target: int | None  # a hint's target player
    color: str | None  # a colour hint's colour
    rank: int | None  # a rank hint's rank
    touched: list[int]  # the target's cards the hint touched
    news: bool  # a hint changed what its target could know about some card
    lives_after: int
    info_after: int
    fireworks_after: int


class MoveStep(Frozen):
    kind: Literal["move"] = "move"
    anchor: str
    turn: int
    seat: int
    player: str
    scaffold: str
    board: Board
    move: str  # as shown to the seat, e.g. "(Play 2)"
    outcome: Outcome
    rated: list[RatedMove]
    rated_any: bool  # the reply rated at least one move
    valued: bool  # engine values exist for this decision
    regret: float | None
    reason: str
    calls: list[CallPage]
    deductions: Deductions | None
    strike: bool
    reasked: bool


class StopStep(Frozen):
    """A move that was not made: the game stopped here, interrupted (its model gave no usable reply) or stopped by the
    user while the move was being asked (`by_user`), with every attempt made for it."""

    kind: Literal["stop"] = "stop"
    anchor: str
    turn: int
    seat: int
    player: str
    board: Board | None
    reason: str
    by_user: bool = False
    calls: list[CallPage]


class EndStep(Frozen):
    """Where the log ends: the game over, or a game not finished yet (its next seat's board)."""

    kind: Literal["end"] = "end"
    anchor: str
    turn: int
    board: Board
    over: bool


Step = MoveStep | StopStep | EndStep


class GamePage(Frozen):
    summary: GameSummary
    header: GameHeader
    result: GameResult | None
    steps: list[Step]
    problem: str | None  # where the log stops replaying, if it does
    values: str | None  # how the values were made ("16 rollouts of local/smart, seed 0"), if any
    torn: bool  # the log ends in a torn line (ignored)


def _attempts(call: Call) -> list[AttemptPage]:
    first = call.attempts[0].messages if call.attempts else []
    pages = []
    for position, attempt in enumerate(call.attempts):
        sent = attempt.messages
        whole = attempt.number == 1 or sent[: len(first)] != first
        pages.append(
            AttemptPage(
                number=attempt.number,
                sent=sent if whole else sent[len(first) :],
                sent_whole=whole,
                reply=attempt.reply,
                reasoning=attempt.reasoning,
                error_kind=str(attempt.error_kind) if attempt.error_kind else None,
                error=attempt.error,
                sent_back=attempt.error_kind is not None
                and attempt.error_kind not in PROVIDER_ERROR_KINDS
                and position + 1 < len(call.attempts),
                finish_reason=attempt.finish_reason,
                prompt_tokens=attempt.usage.prompt_tokens,
                completion_tokens=attempt.usage.completion_tokens,
                latency_s=attempt.latency_s,
                cost_usd=attempt.cost_usd,
                accepted=attempt.error_kind is None and attempt.reply is not None,
            )
        )
    return pages


def calls_page(calls: Sequence[Call]) -> list[CallPage]:
    pages = []
    for call in calls:
        attempts = _attempts(call)
        accepted = bool(attempts) and attempts[-1].accepted
        pages.append(CallPage(role=call.role, model=call.model, attempts=attempts, accepted=accepted))
    return pages


def _rated(record: MoveRecord, values: DecisionValueRecord | None) -> tuple[list[RatedMove], bool]:
    engine = aligned_values(record, values)
    rated = [r for r in record.ratings if r is not None]
    top = max(rated) if rated else None
    best = max(m.value for m in engine) if engine else None
    rows = []
    for index, description in enumerate(record.legal_moves):
        rating = record.ratings[index] if index < len(record.ratings) else None
        value = engine[index] if engine else None
        rows.append(
            RatedMove(
                index=index,
                description=description,
                rating=rating,
                invalid_rating=record.invalid_ratings.get(str(index)),
                value=value.value if value else None,
                se=value.se if value else None,
                chosen=index == record.move_index,
                model_top=top is not None and rating == top,
                engine_best=value is not None and value.value == best,
            )
        )
    return rows, engine is not None


def _acted(game: Game, seat: int, move: Move, target: int | None) -> dict[int, set[int]]:
    """The cards a move acts on, by player: the card it plays or discards, or every card of the hinted colour or
    rank in the hand of `target`, the hint's target player (the cards the hint touches)."""
    if target is None:
        return {seat: {move.card_index}} if move.card_index is not None else {}
    hand = game.hands()[target]
    if move.kind is MoveKind.REVEAL_COLOR:
        return {target: {i for i, card in enumerate(hand) if card[0] == move.color}}
    return {target: {i for i, card in enumerate(hand) if int(card[1]) == move.rank}}


def _move_step(step: ReplayStep, who: list[str], values: DecisionValueRecord | None) -> MoveStep:
    """A logged move's step: everything shown is read before the replay step makes the move, then what it did."""
    game, record, seat = step.game, step.record, step.seat
    assert record is not None  # replayed from MoveRecords
    target = (seat + (record.move.target_offset or 0)) % game.players if record.move.is_hint else None
    board = board_of(game, seat, who, _acted(game, seat, record.move, target))
    notes = deductions_of(game, seat, record.memory, record.tracking)
    known_before = game.knowledge(target) if target is not None else None
    entry = step.apply()
    strike = record.move.kind is MoveKind.PLAY and not entry.scored
    rated, valued = _rated(record, values)
    return MoveStep(
        anchor=f"t{record.turn}",
        turn=record.turn,
        seat=seat,
        player=record.player,
        scaffold=record.scaffold,
        board=board,
        move=record.legal_moves[record.move_index],
        outcome=Outcome(
            kind=record.move.kind,
            card=entry.card,
            scored=entry.scored,
            strike=strike,
            target=entry.target_player,
            color=record.move.color if record.move.is_hint else None,
            rank=record.move.rank if record.move.is_hint else None,
            touched=list(entry.revealed),
            news=target is not None and game.knowledge(target) != known_before,
            lives_after=record.life_tokens_after,
            info_after=record.info_tokens_after,
            fireworks_after=record.fireworks_after,
        ),
        rated=rated,
        rated_any=any(r.rating is not None for r in rated),
        valued=valued,
        regret=regret(record, values),
        reason=record.reason,
        calls=calls_page(record.calls),
        deductions=notes,
        strike=strike,
        reasked=reasked(record),
    )


def _stop_steps(results: list[GameResult], game: Game, who: list[str]) -> list[StopStep]:
    """The steps of the interruptions that happened in `game`'s state (each result's `turns` moves were made)."""
    steps = []
    for number, result in enumerate(results, start=1):
        seat = result.interrupted_seat if result.interrupted_seat is not None else game.current_player
        steps.append(
            StopStep(
                anchor=f"stop{result.turns + 1}" + (f"-{number}" if number > 1 else ""),
                turn=result.turns + 1,
                seat=seat,
                player=who[seat] if 0 <= seat < len(who) else "",
                board=board_of(game, seat, who) if not game.is_over else None,
                reason=result.interrupted_reason or "",
                by_user=result.status == "stopped",
                calls=calls_page(result.failed_calls),
            )
        )
    return steps


def _values(run: Path, contents: GameLogContents) -> tuple[dict[int, DecisionValueRecord], str | None]:
    """The game's move values by turn and how they were made, when it is complete and has readable ones."""
    assert contents.header is not None
    if not contents.complete:
        return {}, None
    try:
        values = game_values(run, contents.header.game_id, contents.moves)
    except ValuesUnreadable:
        return {}, None  # the run page names the problem
    if not values:
        return {}, None
    first = next(iter(values.values()))
    return values, f"{first.rollouts} rollouts of local/{first.bot}, seed {first.base_seed}"


def build_game_page(run: RunDir, summary: GameSummary) -> GamePage:
    """The page of one game of the run `run`, read from its log now by the run's reader (LogCorrupt when it is
    damaged)."""
    contents = run.read_game(Path(summary.log))
    header = contents.header
    if header is None:
        raise ValueError(f"{summary.log}: the log has no header")
    values, values_note = _values(run.path, contents)
    who = [seat.label for seat in header.seats]
    stops: dict[int, list[GameResult]] = {}  # interruptions and stops by the number of moves made before them
    for result in contents.results:
        if result.status in ("interrupted", "stopped"):
            stops.setdefault(result.turns, []).append(result)
    steps: list[Step] = []
    problem = None
    game = Game(header.players, list(header.deck))
    try:
        for done, step in enumerate(
            replay(header.players, header.deck, contents.moves, f"game {header.game_id}")
        ):
            game = step.game
            steps.extend(_stop_steps(stops.get(done, []), game, who))
            steps.append(_move_step(step, who, values.get(step.record.turn if step.record else -1)))
    except ReplayMismatch as exc:
        problem = str(exc)
    else:
        steps.extend(_stop_steps(stops.get(len(contents.moves), []), game, who))
        if game.is_over or not (steps and steps[-1].kind == "stop"):
            board = board_of(game, 0 if game.is_over else game.current_player, who)
            steps.append(EndStep(anchor="end", turn=game.turn, board=board, over=game.is_over))
    return GamePage(
        summary=summary,
        header=header,
        result=contents.result,
        steps=steps,
        problem=problem,
        values=values_note,
        torn=contents.torn,
    )
