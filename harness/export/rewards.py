"""Rewards from logged games and exported datasets, one definition each: the paper's rating reward (Section
6.2), the played-move, final-score and preference-gap rewards, and a TRL GRPO reward function."""

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
    """A HanabiRewards row's ratings, None where `candidate_rated` says unrated (earning nothing)."""
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
    """The harness's strict reply reader as an ActionParser: the move index, or None."""
    def parse(text: str, n_legal: int) -> int | None:
        try:
            return parse_reply(text, n_legal).action
        except ReplyProblem:
            return None

    return parse


def grpo_reward_function(
    mode: Transform = "clip", parse_action: ActionParser | None = None
) -> Callable[..., list[float]]:
    """A TRL GRPOTrainer reward function: each completion's `rating_reward` from its HanabiRewards row."""
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
