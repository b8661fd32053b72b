"""Rewards: the paper's RL reward (the data's rating of the chosen move, max(0, r)), the released environment's other
transforms and game-score rewards, and the preference gap, computed from real logs and exports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.export.rewards import (
    final_score_reward,
    grpo_reward_function,
    played_move_reward,
    preference_gap,
    rating_reward,
    transform_rating,
)
from harness.schema.log_file import read_game_log
from tests.fakeserver import FakeModelServer, Reply, answer_in_format, careful_player, legal_moves_in


@pytest.mark.parametrize(
    ("mode", "rating", "reward"),
    [
        ("clip", -0.4, 0.0),
        ("clip", 0.7, 0.7),
        ("raw", -0.4, -0.4),
        ("normalize", -1.0, 0.0),
        ("normalize", 0.0, 0.5),
        ("normalize", 1.0, 1.0),
        ("normalize", -0.2, 0.4),
    ],
)
def test_rating_transforms(mode: Any, rating: float, reward: float) -> None:
    assert transform_rating(rating, mode) == pytest.approx(reward)


def test_no_move_or_an_unrated_move_earns_nothing() -> None:
    ratings = [0.9, None, -0.5]
    assert rating_reward(ratings, 0) == 0.9
    assert rating_reward(ratings, 1) == 0.0
    assert rating_reward(ratings, None) == 0.0
    assert rating_reward(ratings, 3) == 0.0
    assert rating_reward(ratings, 2, "raw") == -0.5
    with pytest.raises(ValueError, match="unknown rating transform"):
        transform_rating(0.5, "squash")  # type: ignore[arg-type]


def reckless_player(request: dict[str, Any]) -> Reply:
    """Plays its first card every turn: it strikes out early."""
    moves = legal_moves_in(request)
    play = next(i for i, d in moves if d.startswith("(Play"))
    ratings = {i: (0.6 if i == play else -0.6) for i, _ in moves}
    return Reply(content=answer_in_format(request, play, ratings, "blind play"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("runs")
    found = {}
    for name, script in (("careful", careful_player), ("reckless", reckless_player)):
        with FakeModelServer(script) as server:
            argv = ["run", "--model", f"openai/{name}", "--api-base", server.base_url, "--seeds", "1"]
            assert main([*argv, "--out", str(out / name), "--no-progress"]) == 0
        (found[name],) = [p for p in (out / name).iterdir() if p.is_dir()]
    return found


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_grpo_reward_scores_completions_from_the_exported_ratings(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    assert (
        main(["export", str(runs["careful"]), "--format", "hanabirewards", "--out", str(tmp_path / "x")]) == 0
    )
    data = rows(tmp_path / "x" / "hanabirewards.jsonl")
    columns = {
        "candidate_ratings": [r["candidate_ratings"] for r in data],
        "prompt": [r["prompt"] for r in data],
    }
    clip, raw, normalize = (grpo_reward_function(mode) for mode in ("clip", "raw", "normalize"))
    # the logged replies chose the move they rated 0.8
    assert clip([r["completion"] for r in data], **columns) == [0.8] * len(data)
    # a policy that picks another move (rated -0.2), and one whose reply names no move
    other = [(r["chosen_move_index"] + 1) % len(r["candidate_moves"]) for r in data]
    others = [[{"role": "assistant", "content": f"Reasoning: x\nChosen Move Number: {i}"}] for i in other]
    assert clip(others, **columns) == [0.0] * len(data)
    assert raw(others, **columns) == pytest.approx([-0.2] * len(data))
    assert normalize(others, **columns) == pytest.approx([0.4] * len(data))
    nonsense = [[{"role": "assistant", "content": "I would rather not say."}] for _ in data]
    assert clip(nonsense, **columns) == [0.0] * len(data)


def test_played_move_and_final_score_rewards_of_a_log(runs: dict[str, Path]) -> None:
    for name in ("careful", "reckless"):
        (path,) = (runs[name] / "games").glob("*.jsonl")
        log = read_game_log(path)
        expected = 0.8 if name == "careful" else 0.6
        assert [played_move_reward(m) for m in log.moves] == [expected] * len(log.moves)
        assert final_score_reward(log.result) == log.result.fireworks_score
    (path,) = (runs["reckless"] / "games").glob("*.jsonl")
    struck = read_game_log(path).result
    assert struck.end_reason == "lives_lost"
    assert final_score_reward(struck, "pyhanabi") == 0.0
    assert final_score_reward(struck, "fireworks") == struck.fireworks_score


def test_the_preference_export_gap_is_the_preference_gap(runs: dict[str, Path], tmp_path: Path) -> None:
    assert (
        main(["export", str(runs["careful"]), "--format", "preferences", "--out", str(tmp_path / "p")]) == 0
    )
    pairs = rows(tmp_path / "p" / "preferences.jsonl")
    (path,) = (runs["careful"] / "games").glob("*.jsonl")
    by_turn = {m.turn: m for m in read_game_log(path).moves}
    assert pairs
    for pair in pairs:
        ratings = by_turn[pair["turn"]].ratings
        gap = preference_gap(ratings, pair["chosen_move_index"], pair["rejected_move_index"])
        assert pair["rating_gap"] == gap == pytest.approx(1.0)


def test_a_move_the_data_left_unrated_earns_nothing_under_every_transform() -> None:
    # HanabiRewards writes 0.0 for a missing rating and marks it in candidate_rated; 0.0 must not read as a rating
    # (normalize would turn it into 0.5)
    completions = [[{"role": "assistant", "content": "Reasoning: x\nChosen Move Number: 1"}]]
    columns = {"candidate_ratings": [[0.8, 0.0]], "candidate_rated": [[True, False]]}
    for mode in ("clip", "raw", "normalize"):
        assert grpo_reward_function(mode)(completions, **columns) == [0.0]
    rated_zero = {"candidate_ratings": [[0.8, 0.0]], "candidate_rated": [[True, True]]}
    assert grpo_reward_function("normalize")(completions, **rated_zero) == [0.5]
