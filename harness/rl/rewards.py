"""The reward of one reply at one decision, shared by the Gymnasium environment, the verifiers taskset and
GRPO.

A reply the scaffold's strict reader rejects, or one the token limit cut off, earns `penalty` with the
format's error kind. A valid reply earns, by `RewardSpec.kind`, "rating": the paper's reward
(harness.export.rewards.rating_reward) of the rating the rater model gives the chosen move, asked through the
harness's own seat path (SeatAgent), so it is the reward `grpo_reward_function` gives a HanabiRewards row of
that model at the same decision; or "engine": value(chosen) - the best legal move's value, where a value is
the expected final score when the bot plays on, seeded as `hanabi-eval values` seeds the same decision.
Rewards of valid moves are computed once per decision and kept (a GRPO group scores many replies to one
prompt).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.analysis.valuation import decision_seed
from harness.export.rewards import Transform, rating_reward
from harness.formats import ParsedReply, ReplyProblem
from harness.models.client import ModelClient, close_clients
from harness.play.agent import SeatAgent
from harness.play.values import MAX_ROLLOUTS, move_values
from harness.rl.game import Position
from harness.schema.config import RetryPolicy
from harness.schema.records import SeatConfig
from harness.strategies.asking import MoveInterrupted
from harness.strategies.definition import ScaffoldDef
from harness.view.seat_view import SeatView

RewardKind = Literal["rating", "engine"]
DEFAULT_PENALTY = -1.0


class RewardSpec(BaseModel):
    """Which reward a valid reply earns, and what an invalid one costs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: RewardKind = "rating"
    transform: Transform = "clip"  # rating: the paper's transform of the rater's rating
    rater: str = "local/smart"  # rating: the model whose ratings label the moves
    rollouts: int = Field(default=16, ge=1, le=MAX_ROLLOUTS)  # engine: rollouts per legal move
    values_seed: int = 0  # engine: the base seed, as `hanabi-eval values --seed`
    penalty: float = DEFAULT_PENALTY  # the reward of a reply that names no single legal move


class Scored(BaseModel):
    """One reply, read and scored."""

    model_config = ConfigDict(frozen=True)

    reward: float
    action: int | None = None  # the legal-move index the reply chose; None when it was rejected
    move: str | None = None  # that move's text
    # the format's error kind of a rejected reply (unparseable, ambiguous, illegal_move, truncated, ...)
    error_kind: str | None = None
    feedback: str | None = None  # what the harness would answer the model (the format's own wording)
    parsed: ParsedReply | None = None


def read_reply(scaffold: ScaffoldDef, view: SeatView, text: str, truncated: bool = False) -> ParsedReply:
    """The reply read strictly in the scaffold's reply format; ReplyProblem when it names no single legal move, or
    when the token limit cut it off (`truncated`: never used, even when a move could be read, as in a run)."""
    fmt = scaffold.base.reply_format
    if truncated:
        raise ReplyProblem("truncated", fmt.feedback("truncated", range(len(view.legal_moves))))
    reply = fmt.read(text, len(view.legal_moves), moves=view.engine_moves)
    assert isinstance(reply, ParsedReply)  # a move contract never reads to free text
    return reply


class MoveRewards:
    """Scores replies at decisions under one RewardSpec, keeping each decision's table of move rewards."""

    def __init__(self, spec: RewardSpec, scaffold: ScaffoldDef) -> None:
        if spec.kind == "rating" and "move_ratings" not in scaffold.base.reply_format.fields:
            raise ValueError(
                f"scaffold {scaffold.name!r} asks for no move ratings, so the paper's rating reward is undefined; "
                "use the engine reward or a scaffold whose replies rate every move (watson, sherlock, mycroft)"
            )
        self.spec = spec
        self.scaffold = scaffold
        self._tables: dict[tuple[Position, str], list[float]] = {}
        self._rater: SeatAgent | None = None

    async def table(self, position: Position, memory: dict[str, object] | None = None) -> list[float]:
        """The reward of every legal move at `position` (the learning seat's working memory: `memory`)."""
        key = (position, repr(memory))  # two episodes of one deal part ways when the learner's moves differ
        if key not in self._tables:
            view = position.view()
            if self.spec.kind == "rating":
                self._tables[key] = await self._rating_table(view, memory)
            else:
                self._tables[key] = await asyncio.to_thread(self._engine_table, position, view)
        return self._tables[key]

    async def _rating_table(self, view: SeatView, memory: dict[str, object] | None) -> list[float]:
        if self._rater is None:
            seat = SeatConfig(model=self.spec.rater, scaffold=self.scaffold.name)
            self._rater = SeatAgent(seat, self.scaffold, ModelClient(seat, RetryPolicy()), reply_retries=3)
        try:
            decision = await self._rater.decide(view, memory)
        except MoveInterrupted as stop:
            raise RuntimeError(f"the rater {self.spec.rater} gave no valid ratings: {stop.reason}") from None
        ratings = decision.reply.ratings
        return [rating_reward(ratings, i, self.spec.transform) for i in range(len(ratings))]

    def _engine_table(self, position: Position, view: SeatView) -> list[float]:
        seed = decision_seed(self.spec.values_seed, position.game_id, position.turn)
        values = [m.value for m in move_values(view, self.spec.rollouts, seed).moves]
        best = max(values)
        return [value - best for value in values]

    async def score(
        self, position: Position, text: str, memory: dict[str, object] | None = None, truncated: bool = False
    ) -> Scored:
        """Read `text` as the learning seat's reply at `position` and score it (`truncated`: the token limit cut the
        reply off, so it is rejected as a run rejects it)."""
        view = position.view()
        try:
            reply = read_reply(self.scaffold, view, text, truncated)
        except ReplyProblem as problem:
            return Scored(reward=self.spec.penalty, error_kind=problem.kind, feedback=str(problem))
        table = await self.table(position, memory)
        return Scored(
            reward=table[reply.action],
            action=reply.action,
            move=view.legal_moves[reply.action].description,
            parsed=reply,
        )


def owned_runner(owner: object) -> tuple[asyncio.Runner, weakref.finalize]:
    """An event loop of `owner`'s own for the rater's calls from synchronous code, and the finalizer that closes it
    (LiteLLM's clients, then any pending task) when called, when `owner` is collected, or at interpreter exit: a
    loop left with pending tasks at exit has crashed the interpreter in garbage collection."""
    runner = asyncio.Runner()
    return runner, weakref.finalize(owner, _close_runner, runner)


def _close_runner(runner: asyncio.Runner) -> None:
    try:
        runner.run(close_clients())
    finally:
        runner.close()
