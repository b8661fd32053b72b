"""Rewards computed from logged games and from the exported datasets, one definition each.

- Rating reward (the paper's RL reward, Section 6.2; the released environment's offline mode): a policy is shown a
  logged prompt and chooses a move; its reward is the rating in [-1, 1] that the data's model gave that move, passed
  through a transform. `clip` = max(0, r) is the paper's and the released environment's default; `raw` = r;
  `normalize` = (r + 1) / 2, kept within [0, 1]. A completion that names no legal move, or a move the data's model
  left unrated, earns 0 (the released environment: 0 when the move cannot be read). No format or tracking reward.
- Played-move reward: the rating reward of the move the data's own model played (a HanabiRewards row's
  `chosen_move_index`): what the policy earns by imitating the logged move.
- Final-score reward (the released environment's online mode): the game's score, `fireworks` (the fireworks' sum at
  the end, also after three strikes: the paper's score and the released default) or `pyhanabi` (HLE's score, 0 after
  three strikes).
- Preference gap (the Preferences export): the chosen move's rating minus the rejected move's.

`grpo_reward_function` turns the rating reward into a reward function of TRL's GRPO trainer over HanabiRewards rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from harness.formats import ReplyProblem, parse_reply
from harness.schema.records import GameResult, MoveRecord

Transform = Literal["clip", "raw", "normalize"]
TRANSFORMS: tuple[Transform, ...] = ("clip", "raw", "normalize")
ScoreMode = Literal["fireworks", "pyhanabi"]
ActionParser = Callable[[str, int], int | None]  # (reply text, number of legal moves) -> chosen index or None


def transform_rating(rating: float, mode: Transform = "clip") -> float:
    """A move rating in [-1, 1] as a reward."""
    if mode == "clip":
        return max(0.0, rating)
    if mode == "raw":
        return rating
    if mode == "normalize":
        return min(1.0, max(0.0, (rating + 1.0) / 2.0))
    raise ValueError(f"unknown rating transform {mode!r}; use one of {', '.join(TRANSFORMS)}")


def rating_reward(ratings: Sequence[float | None], chosen: int | None, mode: Transform = "clip") -> float:
    """The paper's RL reward: the data's rating of the chosen move, transformed; 0 for no legal or no rated move."""
    if chosen is None or not 0 <= chosen < len(ratings):
        return 0.0
    rating = ratings[chosen]
    return 0.0 if rating is None else transform_rating(rating, mode)


def played_move_reward(record: MoveRecord, mode: Transform = "clip") -> float:
    """The rating reward of the move the logged model played."""
    return rating_reward(record.ratings, record.move_index, mode)


def final_score_reward(result: GameResult, mode: ScoreMode = "fireworks") -> float:
    """The released environment's game reward: the final score, by the fireworks or by HLE's rule."""
    if mode == "fireworks":
        return float(result.fireworks_score)
    if mode == "pyhanabi":
        return float(result.engine_score)
    raise ValueError(f"unknown score mode {mode!r}; use fireworks or pyhanabi")


def preference_gap(ratings: Sequence[float | None], chosen: int, rejected: int) -> float:
    """How much higher the data's model rated the chosen move than the rejected one."""
    better, worse = ratings[chosen], ratings[rejected]
    if better is None or worse is None:
        raise ValueError("a preference pair needs a rating for both moves")
    return better - worse


def _ratings_of(column: Sequence[Any], rated: Sequence[bool] | None = None) -> list[float | None]:
    """A HanabiRewards row's ratings: `candidate_ratings` (floats; 0.0 stands in for a missing rating) read with
    its `candidate_rated` mask, so that a move the data's model left unrated earns nothing under every transform."""
    values = [item.get("rating") if isinstance(item, dict) else item for item in column]
    if rated is None:
        return values
    return [value if ok else None for value, ok in zip(values, rated, strict=True)]


def _text_of(completion: Any) -> str:
    """A completion as TRL passes it: a list of chat messages (conversational) or a string."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content") or "")
    return ""


def project_action_parser() -> ActionParser:
    """The harness's own strict reply reader as an ActionParser: the move index, or None when the reply does not
    name exactly one legal move."""
    def parse(text: str, n_legal: int) -> int | None:
        try:
            return parse_reply(text, n_legal).action
        except ReplyProblem:
            return None

    return parse


def grpo_reward_function(
    mode: Transform = "clip", parse_action: ActionParser | None = None
) -> Callable[..., list[float]]:
    """A reward function for TRL's GRPOTrainer over a HanabiRewards dataset: each completion is read for its chosen
    move and earns `rating_reward` from the row's `candidate_ratings`. TRL passes the dataset's other columns as
    keyword arguments; only `candidate_ratings` and `candidate_rated` are read."""
    if mode not in TRANSFORMS:
        raise ValueError(f"unknown rating transform {mode!r}; use one of {', '.join(TRANSFORMS)}")
    parse = parse_action or project_action_parser()

    def hanabi_move_rating(
        completions: Sequence[Any],
        candidate_ratings: Sequence[Sequence[Any]],
        candidate_rated: Sequence[Sequence[bool]] | None = None,
        **_columns: Any,
    ) -> list[float]:
        scores = []
        masks: Sequence[Sequence[bool] | None] = candidate_rated or [None] * len(candidate_ratings)
        for completion, column, rated in zip(completions, candidate_ratings, masks, strict=True):
            ratings = _ratings_of(column, rated)
            scores.append(rating_reward(ratings, parse(_text_of(completion), len(ratings)), mode))
        return scores

    return hanabi_move_rating
