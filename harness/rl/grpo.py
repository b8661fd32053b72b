"""The learning seat's decisions as a dataset, and a reward function for TRL's GRPOTrainer over it.

`decision_rows` gives one row per decision (harness.rl.game.decisions): the prompt, and the position and
memory as JSON strings; `grpo_move_reward` scores each completion (with its row) by harness.rl.rewards.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from itertools import islice
from typing import Any

from harness.rl.game import Position, chat, decisions
from harness.rl.rewards import MoveRewards, RewardSpec, owned_runner
from harness.strategies.scaffold import load_scaffold


def decision_rows(
    scaffold: str, players: int = 2, seat: int = 0, seeds: str = "standard", limit: int | None = None
) -> list[dict[str, Any]]:
    """Rows {"prompt", "position", "memory"} for the first `limit` decisions (all when None)."""
    found = decisions(scaffold, players, seat, seeds)
    return [
        {
            "prompt": chat(d.prompt),
            "position": d.position.model_dump_json(),
            "memory": json.dumps(d.memory),
        }
        for d in islice(found, limit)
    ]


def grpo_move_reward(
    spec: RewardSpec, scaffold: str, stop_token_ids: Collection[int] = ()
) -> Callable[..., list[float]]:
    """A GRPOTrainer reward function over `decision_rows` rows of `scaffold`, scoring by `spec`. With
    `stop_token_ids` (the tokenizer's end-of-turn ids), a completion whose ids TRL passes without one at the end was
    cut off by the length limit: it earns the penalty unread (error kind `truncated`), as a run rejects such a reply."""
    rewards = MoveRewards(spec, load_scaffold(scaffold))
    stops = frozenset(stop_token_ids)

    def hanabi_move(
        completions: Sequence[Any],
        position: Sequence[str],
        memory: Sequence[str],
        completion_ids: Sequence[Sequence[int]] | None = None,
        **_columns: Any,
    ) -> list[float]:
        ids: Sequence[Sequence[int] | None] = completion_ids or [None] * len(completions)

        async def score_all() -> list[float]:
            scores = []
            for completion, where, notes, tokens in zip(completions, position, memory, ids, strict=True):
                at = Position.model_validate_json(where)
                cut = bool(stops) and tokens is not None and (not tokens or tokens[-1] not in stops)
                scored = await rewards.score(at, completion_text(completion), json.loads(notes), cut)
                scores.append(scored.reward)
            return scores

        return runner.run(score_all())

    runner, _ = owned_runner(hanabi_move)
    return hanabi_move


def completion_text(completion: Any) -> str:
    """A completion as TRL passes it: a list of chat messages (conversational: the last one's content) or a string."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content") or "")
    return ""
