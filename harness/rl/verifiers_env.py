"""A verifiers (v1 API) taskset: one task per decision of the learning seat in the games the built-in bot
plays.

A task's prompt is the chat request the scaffold builds in a run; its reward `hanabi_move` scores the policy's
one reply (`trace.last_reply`; the penalty when `trace.is_truncated`) as harness.rl.rewards says, and its
metric `valid_reply` is 1 for a reply read to a legal move. verifiers finds a taskset by a top-level module's
name: this one loads as `hanabi-eval-rl` (the module hanabi_eval_rl); for a plain chat policy choose
verifiers' `null` harness. `reply_trace(task, text)` makes the trace of one reply, for scoring replies offline
(`await task.score(trace)`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import verifiers.v1 as vf

from harness.formats import ReplyProblem
from harness.rl.game import Position, chat, decisions
from harness.rl.rewards import MoveRewards, RewardSpec, read_reply
from harness.strategies.scaffold import load_scaffold

TASKSET_ID = "hanabi-eval-rl"  # the verifiers plugin name: the top-level module hanabi_eval_rl


@cache
def move_rewards(scaffold: str, spec: RewardSpec) -> MoveRewards:
    """One scorer per scaffold and reward, so that decisions' tables are kept."""
    return MoveRewards(spec, load_scaffold(scaffold))


class HanabiTaskConfig(vf.TaskConfig):
    """How a reply is scored (`--env.taskset.task.reward.*`)."""

    reward: RewardSpec = RewardSpec()


class HanabiTasksetConfig(vf.TasksetConfig):
    """Which decisions load (`--env.taskset.*`)."""

    task: HanabiTaskConfig = HanabiTaskConfig()
    scaffold: str = "watson"  # a single-call scaffold
    players: int = 2
    seat: int = 0  # the learning seat; the built-in bot plays the others
    seeds: str = "standard"  # a seed set name, a comma-separated list of seeds or a seed file (run --seeds)


class HanabiData(vf.TaskData):
    """One decision: the scaffold, where the game stands, the seat's working memory and its legal moves."""

    scaffold: str
    position: Position
    memory: dict[str, Any] | None = None
    legal_moves: list[str]


class HanabiTask(vf.Task[HanabiData, vf.State, HanabiTaskConfig]):
    """Scores the policy's one reply to the decision's prompt."""

    @vf.reward
    async def hanabi_move(self, task: HanabiData, trace: vf.Trace) -> float:
        scored = await move_rewards(task.scaffold, self.config.reward).score(
            task.position, trace.last_reply, task.memory, truncated=trace.is_truncated
        )
        trace.info["hanabi"] = {
            "error_kind": scored.error_kind,
            "move": scored.move,
            "feedback": scored.feedback,
        }
        return scored.reward

    @vf.metric
    async def valid_reply(self, task: HanabiData, trace: vf.Trace) -> float:
        try:
            read_reply(load_scaffold(task.scaffold), task.position.view(), trace.last_reply, trace.is_truncated)
        except ReplyProblem:
            return 0.0
        return 1.0


class HanabiTaskset(vf.Taskset[HanabiTask, HanabiTasksetConfig]):
    """Every decision of the learning seat in the bot-played games of the configured deals."""

    def load(self) -> Iterator[HanabiTask]:
        config = self.config
        for decision in decisions(config.scaffold, config.players, config.seat, config.seeds):
            position = decision.position
            yield HanabiTask(
                HanabiData(
                    id=f"{position.game_id}-seat{config.seat}-turn{position.turn}",
                    name=f"{config.scaffold} {position.game_id} turn {position.turn}",
                    prompt=chat(decision.prompt),
                    scaffold=config.scaffold,
                    position=position,
                    memory=decision.memory,
                    legal_moves=[m.description for m in position.view().legal_moves],
                ),
                config.task,
            )


def load_taskset(reward: RewardSpec | None = None, **settings: Any) -> HanabiTaskset:
    """The taskset with these HanabiTasksetConfig settings (scaffold, players, seat, seeds) and reward."""
    task = HanabiTaskConfig(reward=reward or RewardSpec())
    return HanabiTaskset(HanabiTasksetConfig(id=TASKSET_ID, task=task, **settings))


def reply_trace(task: HanabiTask, text: str) -> vf.Trace:
    """The trace of a policy that answered the task's prompt with `text`: the prompt's messages, then `text` as the
    one sampled assistant message."""
    prompt = task.data.prompt
    assert isinstance(prompt, list)
    nodes = [vf.MessageNode(message=m, parent=i - 1 if i else None) for i, m in enumerate(prompt)]
    nodes.append(
        vf.MessageNode(message=vf.AssistantMessage(content=text), parent=len(nodes) - 1, sampled=True)
    )
    return vf.Trace(
        task=vf.TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
        agent=vf.AgentInfo(config=vf.AgentConfig()),
        nodes=nodes,
    )


__all__ = ["HanabiTaskset"]
