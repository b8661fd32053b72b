"""The hanabi task for Inspect AI: one Sample per game of the run the options make, a solver that plays the whole
game through harness.play.game with an InspectCaller at every seat, and a scorer: the fireworks score (the paper's),
the engine score (0 after three strikes), the share of games complete and the share of moves re-asked.

The game's JSONL log, as `hanabi-eval run` writes one (its header with the parameters Inspect sent), goes into the
sample's metadata under `hanabi_log` for `hanabi-eval import-inspect`. A game whose re-asks run out is unscored (NaN);
one stopped by a provider error that outlasted Inspect's retries raises, so the sample errors (`inspect eval-retry`).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, Model, ModelOutput, get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from harness.inspect.caller import InspectCaller
from harness.inspect.options import with_eval_model
from harness.inspect.transcript import TracedSeatAgent
from harness.play.agent import SeatAgent
from harness.play.game import play_game
from harness.run.manifest import git_state
from harness.schema.cards import deck_digest
from harness.schema.config import RunConfig, SessionOptions
from harness.schema.log_file import GameLogContents, read_game_log
from harness.schema.records import (
    LOG_LINE,
    PROVIDER_ERROR_KINDS,
    REPLY_ERROR_KINDS,
    GameHeader,
    GamePlan,
    GameResult,
    GenerationParams,
    MoveRecord,
    SeatConfig,
)
from harness.schema.secrets import safe_url
from harness.strategies.scaffold import load_scaffold

LOG_KEY = "hanabi_log"  # the sample metadata key that holds the game's log records
# why a move a cancellation cut short was not made: Inspect cancels a sample at its time or working limit, or when
# the eval is stopped
CANCELLED = "Inspect cancelled the game during this move (a time or working limit, or the eval was stopped)"


class ProviderFailed(RuntimeError):
    """A game stopped because a provider error outlasted Inspect's retries: the sample's error."""


def hanabi_task(config: RunConfig, session: SessionOptions) -> Task:
    """The task for the run and session its checked options make (harness.inspect.options)."""
    plans = config.plans()  # the eval's model does not change them
    decks = {s.seed: s.deck for s in config.seeds}
    samples = [
        Sample(
            id=plan.game_id,
            input=f"Play a game of Hanabi: {plan.players} players, seed {plan.seed} ({plan.seed_set})"
            + (f", play {plan.repeat + 1}" if plan.repeat else ""),
            metadata={
                "game_id": plan.game_id,
                "players": plan.players,
                "seed": plan.seed,
                "seed_set": plan.seed_set,
                "repeat": plan.repeat,
                "deck_digest": deck_digest(decks[plan.seed]),
            },
        )
        for plan in plans
    ]
    return Task(
        dataset=MemoryDataset(samples, name="hanabi"),
        solver=play_hanabi(config, session),
        scorer=hanabi_score(),
    )


def sent_record(seat: SeatConfig, model: Model) -> dict[str, Any]:
    """What a game header records of a seat's calls under Inspect: the model, its server and its generate config."""
    record: dict[str, Any] = {"model": seat.model, "via": "inspect_ai"}
    if model.api.base_url:
        record["base_url"] = safe_url(model.api.base_url)
    record.update(model.config.model_dump(exclude_none=True))
    return record


def _with_params(seat: SeatConfig, model: Model) -> SeatConfig:
    """The seat with the sampling settings its Inspect model sends, so that runs with other settings differ."""
    config = model.config
    params = GenerationParams(
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        reasoning_effort=config.reasoning_effort,
        thinking_budget=config.reasoning_tokens,
    )
    return seat.model_copy(update={"params": params})


@solver
def play_hanabi(planned: RunConfig, session: SessionOptions) -> Solver:
    """Plays the sample's game to its end (or to an interruption) through this harness's play loop."""
    commit = git_state()["commit"]

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        eval_model = get_model()
        config = with_eval_model(planned, str(eval_model))
        # each seat's Inspect model: the eval's own for a seat that names it (with the eval's settings)
        models = {
            s.model: eval_model if s.model == str(eval_model) else get_model(s.model) for s in config.seats
        }
        config = config.model_copy(
            update={"seats": tuple(_with_params(s, models[s.model]) for s in config.seats)}
        )
        plan = next(p for p in config.plans() if p.game_id == state.sample_id)
        deck = list(next(s.deck for s in config.seeds if s.seed == plan.seed))
        agents: dict[int, SeatAgent] = {
            position: TracedSeatAgent(
                seat,
                load_scaffold(seat.scaffold, seat.k),
                InspectCaller(seat, models[seat.model]),
                session.reply_retries,
            )
            for position, seat in enumerate(plan.seats)
        }
        with tempfile.TemporaryDirectory(prefix="hanabi-inspect-") as folder:
            path = Path(folder) / f"{plan.game_id}.jsonl"
            try:
                await play_game(plan, deck, path, agents, "inspect", commit, cancelled_line=CANCELLED)
            finally:  # a game cut short by an Inspect limit or a cancellation keeps the moves it made
                contents = read_game_log(path)
                state.metadata[LOG_KEY] = log_records(contents, plan, models)
        result = contents.result
        said = summary(plan.game_id, contents)
        state.output = ModelOutput.from_content(model=str(eval_model), content=said)
        state.messages.append(ChatMessageAssistant(content=said, model=str(eval_model)))
        if result is not None and result.status == "interrupted" and _provider_failed(contents):
            raise ProviderFailed(f"game {plan.game_id} stopped: {result.interrupted_reason}")
        return state

    return solve


def log_records(contents: GameLogContents, plan: GamePlan, models: dict[str, Model]) -> list[dict[str, Any]]:
    """The log's records as JSON objects, in order; the header with what Inspect sent."""
    records: list[dict[str, Any]] = []
    if contents.header is not None:
        sent = [sent_record(seat, models[seat.model]) for seat in plan.seats]
        records.append(contents.header.model_copy(update={"sent_params": sent}).model_dump(mode="json"))
    records.extend(r.model_dump(mode="json") for r in contents.records())
    return records


def log_contents(records: list[dict[str, Any]]) -> GameLogContents:
    """Log records as a sample's metadata holds them, read back with the one log schema (raises pydantic's
    ValidationError for one that is not a log record)."""
    contents = GameLogContents()
    for line in records:
        record = LOG_LINE.validate_python(line)
        if isinstance(record, GameHeader):
            contents.header = record
        elif isinstance(record, MoveRecord):
            contents.moves.append(record)
        elif isinstance(record, GameResult):
            contents.results.append(record)
        contents.ended = isinstance(record, GameResult)
    return contents


def _provider_failed(contents: GameLogContents) -> bool:
    result = contents.result
    last = result.failed_calls[-1].attempts[-1] if result is not None and result.failed_calls else None
    return last is not None and last.error_kind in PROVIDER_ERROR_KINDS


def summary(game_id: Any, contents: GameLogContents) -> str:
    """One line on how the game ended (or why it did not)."""
    result = contents.result
    if result is None:
        return (
            f"Game {game_id} stopped after {len(contents.moves)} moves (an Inspect limit or a cancellation)."
        )
    if result.status == "interrupted":
        return f"Game {game_id} interrupted after {result.turns} moves: {result.interrupted_reason}"
    return (
        f"Game {game_id} complete after {result.turns} moves: fireworks score {result.fireworks_score}, "
        f"engine score {result.engine_score} ({result.end_reason})."
    )


def reasked(calls: list[Any]) -> bool:
    """Whether a move's calls were re-asked: an attempt of one was an invalid reply."""
    return any(a.error_kind in REPLY_ERROR_KINDS for call in calls for a in call.attempts)


@metric
def moves_reasked() -> Metric:
    """The share of all moves (complete or not, in every game scored) whose reply was re-asked at least once."""

    def compute(scores: list[SampleScore]) -> float:
        moves = sum(int((s.score.metadata or {}).get("moves", 0)) for s in scores)
        again = sum(int((s.score.metadata or {}).get("moves_reasked", 0)) for s in scores)
        return again / moves if moves else 0.0

    return compute


@scorer(
    metrics={
        "fireworks": [mean(), stderr()],
        "engine": [mean(), stderr()],
        "complete": [mean()],
        "reasked": [moves_reasked()],
    }
)
def hanabi_score() -> Scorer:
    """Fireworks and engine score of a complete game (unscored, NaN, otherwise), whether the game is complete, and
    the share of its moves re-asked (the move that could not be made included)."""

    async def score(state: TaskState, target: Target) -> Score:
        contents = log_contents(state.metadata.get(LOG_KEY, []))
        result = contents.result
        move_calls = [m.calls for m in contents.moves] + [
            r.failed_calls for r in contents.results if r.failed_calls
        ]
        moves = len(move_calls)
        again = sum(1 for calls in move_calls if reasked(calls))
        complete = result is not None and result.status == "complete"
        value: dict[str, float] = {
            "fireworks": float(result.fireworks_score) if complete and result else math.nan,
            "engine": float(result.engine_score) if complete and result else math.nan,
            "complete": 1.0 if complete else 0.0,
            "reasked": again / moves if moves else 0.0,
        }
        return Score(
            value=value,
            answer=str(result.fireworks_score) if complete and result else None,
            explanation=summary(state.sample_id, contents),
            metadata={"moves": moves, "moves_reasked": again},
        )

    return score
