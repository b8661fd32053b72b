"""A Gymnasium environment: one whole game per episode, one step per reply of the learning seat (docs/rl.md).

An observation is the chat request the seat's scaffold builds in a run; an action is the reply text, or
{"content": text, "finish_reason": ...}, so that a reply the token limit cut off ("length") is rejected unread
(`truncated`) as a run rejects it. An invalid reply earns the penalty, is not played, and is answered with the
re-ask a run sends; as in a run, after `reply_retries` re-asks at one decision, or the same rejected reply
twice, the episode is truncated with the game unfinished.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym

from harness.engine.seeds import resolve_seeds
from harness.rl.game import SeatGame, chat
from harness.rl.rewards import MoveRewards, RewardSpec, owned_runner
from harness.schema.config import SeedDeck
from harness.schema.errors import Refused
from harness.schema.records import Message
from harness.strategies.asking import reask_messages
from harness.strategies.scaffold import load_scaffold

Observation = list[dict[str, str]]
DEFAULT_REPLY_RETRIES = 3  # as a run's --max-retries


class ChatSpace(gym.spaces.Space[Observation]):
    """A chat request: a non-empty list of {"role", "content"} messages."""

    def __init__(self) -> None:
        super().__init__(shape=None, dtype=None)

    def contains(self, x: Any) -> bool:
        return (
            isinstance(x, list)
            and bool(x)
            and all(
                isinstance(m, dict)
                and set(m) == {"role", "content"}
                and m["role"] in ("system", "user", "assistant")
                and isinstance(m["content"], str)
                for m in x
            )
        )


Action = str | dict[str, str]


class ReplySpace(gym.spaces.Space[Action]):
    """A model's reply: its text, or {"content": text, "finish_reason": why generation stopped} ("length": the token
    limit cut it off, and it is rejected unread as `truncated`). Any text is an action; the reader judges it."""

    def __init__(self) -> None:
        super().__init__(shape=None, dtype=None)

    def sample(self, mask: Any = None, probability: Any = None) -> Action:
        """A random short reply naming a move number from 0 to 19 in the text layout (valid only for text formats and
        a legal number; for anything else the reader rejects it, as it would a model's)."""
        return f"Chosen Move Number: {int(self.np_random.integers(20))}"

    def contains(self, x: Any) -> bool:
        if isinstance(x, dict):
            return set(x) <= {"content", "finish_reason"} and isinstance(x.get("content"), str)
        return isinstance(x, str)


def reply_of(action: Action) -> tuple[str, bool]:
    """An action's reply text, and whether the token limit cut it off."""
    if isinstance(action, str):
        return action, False
    return str(action.get("content") or ""), action.get("finish_reason") == "length"


class HanabiSeatEnv(gym.Env[Observation, Action]):
    """One seat of a Hanabi game served through its scaffold; the built-in bot plays the other seats."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium's own class attribute)

    def __init__(
        self,
        scaffold: str = "watson",
        players: int = 2,
        seat: int = 0,
        seeds: str = "standard",
        reward: RewardSpec | None = None,
        reply_retries: int = DEFAULT_REPLY_RETRIES,
        render_mode: str | None = None,
    ) -> None:
        self.scaffold = load_scaffold(scaffold)
        self.players = players
        self.seat = seat
        self.deals: list[SeedDeck] = resolve_seeds(seeds)
        self.spec_reward = reward or RewardSpec()
        self.rewards = MoveRewards(self.spec_reward, self.scaffold)
        self.reply_retries = reply_retries
        self.render_mode = render_mode
        self.observation_space = ChatSpace()
        self.action_space = ReplySpace()
        # The rater's calls run in one loop of the env's own, closed (with LiteLLM's clients and pending tasks) by
        # close() or, at the latest, when the env is collected or the interpreter exits.
        self._runner, self._closer = owned_runner(self)
        self._game: SeatGame | None = None
        self._prompt: list[Message] = []
        self._request: list[Message] = []
        self._rejected: list[str] = []  # the rejected replies at the current decision

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        wanted = (options or {}).get("deal")
        if wanted is None:
            deal = self.deals[int(self.np_random.integers(len(self.deals)))]
        else:
            found = [d for d in self.deals if d.seed == wanted]
            if not found:
                seeds = ", ".join(str(d.seed) for d in self.deals)
                raise Refused(f"deal {wanted} is not among this env's seeds; pick one of: {seeds}")
            deal = found[0]
        self._game = SeatGame(self.scaffold, self.players, self.seat, deal)
        if self._game.over:  # cannot happen with a fresh deal: every seat moves before the game can end
            raise Refused(f"the game of deal {deal.seed} ended before seat {self.seat} moved")
        self._new_decision()
        return chat(self._request), self._info()

    def step(self, action: Action) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        game = self._game
        if game is None or game.over:
            raise RuntimeError("the episode is over; call reset() first")
        position = game.position()
        text, cut = reply_of(action)
        scored = self._runner.run(self.rewards.score(position, text, game.memory, cut))
        info_extra: dict[str, Any] = {
            "position": position,
            "error_kind": scored.error_kind,
            "move": scored.move,
        }
        if scored.parsed is None:
            assert scored.error_kind is not None and scored.feedback is not None
            kind = scored.error_kind
            repeated = text.strip() != "" and text in self._rejected
            self._rejected.append(text)
            if repeated:
                kind = "repeated_reply"
            truncated = repeated or len(self._rejected) > self.reply_retries
            info_extra.update(error_kind=kind, feedback=scored.feedback, rejected=len(self._rejected))
            if not truncated:
                self._request = reask_messages(self._prompt, text, scored.feedback)
            return chat(self._request), scored.reward, False, truncated, self._info() | info_extra
        game.play(scored.parsed, text)
        if not game.over:
            self._new_decision()
        info = self._info() | info_extra
        if game.over:
            info["final_score"] = game.game.fireworks_sum
        return chat(self._request), scored.reward, game.over, False, info

    def render(self) -> str | None:
        if self.render_mode != "ansi" or not self._request:
            return None
        return self._request[-1].content

    def close(self) -> None:
        self._closer()
        super().close()

    def _new_decision(self) -> None:
        assert self._game is not None
        self._prompt = self._game.prompt()
        self._request = self._prompt
        self._rejected = []

    def _info(self) -> dict[str, Any]:
        game = self._game
        assert game is not None
        view = game.view()
        return {
            "game_id": game.game_id,
            "turn": game.game.turn,
            "legal_moves": [m.description for m in view.legal_moves],
            "fireworks": game.game.fireworks_sum,
            "rejected": len(self._rejected),
        }
