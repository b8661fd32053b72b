"""The RL environments over the harness's scaffolds: a reply scored by an environment gets the reward the exports
give for the same move at the same decision, the environment serves the very prompt a run sends, and a reply that
names no single legal move is penalised and never played.

The reference is a real run of `local/smart` (self-play, deal 1), exported as HanabiRewards and valued by
`hanabi-eval values`: the environments deal the same stored deck with the same bot at the partner seat, so the learning
seat, fed the logged replies, walks through exactly the logged decisions."""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gymnasium.utils.env_checker import check_env

from harness.cli.main import main
from harness.export.rewards import grpo_reward_function, rating_reward
from harness.rl.grpo import decision_rows, grpo_move_reward
from harness.rl.gym_env import HanabiSeatEnv
from harness.rl.rewards import RewardSpec
from harness.schema.errors import Refused
from tests.models.test_offline_imports import start_probe

SCAFFOLDS = ("watson", "mycroft")  # a text format, and a JSON one whose seat carries working memory
VALUED_TURNS = 4  # the last decisions of the game valued by rollouts (cheap: little game is left to play out)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """Each scaffold's HanabiRewards rows of seat 0, in turn order, from a real self-play run of local/smart."""
    out = tmp_path_factory.mktemp("rl")
    found = {}
    for scaffold in SCAFFOLDS:
        run = ["run", "--scaffold", scaffold, "--seeds", "1", "--out", str(out), "--run-name", scaffold]
        assert main([*run, "--no-progress"]) == 0
        export = out / f"x-{scaffold}"
        assert main(["export", str(out / scaffold), "--format", "hanabirewards", "--out", str(export)]) == 0
        rows = [json.loads(line) for line in (export / "hanabirewards.jsonl").read_text().splitlines()]
        found[scaffold] = [r for r in rows if r["seat"] == 0]
        found[f"{scaffold}-run"] = out / scaffold  # type: ignore[assignment]
    return found


def export_reward(row: dict[str, Any], completion: list[dict[str, str]], mode: Any = "clip") -> float:
    """The reward the exports give a completion at a row: HanabiRewards' reward function (harness.export.rewards)."""
    reward = grpo_reward_function(mode)
    ratings, rated = [row["candidate_ratings"]], [row["candidate_rated"]]
    return reward([completion], candidate_ratings=ratings, candidate_rated=rated)[0]


def reply_choosing(row: dict[str, Any], index: int, scaffold: str) -> str:
    """A well-formed reply choosing legal move `index`, in the scaffold's format."""
    if scaffold == "watson":
        return f"Reasoning: try it\nMove Ratings: Move 0: 0.1\nChosen Move Number: {index}"
    return json.dumps({"action": index, "reason": "try it", "move_ratings": []})


@pytest.mark.parametrize("scaffold", SCAFFOLDS)
def test_a_gym_episode_serves_the_runs_prompts_and_pays_the_exported_rewards(
    exported: dict[str, list[dict[str, Any]]], scaffold: str
) -> None:
    rows = exported[scaffold]
    env = HanabiSeatEnv(scaffold=scaffold, players=2, seat=0, seeds="1")
    try:
        observation, info = env.reset(options={"deal": 1})
        assert env.observation_space.contains(observation)
        for step, row in enumerate(rows, start=1):
            assert observation == row["prompt"], f"turn {row['turn']}: the served prompt is not the run's"
            assert info["turn"] == row["turn"] and info["legal_moves"] == row["candidate_moves"]
            reply = row["completion"][0]["content"]
            observation, reward, terminated, truncated, info = env.step(reply)
            assert reward == export_reward(row, row["completion"]), f"turn {row['turn']}"
            assert info["error_kind"] is None and info["move"] == row["chosen_move"]
            assert terminated == (step == len(rows)) and not truncated
        assert info["final_score"] == rows[-1]["final_score"]
        assert (
            sum(r["candidate_ratings"][r["chosen_move_index"]] > 0 for r in rows) > len(rows) // 2
        )  # not all 0
        with pytest.raises(RuntimeError, match="call reset"):
            env.step(rows[0]["completion"][0]["content"])
    finally:
        env.close()


def test_invalid_replies_are_penalised_re_asked_and_never_played(
    exported: dict[str, list[dict[str, Any]]],
) -> None:
    first = exported["watson"][0]
    env = HanabiSeatEnv(scaffold="watson", players=2, seat=0, seeds="1", reply_retries=3)
    try:
        prompt, _ = env.reset(options={"deal": 1})
        scripted = [
            ("I would rather not say.", "unparseable"),
            ("Reasoning: hm\nChosen Move Number: 2 or 3", "ambiguous"),
            ("Reasoning: bold\nChosen Move Number: 99", "illegal_move"),
        ]
        for reply, kind in scripted:
            observation, reward, terminated, truncated, info = env.step(reply)
            assert (reward, info["error_kind"], info["move"]) == (-1.0, kind, None)
            assert not terminated and not truncated
            assert info["turn"] == 1 and info["fireworks"] == 0  # nothing was played
            # the next request is the run's re-ask: the prompt, the rejected reply, the format's feedback
            assert observation[: len(prompt)] == prompt
            assert observation[len(prompt)] == {"role": "assistant", "content": reply}
            assert observation[-1] == {"role": "user", "content": info["feedback"]}
        # the logged reply, cut off by the token limit, is rejected unread, as a run rejects it
        logged = first["completion"][0]["content"]
        _, reward, _, _, info = env.step({"content": logged, "finish_reason": "length"})
        assert (reward, info["error_kind"], info["turn"]) == (-1.0, "truncated", 1)
        # whole, it is read and played, and paid what the exports pay it
        observation, reward, _, _, info = env.step({"content": logged, "finish_reason": "stop"})
        assert reward == export_reward(first, first["completion"]) and info["move"] == first["chosen_move"]

        # as in a run: the same rejected reply twice, or more re-asks than allowed, stop the episode unfinished
        env.reset(options={"deal": 1})
        env.step("no idea")
        _, reward, terminated, truncated, info = env.step("no idea")
        assert (reward, info["error_kind"], terminated, truncated) == (-1.0, "repeated_reply", False, True)
        strict = HanabiSeatEnv(scaffold="watson", players=2, seat=0, seeds="1,2,3", reply_retries=1)
        # reset(seed=...) picks the same deal every time
        assert len({strict.reset(seed=11)[1]["game_id"] for _ in range(3)}) == 1
        strict.reset(options={"deal": 1})
        assert strict.step("one")[3] is False
        assert strict.step("two")[3] is True
        strict.close()
    finally:
        env.close()


def test_verifiers_tasks_are_the_runs_decisions_and_score_replies_as_the_exports_do(
    exported: dict[str, list[dict[str, Any]]],
) -> None:
    import verifiers.v1 as vf  # verifiers is imported by its tests, not by every worker's collection

    from harness.rl.verifiers_env import (
        HanabiTask,
        HanabiTaskset,
        HanabiTasksetConfig,
        load_taskset,
        reply_trace,
    )

    rows = exported["watson"]
    taskset = vf.load_taskset(HanabiTasksetConfig(id="hanabi-eval-rl", scaffold="watson", seeds="1"))
    assert isinstance(taskset, HanabiTaskset)
    tasks: list[HanabiTask] = list(taskset)
    assert [t.data.position.turn for t in tasks] == [r["turn"] for r in rows]
    for task, row in zip(tasks, rows, strict=True):
        assert [m.model_dump(exclude_none=True) for m in task.data.prompt] == row["prompt"]  # type: ignore[union-attr]
        assert task.data.legal_moves == row["candidate_moves"]

    async def score(task: HanabiTask, reply: str) -> vf.Trace:
        trace = reply_trace(task, reply)
        await task.score(trace)
        return trace

    task, row = tasks[3], rows[3]
    logged = asyncio.run(score(task, row["completion"][0]["content"]))
    assert logged.rewards["hanabi_move"].score == export_reward(row, row["completion"])
    assert logged.metrics["valid_reply"] == 1.0
    for index in range(len(row["candidate_moves"])):  # any legal move earns the exported rating of that move
        reply = reply_choosing(row, index, "watson")
        trace = asyncio.run(score(task, reply))
        assert trace.rewards["hanabi_move"].score == rating_reward(row["candidate_ratings"], index)
        assert trace.info["hanabi"]["move"] == row["candidate_moves"][index]
    for reply, kind in (
        ("Chosen Move Number: 1 or 2", "ambiguous"),
        ("Chosen Move Number: 40", "illegal_move"),
    ):
        trace = asyncio.run(score(task, reply))
        assert trace.rewards["hanabi_move"].score == -1.0 and trace.metrics["valid_reply"] == 0.0
        assert trace.info["hanabi"]["error_kind"] == kind
    cut = reply_trace(task, row["completion"][0]["content"])
    cut.stop_condition = "max_output_tokens"  # the policy's reply ran into the token limit
    asyncio.run(task.score(cut))
    assert cut.rewards["hanabi_move"].score == -1.0 and cut.info["hanabi"]["error_kind"] == "truncated"
    raw = load_taskset(scaffold="watson", seeds="1", reward=RewardSpec(transform="raw", penalty=-2.0))
    raw_task = next(itertools.islice(raw, 3, None))
    worst = min(range(len(row["candidate_moves"])), key=lambda i: row["candidate_ratings"][i])
    trace = asyncio.run(score(raw_task, reply_choosing(row, worst, "watson")))
    assert (
        trace.rewards["hanabi_move"].score
        == export_reward(row, [{"role": "assistant", "content": reply_choosing(row, worst, "watson")}], "raw")
        < 0
    )
    assert asyncio.run(score(raw_task, "pass")).rewards["hanabi_move"].score == -2.0
    env = vf.load_environment(vf.SingleAgentEnvConfig(taskset=HanabiTasksetConfig(id="hanabi-eval-rl")))
    assert isinstance(env, vf.SingleAgentEnv)


def test_the_engine_reward_is_the_values_command_s_regret_of_the_move(
    exported: dict[str, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.rl.verifiers_env import load_taskset, reply_trace

    rows = exported["watson"]
    run: Path = exported["watson-run"]  # type: ignore[assignment]
    from_turn = rows[-VALUED_TURNS]["turn"]
    assert main(["values", str(run), "--rollouts", "2", "--seed", "7", "--from-turn", str(from_turn)]) == 0
    capsys.readouterr()
    (values_file,) = (run / "values").glob("*.jsonl")
    valued = {line["turn"]: line for line in map(json.loads, values_file.read_text().splitlines())}
    spec = RewardSpec(kind="engine", rollouts=2, values_seed=7)
    tasks = [
        t
        for t in load_taskset(scaffold="watson", seeds="1", reward=spec)
        if t.data.position.turn >= from_turn
    ]
    assert [t.data.position.turn for t in tasks] == [r["turn"] for r in rows[-VALUED_TURNS:]]
    for task, row in zip(tasks, rows[-VALUED_TURNS:], strict=True):
        values = {m["move"]: m["value"] for m in valued[row["turn"]]["moves"]}
        for index in (row["chosen_move_index"], 0):
            trace = reply_trace(task, reply_choosing(row, index, "watson"))
            asyncio.run(task.score(trace))
            expected = values[row["candidate_moves"][index]] - max(values.values())
            assert trace.rewards["hanabi_move"].score == expected <= 0


def test_grpo_rows_and_reward_function_match_the_exports(exported: dict[str, list[dict[str, Any]]]) -> None:
    rows = exported["mycroft"][:3]
    data = decision_rows("mycroft", players=2, seat=0, seeds="1", limit=3)
    assert [d["prompt"] for d in data] == [r["prompt"] for r in rows]
    reward = grpo_move_reward(RewardSpec(), "mycroft")
    columns = {"position": [d["position"] for d in data], "memory": [d["memory"] for d in data]}
    assert reward([r["completion"] for r in rows], **columns) == [
        export_reward(r, r["completion"]) for r in rows
    ]
    nonsense = [[{"role": "assistant", "content": '{"action": "first"}'}] for _ in rows]
    assert reward(nonsense, **columns) == [-1.0] * 3
    # with the stop tokens known, a completion whose ids end without one was cut off: rejected unread
    stopping = grpo_move_reward(RewardSpec(), "mycroft", stop_token_ids={2})
    ids = [[5, 6, 2], [5, 6], [5, 2]]
    expected = [export_reward(r, r["completion"]) for r in rows]
    assert stopping([r["completion"] for r in rows], completion_ids=ids, **columns) == [expected[0], -1.0, expected[2]]


def test_environments_refuse_what_they_cannot_serve() -> None:
    with pytest.raises(Refused, match="single-call scaffolds"):
        HanabiSeatEnv(scaffold="best-of-k-watson").reset(options={"deal": 1})
    with pytest.raises(ValueError, match="no move ratings"):
        HanabiSeatEnv(scaffold="spin-bench")
    with pytest.raises(Refused, match="seats run from 0 to 1"):
        HanabiSeatEnv(scaffold="watson", seat=2).reset(options={"deal": 1})
    with pytest.raises(Refused, match="not among this env's seeds"):
        HanabiSeatEnv(scaffold="watson", seeds="1,2").reset(options={"deal": 9})
    with pytest.raises(ValueError, match="less than or equal to 1000"):
        RewardSpec(kind="engine", rollouts=5000)
    spin = HanabiSeatEnv(scaffold="spin-bench", reward=RewardSpec(kind="engine", rollouts=1))
    spin.close()


def test_gymnasium_s_own_env_checker_accepts_the_env() -> None:
    env = HanabiSeatEnv(scaffold="sherlock", players=3, seat=2, seeds="1,2")
    try:
        check_env(env, skip_render_check=True)  # reset and step contracts, seeding, spaces
    finally:
        env.close()


@pytest.fixture(scope="module", autouse=True)
def offline_probe() -> Iterator[subprocess.Popen[str]]:
    """The probe of the test below, started as this module's tests start, so that it runs (and waits out its second
    for background fetches) beside them, in a process of its own."""
    process = start_probe(
        "from harness.rl.gym_env import HanabiSeatEnv\nimport harness.rl.verifiers_env\n"
        "env = HanabiSeatEnv(seeds='1')\nenv.reset(seed=0)\nprint(env.step('Chosen Move Number: 0')[1])\nenv.close()"
    )
    yield process
    if process.poll() is None:
        process.kill()
        process.communicate()


def test_the_rl_environments_open_no_connection_and_print_nothing_of_litellms(
    offline_probe: subprocess.Popen[str],
) -> None:
    out, err = offline_probe.communicate(timeout=120)
    assert offline_probe.returncode == 0, err[-2000:]
    assert "ATTEMPTS 0 " in out
    assert err == ""  # nothing of LiteLLM's on stderr, where it would hide a trainer's own output


def test_episodes_that_part_ways_are_scored_at_their_own_positions() -> None:
    """Two episodes of one deal whose learner moves differently reach different positions at the same turn: each is
    scored at its own (the rewards kept per decision are kept per whole position)."""

    def second_turn_reward(env: HanabiSeatEnv, first_move: int) -> tuple[float, object]:
        env.reset(options={"deal": 1})
        env.step(reply_choosing({}, first_move, "watson"))
        _, reward, _, _, info = env.step(reply_choosing({}, 0, "watson"))
        return reward, info["position"].history

    shared = HanabiSeatEnv(scaffold="watson", seeds="1", reward=RewardSpec(transform="raw"))
    fresh = HanabiSeatEnv(scaffold="watson", seeds="1", reward=RewardSpec(transform="raw"))
    try:
        hint, play = 5, 0  # (Reveal player +1 color Y) and (Play 0) at deal 1's first turn: different positions after
        one, history_one = second_turn_reward(shared, hint)
        two, history_two = second_turn_reward(shared, play)
        assert history_one != history_two
        assert two == second_turn_reward(fresh, play)[0]
        assert one == second_turn_reward(fresh, hint)[0]
    finally:
        shared.close()
        fresh.close()
