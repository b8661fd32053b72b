"""`hanabi-eval export`: datasets that load with Hugging Face `datasets` and carry exactly what the logs hold.

Runs are real: offline games of the Watson, Sherlock and Mycroft scaffolds; games against a local HTTP server whose
model returns reasoning traces, leaves ratings out, gives out-of-range ratings, needs re-asks and, in its second
game, stops answering properly (an interrupted game, which no export may contain); and a short best-of-5 game, whose
moves are made by several calls and decided by a selector.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.engine.seeds import resolve_seeds
from harness.export.contamination import check_seeds, load_exported_seeds
from harness.export.schema import SCHEMA_VERSION
from harness.formats import parse_reply
from harness.schema.log_file import GameLogContents, read_game_log
from harness.strategies.scaffold import load_scaffold
from tests.fakeserver import FakeModelServer, Reply, answer_in_format, careful_player, legal_moves_in
from tests.helpers import rows_of


class RatingServer:
    """A model behind HTTP: legal moves with a reasoning trace; ratings miss the last move and rate move 0 out of
    range; the first answer to every fifth new prompt is prose (re-asked); game 2 stops answering at turn 4."""

    def __init__(self) -> None:
        self.prompts: set[str] = set()
        self.games = 0
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        turn = int(re.search(r"It is turn (\d+)", messages[1]["content"]).group(1))
        key = json.dumps(messages[:2])
        with self.lock:
            fresh = len(messages) == 2 and key not in self.prompts
            if fresh:
                self.prompts.add(key)
                self.games += turn == 1
            count, game = len(self.prompts), self.games
        if game >= 2 and turn >= 4:
            return Reply(content="I would rather not choose a move.")
        if fresh and count % 5 == 0:
            return Reply(content="Let me think about the fireworks first.")
        moves = [i for i, _ in legal_moves_in(request)]
        choice = parse_reply(careful_player(request).content, len(moves)).action
        ratings = {i: (0.9 if i == choice else round(-0.9 + 0.1 * (i % 10), 2)) for i in moves[:-1]}
        if choice != 0:
            ratings[0] = 1.7
        content = answer_in_format(request, choice, ratings, f"Turn {turn}: move {choice}.")
        return Reply(content=content, reasoning=f"trace of turn {turn}")


def reckless(request: dict[str, Any]) -> Reply:
    """Always plays a card, rating that play above everything else: a game over in a few moves."""
    moves = legal_moves_in(request)
    choice = next(i for i, description in moves if description.startswith("(Play"))
    ratings = {i: (0.9 if i == choice else -0.5) for i, _ in moves}
    return Reply(content=answer_in_format(request, choice, ratings, "Play the oldest card."))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("runs")
    found: dict[str, Path] = {}

    def run(name: str, *argv: str, code: int = 0) -> None:
        before = set(out.iterdir())
        assert main(["run", *argv, "--out", str(out), "--no-progress"]) == code
        (found[name],) = set(out.iterdir()) - before

    run("watson", "--players", "2", "3", "--seeds", "1")
    run("sherlock", "--scaffold", "sherlock", "--seeds", "1")
    run("mycroft", "--scaffold", "mycroft", "--seeds", "2")
    run(
        "mixed",
        "--seat",
        "local/smart",
        "--seat",
        "local/cautious:sherlock",
        "--seeds",
        "1",
        "--rotation",
        "off",
    )
    with FakeModelServer(RatingServer()) as server:
        argv = ["--model", "openai/rater", "--api-base", server.base_url, "--seeds", "3,4"]
        run("served", *argv, "--scaffold", "watson-plus", "--concurrency", "1", "--max-retries", "1", code=1)
    with FakeModelServer(reckless) as server:
        argv = ["--model", "openai/reckless", "--api-base", server.base_url, "--seeds", "1"]
        run("bestof", *argv, "--scaffold", "best-of-5-watson")
    return found


@pytest.fixture
def hf_offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    cache = tmp_path / "hf-cache"
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(cache))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(cache / "datasets"))
    return cache


def load(path: Path, cache: Path, **options: Any):
    from datasets import load_dataset

    return load_dataset(
        "json", data_files=str(path), split="train", cache_dir=str(cache / "datasets"), **options
    )


def export(out: Path, fmt: str, *runs: Path, extra: tuple[str, ...] = ()) -> int:
    return main(["export", *map(str, runs), "--format", fmt, "--out", str(out), *extra])


def complete_games(*runs: Path) -> list[GameLogContents]:
    games = [read_game_log(p) for run in runs for p in sorted((run / "games").glob("*.jsonl"))]
    return [g for g in games if g.complete]


META = {"run_id", "game_id", "seed", "seed_set", "repeat", "players", "seat", "turn", "model", "scaffold", "role"}
META |= {"final_score", "engine_score"}


def test_hanabilogs_is_one_sft_row_per_call_that_trains_only_on_the_accepted_reply(
    runs: dict[str, Path], tmp_path: Path, hf_offline: Path
) -> None:
    sources = [runs["watson"], runs["mycroft"], runs["served"]]
    assert export(tmp_path / "logs", "hanabilogs", *sources) == 0
    # Read in small batches: `datasets` fixes column types from the first batch, and the offline games (no
    # reasoning traces) come before the served ones.
    dataset = load(tmp_path / "logs" / "hanabilogs.jsonl", hf_offline, chunksize=64 << 10)
    assert set(dataset.column_names) == META | {
        "messages",
        "reasoning",
        "attempts",
        "rejected_replies",
        "repair_dialogue",
    }
    games = complete_games(*sources)
    calls = [(g, m, c) for g in games for m in g.moves for c in m.calls]
    assert dataset.num_rows == len(calls)
    by_key = {(r["game_id"], r["run_id"], r["turn"], r["role"]): r for r in dataset}
    reasked = 0
    for game, record, call in calls:
        row = by_key[(game.header.game_id, game.header.run_id, record.turn, call.role)]
        final = call.attempts[-1]
        first = [{**m.model_dump(), "weight": 0} for m in call.attempts[0].messages]
        assert row["messages"] == [*first, {"role": "assistant", "content": final.reply, "weight": 1}]
        roles = [m["role"] for m in row["messages"]]  # the paper's Sherlock and Mycroft send no system message
        assert roles in (["system", "user", "assistant"], ["user", "assistant"])
        assert row["reasoning"] == (final.reasoning or "")
        assert row["attempts"] == len(call.attempts)
        assert row["repair_dialogue"] is False
        assert (row["seed"], row["players"], row["seat"]) == (
            game.header.seed,
            game.header.players,
            record.seat,
        )
        assert (row["final_score"], row["engine_score"]) == (
            game.result.fireworks_score,
            game.result.engine_score,
        )
        if len(call.attempts) > 1:
            reasked += 1
            assert row["rejected_replies"] == len(call.attempts) - 1
            assert call.attempts[0].reply not in [m["content"] for m in row["messages"]]
    assert reasked > 0
    traces = [r["reasoning"] for r in dataset if r["model"] == "openai/rater"]
    assert traces and all(t.startswith("trace of turn") for t in traces)
    assert all(r["reasoning"] == "" for r in dataset if r["model"] == "local/smart")


def test_the_repair_dialogue_is_kept_only_when_asked_and_then_weighted_zero(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    assert export(tmp_path / "logs", "hanabilogs", runs["served"], extra=("--repair-dialogue",)) == 0
    rows = {(r["game_id"], r["turn"]): r for r in rows_of(tmp_path / "logs" / "hanabilogs.jsonl")}
    (game,) = complete_games(runs["served"])
    reasked = [m for m in game.moves if len(m.calls[0].attempts) > 1]
    assert reasked
    for record in reasked:
        (call,) = record.calls
        row = rows[(game.header.game_id, record.turn)]
        bad = call.attempts[0]
        assert row["repair_dialogue"] is True
        assert row["messages"][2:4] == [
            {"role": "assistant", "content": bad.reply, "weight": 0},
            {"role": "user", "content": bad.error, "weight": 0},
        ]
        trained = [m["content"] for m in row["messages"] if m["weight"] == 1]
        assert trained == [call.attempts[-1].reply] == [row["messages"][-1]["content"]]
    card = (tmp_path / "logs" / "README.md").read_text()
    assert "made with `--repair-dialogue`" in card and "TRL's `SFTTrainer` ignores `weight`" in card


def test_hanabirewards_has_one_row_per_decided_move_and_ratings_round_trip_exactly(
    runs: dict[str, Path], tmp_path: Path, hf_offline: Path
) -> None:
    sources = [runs["watson"], runs["sherlock"], runs["mycroft"], runs["served"]]
    assert export(tmp_path / "rewards", "hanabirewards", *sources) == 0
    path = tmp_path / "rewards" / "hanabirewards.jsonl"
    dataset = load(path, hf_offline)
    assert set(dataset.column_names) == META | {
        "prompt",
        "completion",
        "candidate_moves",
        "candidate_ratings",
        "candidate_rated",
        "ratings_complete",
        "engine_values",
        "engine_value_se",
        "engine_rollouts",
        "chosen_move_index",
        "chosen_move",
        "reason",
        "attempts",
        "rejected_replies",
        "extra",
    }
    moves = [(g, m) for g in complete_games(*sources) for m in g.moves]
    assert dataset.num_rows == len(rows_of(path)) == len(moves)
    assert list(dataset) == rows_of(path)  # Arrow reads back exactly what was written
    by_key = {(r["run_id"], r["game_id"], r["turn"]): r for r in dataset}
    incomplete = 0
    for game, record in moves:
        row = by_key[(game.header.run_id, game.header.game_id, record.turn)]
        assert row["candidate_rated"] == [r is not None for r in record.ratings]
        paired = list(zip(row["candidate_ratings"], row["candidate_rated"], strict=True))
        assert [r if rated else None for r, rated in paired] == record.ratings
        assert all(r == 0.0 for r, rated in paired if not rated)
        assert row["candidate_moves"] == record.legal_moves
        assert row["chosen_move"] == record.legal_moves[record.move_index] == record.move.description
        assert row["ratings_complete"] == (None not in record.ratings)
        incomplete += not row["ratings_complete"]
        (call,) = record.calls
        assert row["prompt"] == [m.model_dump() for m in call.attempts[0].messages]
        assert [m["role"] for m in row["prompt"]][-1] == "user"  # the paper's Sherlock is one user message
        assert row["completion"] == [{"role": "assistant", "content": call.attempts[-1].reply}]
        extra = json.loads(row["extra"])
        assert extra["invalid_ratings"] == record.invalid_ratings
        assert (extra["tracking"], extra["memory"]) == (record.tracking, record.memory)
    assert incomplete > 0
    served = [json.loads(r["extra"]) for r in dataset if r["model"] == "openai/rater"]
    assert any(e["invalid_ratings"] == {"0": "1.7"} for e in served)
    assert any(json.loads(r["extra"])["tracking"] for r in dataset if r["scaffold"] == "mycroft")


def test_a_grpo_reward_function_scores_completions_from_the_reward_columns(
    runs: dict[str, Path], tmp_path: Path, hf_offline: Path
) -> None:
    """GRPO passes every column besides `prompt` to the reward functions as keyword arguments."""
    assert export(tmp_path / "rewards", "hanabirewards", runs["watson"], runs["sherlock"]) == 0
    dataset = load(tmp_path / "rewards" / "hanabirewards.jsonl", hf_offline)

    def move_rating_reward(
        completions, candidate_moves, candidate_ratings, candidate_rated, **_columns
    ) -> list[float]:
        scores = []
        rows = zip(completions, candidate_moves, candidate_ratings, candidate_rated, strict=True)
        for completion, moves, ratings, rated in rows:
            action = parse_reply(completion[0]["content"], len(moves)).action
            scores.append(ratings[action] if rated[action] else -1.0)
        return scores

    batch = dataset[:40]
    columns = {k: v for k, v in batch.items() if k not in ("prompt", "completion")}
    scores = move_rating_reward(batch["completion"], **columns)
    expected = [r[i] for r, i in zip(batch["candidate_ratings"], batch["chosen_move_index"], strict=True)]
    assert scores == expected


@pytest.mark.parametrize("scaffold", ["watson", "sherlock", "mycroft"])
def test_preference_pairs_are_well_formed_replies_in_the_scaffolds_format(
    scaffold: str, runs: dict[str, Path], tmp_path: Path, hf_offline: Path
) -> None:
    assert export(tmp_path / "prefs", "preferences", runs[scaffold], extra=("--margin", "0.6")) == 0
    dataset = load(tmp_path / "prefs" / "preferences.jsonl", hf_offline)
    assert {"prompt", "chosen", "rejected", "rating_gap"} <= set(dataset.column_names)
    definition = load_scaffold(scaffold).base  # the call that chooses a single-call scaffold's move
    records = {(g.header.game_id, m.turn): m for g in complete_games(runs[scaffold]) for m in g.moves}
    expected_pairs = moves_with_a_pair = 0
    for record in records.values():
        rated = [r for r in record.ratings if r is not None]
        found = sum(1 for r in rated if max(rated) - r >= 0.6 - 1e-9)
        expected_pairs += found
        moves_with_a_pair += found > 0
    # By default one pair per move: the best-rated move against the worst-rated one. The paper's Mycroft prompt
    # carries the previous turn's state and reply, so its games reach the 1 MB default cap: the pairs left out
    # (smallest gaps first) are counted in the manifest, and the file keeps within the cap.
    manifest = json.loads((tmp_path / "prefs" / "export_manifest.json").read_text())
    dropped = manifest["preference_size"]["dropped_pairs"]
    assert dataset.num_rows + dropped == moves_with_a_pair > 0
    assert manifest["preference_size"]["max_bytes_per_game"] <= 1000 * 1000
    assert len({(r["game_id"], r["turn"]) for r in dataset}) == dataset.num_rows
    for row in dataset:
        record = records[(row["game_id"], row["turn"])]
        assert row["prompt"] == [m.model_dump() for m in record.calls[-1].attempts[0].messages]
        assert row["chosen_rating"] == max(r for r in record.ratings if r is not None)
        assert row["rejected_rating"] == min(r for r in record.ratings if r is not None)
        assert row["rating_gap"] >= 0.6 - 1e-9 and row["pair_index"] == 0
        for side, index in (("chosen", row["chosen_move_index"]), ("rejected", row["rejected_move_index"])):
            (message,) = row[side]
            assert message["role"] == "assistant"
            parsed = definition.reply_format.read(message["content"], len(record.legal_moves))
            assert parsed.action == index
            assert parsed.ratings == record.ratings
            assert record.legal_moves[index] in parsed.reason
        chosen, rejected = row["chosen"][0]["content"], row["rejected"][0]["content"]
        if definition.output == "json":
            same = [
                {k: v for k, v in json.loads(t).items() if k not in ("action", "reason")}
                for t in (chosen, rejected)
            ]
            assert same[0] == same[1] and ("deduction" in same[0]) == (scaffold == "mycroft")
        else:
            assert chosen.splitlines()[1] == rejected.splitlines()[1]  # the same "Move Ratings: ..." line
    if definition.output == "json":
        assert json.loads(dataset[0]["chosen"][0]["content"])["action"] == dataset[0]["chosen_move_index"]
    else:
        assert dataset[0]["chosen"][0]["content"].endswith(
            f"Chosen Move Number: {dataset[0]['chosen_move_index']}"
        )
    extra = ("--margin", "0.6", "--pairs-per-move", "all", "--max-game-kb", "0")
    assert export(tmp_path / "all", "preferences", runs[scaffold], extra=extra) == 0
    assert len(rows_of(tmp_path / "all" / "preferences.jsonl")) == expected_pairs > moves_with_a_pair


def test_a_multi_call_scaffold_exports_every_call_and_the_deciders_choice(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    for fmt in ("hanabilogs", "hanabirewards", "preferences"):
        assert export(tmp_path / fmt, fmt, runs["bestof"]) == 0
    (game,) = complete_games(runs["bestof"])
    logs = rows_of(tmp_path / "hanabilogs" / "hanabilogs.jsonl")
    assert [(r["turn"], r["role"]) for r in logs] == [(m.turn, c.role) for m in game.moves for c in m.calls]
    assert {r["role"] for r in logs} == {*(f"sample-{i}" for i in range(1, 6)), "selector"}
    rewards = rows_of(tmp_path / "hanabirewards" / "hanabirewards.jsonl")
    assert len(rewards) == len(game.moves) > 1
    for row, record in zip(rewards, game.moves, strict=True):
        selector = record.calls[-1]
        assert row["role"] == selector.role == "selector"
        assert row["prompt"] == [m.model_dump() for m in selector.attempts[0].messages]
        assert row["completion"] == [{"role": "assistant", "content": selector.attempts[-1].reply}]
    decider = load_scaffold("best-of-5-watson").decider
    preferences = rows_of(tmp_path / "preferences" / "preferences.jsonl")
    assert len(preferences) == len(game.moves)  # one pair per move
    for row in preferences:
        record = game.moves[row["turn"] - 1]
        assert row["prompt"] == rewards[row["turn"] - 1]["prompt"]
        for side in ("chosen", "rejected"):
            text = row[side][0]["content"]
            parsed = parse_reply(text, len(record.legal_moves), decider.contract, decider.required_fields)
            assert parsed.action == row[f"{side}_move_index"]
            if decider.output == "json":
                assert json.loads(text)["action"] == parsed.action


def test_filters_select_games_and_seats(runs: dict[str, Path], tmp_path: Path) -> None:
    sources = [runs["watson"], runs["mycroft"], runs["served"]]
    games = complete_games(*sources)

    def exported(*flags: str) -> set[str]:
        out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
        assert export(out, "hanablive", *sources, extra=flags) == 0
        manifest = json.loads((out / "export_manifest.json").read_text())
        return {f"{g['run_id']}/{g['game_id']}" for g in manifest["game_list"]}

    def ids(selected: list[GameLogContents]) -> set[str]:
        return {f"{g.header.run_id}/{g.header.game_id}" for g in selected}

    best = max(g.result.fireworks_score for g in games)
    assert exported() == ids(games)
    assert exported("--scaffold", "mycroft") == ids(
        [g for g in games if g.header.seats[0].scaffold == "mycroft"]
    )
    assert exported("--model", "openai/rater") == ids(
        [g for g in games if g.header.seats[0].model != "local/smart"]
    )
    assert exported("--players", "3") == ids([g for g in games if g.header.players == 3])
    # a filter given twice takes both values, as one flag with two does (not only the last)
    assert exported("--players", "2", "--players", "3") == exported("--players", "2", "3") == ids(games)
    assert exported("--model", "openai/rater", "--model", "local/smart") == ids(games)
    assert exported("--min-score", str(best)) == ids([g for g in games if g.result.fireworks_score == best])
    assert exported("--seed-set", "custom", "--players", "2", "--model", "local/smart") == ids(
        [g for g in games if g.header.players == 2 and g.header.seats[0].model == "local/smart"]
    )


def test_model_and_scaffold_filters_pick_the_seats_of_a_mixed_team(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    (game,) = complete_games(runs["mixed"])
    assert (
        export(tmp_path / "cautious", "hanabirewards", runs["mixed"], extra=("--model", "local/cautious"))
        == 0
    )
    rows = rows_of(tmp_path / "cautious" / "hanabirewards.jsonl")
    assert [r["turn"] for r in rows] == [m.turn for m in game.moves if m.seat == 1]
    assert {(r["seat"], r["model"], r["scaffold"]) for r in rows} == {(1, "local/cautious", "sherlock")}
    card = (tmp_path / "cautious" / "README.md").read_text()
    assert "- Models: local/cautious\n- Scaffolds: sherlock\n" in card
    assert export(tmp_path / "watson", "hanabilogs", runs["mixed"], extra=("--scaffold", "watson")) == 0
    rows = rows_of(tmp_path / "watson" / "hanabilogs.jsonl")
    assert [r["turn"] for r in rows] == [m.turn for m in game.moves if m.seat == 0]
    assert export(tmp_path / "replay", "hanablive", runs["mixed"], extra=("--model", "local/cautious")) == 0
    (replay,) = [p for p in (tmp_path / "replay").glob("*.json") if p.name != "export_manifest.json"]
    (end,) = json.loads((tmp_path / "replay" / "export_manifest.json").read_text())["replay_ends"]
    actions = json.loads(replay.read_text())["actions"]
    assert len(actions) == end["hanablive_actions"] > sum(1 for m in game.moves if m.seat == 1)  # both seats


def test_only_complete_games_are_exported_and_the_skipped_ones_are_counted(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert export(tmp_path / "logs", "hanabilogs", runs["served"]) == 0
    said = capsys.readouterr().out
    assert "from 1 game (" in said and "skipped 1 interrupted" in said
    manifest = json.loads((tmp_path / "logs" / "export_manifest.json").read_text())
    assert manifest["skipped_incomplete"] == 1 and manifest["games"] == 1
    (interrupted,) = [
        read_game_log(p) for p in (runs["served"] / "games").glob("*.jsonl") if not read_game_log(p).complete
    ]
    rows = rows_of(tmp_path / "logs" / "hanabilogs.jsonl")
    assert (
        {r["game_id"] for r in rows} == {manifest["game_list"][0]["game_id"]} != {interrupted.header.game_id}
    )
    assert f"| {len(rows)} | 1 | {len(rows)} | 1 | 0 |" in (tmp_path / "logs" / "README.md").read_text()
    # a game the filters leave out is not counted as skipped, finished or not
    only_local = ("--model", "local/cautious")
    assert export(tmp_path / "local", "hanabilogs", runs["served"], runs["mixed"], extra=only_local) == 0
    assert "skipped 0 interrupted" in capsys.readouterr().out
    assert json.loads((tmp_path / "local" / "export_manifest.json").read_text())["skipped_incomplete"] == 0


def test_the_card_and_manifest_describe_the_export(runs: dict[str, Path], tmp_path: Path) -> None:
    sources = [runs["watson"], runs["mycroft"]]
    out = tmp_path / "rewards"
    assert export(out, "hanabirewards", *sources, extra=("--players", "2")) == 0
    games = [g for g in complete_games(*sources) if g.header.players == 2]
    card = (out / "README.md").read_text()
    manifest = json.loads((out / "export_manifest.json").read_text())
    moves = sum(len(g.moves) for g in games)
    assert f"| {moves} | {len(games)} | {moves} | 0 | 0 |" in card  # rows, games, moves, skipped, damaged
    assert "- Models: local/smart" in card and "- Scaffolds: mycroft, watson" in card
    assert "- Player counts: 2" in card
    for game in games:  # the runs and seeds table: run, seed set, players, seeds, plays per seed
        assert f"| `{game.header.run_id}` | custom | 2 | {game.header.seed} | 1 |" in card
    assert (
        f"hanabi-eval export {sources[0]} {sources[1]} --format hanabirewards --out {out} --players 2" in card
    )
    for source in sources:
        commit = json.loads((source / "manifest.json").read_text())["git"]["commit"]
        run_id = json.loads((source / "manifest.json").read_text())["run_id"]
        assert f"| `{run_id}` | `{commit}` |" in card
    for score in {g.result.fireworks_score for g in games}:
        count = sum(1 for g in games if g.result.fireworks_score == score)
        assert f"| {score} | {count} |" in card
    assert "path: hanabirewards.jsonl" in card.split("---")[1]  # the Hub finds the data file
    for column in ("candidate_ratings", "candidate_rated", "ratings_complete", "extra", "final_score", "repeat"):
        assert f"| `{column}` |" in card
    assert 'load_dataset("json", data_files="hanabirewards.jsonl", split="train")' in card
    assert "GRPOTrainer(" in card and f"schema version {SCHEMA_VERSION}" in card.lower()
    pairs = sorted({(g.header.seed_set, g.header.seed) for g in games})
    assert manifest["seeds"] == [
        {"seed_set": name, "seed": seed, "players": [2], "games": 1} for name, seed in pairs
    ]
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert (manifest["rows"], manifest["games"], manifest["moves"]) == (moves, len(games), moves)


def test_the_contamination_guard_reads_any_export_and_names_the_overlap(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "logs"
    assert export(out, "hanabilogs", runs["watson"], runs["mycroft"]) == 0
    replays = tmp_path / "replays"
    assert export(replays, "hanablive", runs["watson"], runs["mycroft"]) == 0
    any_replay = next(p for p in replays.glob("*.json") if p.name != "export_manifest.json")
    moved = tmp_path / "moved.jsonl"
    moved.write_text((out / "hanabilogs.jsonl").read_text())
    for where in (out, out / "export_manifest.json", out / "hanabilogs.jsonl", moved, replays, any_replay):
        assert load_exported_seeds(where) == {1, 2}
    standard = resolve_seeds("standard")
    with pytest.raises(ValueError, match=r"seeds 1 \(standard\), 2 \(standard\) are in the exported"):
        check_seeds(standard, {1, 2}, skip=False)
    assert [s.seed for s in check_seeds(standard, {1, 2}, skip=True)] == list(range(3, 11))
    assert check_seeds(resolve_seeds("heldout"), {1, 2}, skip=False) == resolve_seeds("heldout")
    with pytest.raises(ValueError, match="every requested seed"):
        check_seeds(standard[:2], {1, 2}, skip=True)
    with pytest.raises(ValueError, match="is not an export folder"):
        load_exported_seeds(runs["watson"])


def test_an_existing_export_is_replaced_only_with_force_and_never_half_written(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "exports" / "logs"
    assert export(out, "hanabilogs", runs["sherlock"]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    assert export(out, "hanabilogs", runs["watson"]) == 2
    assert "already holds a hanabilogs export; pass --force" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert export(out, "preferences", runs["watson"], extra=("--margin", "2", "--force")) == 2
    assert "no decided move has two ratings at least --margin 2.0 apart" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert export(out, "hanabilogs", runs["watson"], extra=("--force",)) == 0
    assert {p.name for p in out.iterdir()} == {"hanabilogs.jsonl", "README.md", "export_manifest.json"}
    assert "watson" in json.loads((out / "export_manifest.json").read_text())["source_runs"][0]["run_id"]
    assert [p.name for p in out.parent.iterdir()] == ["logs"]  # no temporary folder left behind
    (out / "NOTES.md").write_text("kept by hand")
    assert export(out, "hanabilogs", runs["sherlock"], extra=("--force",)) == 2
    assert "holds NOTES.md, which the export there did not write" in capsys.readouterr().err
    assert (out / "NOTES.md").read_text() == "kept by hand"


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["{missing}", "--format", "hanabilogs"], "does not exist"),
        (["{notes}", "--format", "hanabilogs"], "is not a run directory (no manifest.json) and holds no runs"),
        (
            ["{watson}", "--format", "hanabilogs", "--model", "openai/none"],
            "no complete game matches --model",
        ),
        (["{watson}", "--format", "hanabilogs", "--min-score", "26"], "--min-score 26 is outside 0-25"),
        (["{watson}", "--format", "hanabilogs", "--players", "7"], "--players 7 is outside 2-5"),
        (
            ["{watson}", "--format", "hanablive", "--margin", "1"],
            "--margin applies only to --format preferences",
        ),
        (["{watson}", "--format", "preferences", "--margin", "0"], "--margin 0.0 must be above 0"),
        (["{watson}", "--format", "hanablive", "--repair-dialogue"], "--repair-dialogue applies only to"),
        (
            ["{watson}", "--format", "hanabilogs", "--pairs-per-move", "2"],
            "--pairs-per-move applies only to --format preferences",
        ),
        (["{watson}", "--format", "preferences", "--pairs-per-move", "0"], "0 must be at least 1 (or 'all')"),
        (["{watson}", "--format", "hanabirewards", "--max-game-kb", "5"], "--max-game-kb applies only to"),
        (["{watson}", "--format", "hanabilogs", "--out", "{tmp}/x.jsonl"], "looks like a file name"),
        (["{watson}", "--format", "hanabilogs", "--out", "{watson}/export"], "is inside the run directory"),
        (
            ["{watson}", "--format", "hanabilogs", "--out", "{notes}", "--force"],
            "holds other files, not an export",
        ),
        (["{watson}", "--format", "csv"], "invalid choice: 'csv'"),
    ],
)
def test_bad_input_is_one_line_with_exit_code_2_and_writes_nothing(
    argv: list[str], named: str, runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "keep.txt").write_text("keep me")
    places = {"missing": tmp_path / "nope", "tmp": tmp_path}
    places |= {"notes": notes, **runs}
    args = ["export", *(a.format(**places) for a in argv)]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) if named.startswith(("invalid choice", "0 must")) else _raises_nothing():
        assert main(args) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]
    assert [p.name for p in notes.iterdir()] == ["keep.txt"]
    assert not list(runs["watson"].glob("export*"))


class _raises_nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def _null_free(feature: Any) -> bool:
    """Whether a `datasets` feature holds no null-typed value at any depth."""
    from datasets import List, Value

    if isinstance(feature, Value):
        return feature.dtype != "null"
    if isinstance(feature, List):
        return _null_free(feature.feature)
    if isinstance(feature, dict):
        return all(_null_free(f) for f in feature.values())
    return True


@pytest.mark.parametrize("fmt", ["hanabilogs", "hanabirewards", "preferences"])
def test_exports_of_any_scaffold_and_run_share_the_declared_schema_and_combine_without_a_cast(
    fmt: str, runs: dict[str, Path], tmp_path: Path, hf_offline: Path
) -> None:
    """A text scaffold, a JSON scaffold, Mycroft and a served run with re-asked replies, exported one run at a time:
    each file reads to exactly the features its card declares, with no null type, and they combine as they are."""
    import yaml
    from datasets import Features, concatenate_datasets, load_dataset

    files, declared = [], []
    for name in ("watson", "sherlock", "mycroft", "served"):
        out = tmp_path / name
        assert export(out, fmt, runs[name]) == 0
        files.append(out / f"{fmt}.jsonl")
        header = (out / "README.md").read_text().split("---")[1]
        declared.append(Features._from_yaml_list(yaml.safe_load(header)["dataset_info"]["features"]))
    assert all(d == declared[0] for d in declared)
    parts = [load(path, hf_offline) for path in files]
    for part in parts:
        assert part.features == declared[0] and _null_free(part.features)
    combined = concatenate_datasets(parts)
    together = load_dataset(
        "json", data_files=[str(f) for f in files], split="train", cache_dir=str(hf_offline / "datasets")
    )
    assert combined.features == together.features == declared[0]
    assert together.num_rows == combined.num_rows == sum(p.num_rows for p in parts)
    assert {r["scaffold"] for r in together} == {"watson", "sherlock", "mycroft", "watson-plus"}
    # The folder loads with the card's declared features too.
    folder = load_dataset(str(files[0].parent), split="train", cache_dir=str(hf_offline / "datasets"))
    assert folder.features == declared[0]


def test_no_rejected_reply_is_a_trained_assistant_turn(runs: dict[str, Path], tmp_path: Path) -> None:
    (game,) = complete_games(runs["served"])
    rejected = {a.reply for m in game.moves for c in m.calls for a in c.attempts[:-1] if a.reply is not None}
    assert rejected
    for fmt, columns in (
        ("hanabilogs", ("messages",)),
        ("hanabirewards", ("prompt", "completion")),
        ("preferences", ("prompt", "chosen", "rejected")),
    ):
        assert export(tmp_path / fmt, fmt, runs["served"]) == 0
        rows = rows_of(tmp_path / fmt / f"{fmt}.jsonl")
        said = {m["content"] for r in rows for c in columns for m in r[c] if m["role"] == "assistant"}
        assert said and not said & rejected
    assert any(r["rejected_replies"] for r in rows_of(tmp_path / "hanabirewards" / "hanabirewards.jsonl"))


def test_preference_files_stay_within_the_size_budget_and_the_card_says_how_they_were_sampled(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    sources = [runs["watson"], runs["sherlock"], runs["mycroft"]]
    assert export(tmp_path / "prefs", "preferences", *sources) == 0
    manifest = json.loads((tmp_path / "prefs" / "export_manifest.json").read_text())
    size = manifest["preference_size"]
    per_game: dict[str, int] = {}
    for line in (tmp_path / "prefs" / "preferences.jsonl").read_text().splitlines(keepends=True):
        row = json.loads(line)
        key = f"{row['run_id']}/{row['game_id']}"
        per_game[key] = per_game.get(key, 0) + len(line.encode())
    assert size["max_bytes_per_game"] == max(per_game.values()) <= 1_000_000
    assert manifest["options"] == {"repair_dialogue": False, "pairs_per_move": 1, "max_game_bytes": 1_000_000}
    card = (tmp_path / "prefs" / "README.md").read_text()
    assert f"at most\n{size['max_bytes_per_game'] / 1000:.1f} kB" in card
    assert "the worst-rated legal move rated at least 0.5" in card and "stored once per move" in card
    # A tighter budget keeps each game's pairs with the largest rating gaps and says how many it left out.
    extra = ("--pairs-per-move", "all", "--max-game-kb", "40")
    assert export(tmp_path / "small", "preferences", *sources, extra=extra) == 0
    small = json.loads((tmp_path / "small" / "export_manifest.json").read_text())["preference_size"]
    assert small["max_bytes_per_game"] <= 40_000 and small["dropped_pairs"] > 0
    said = (tmp_path / "small" / "README.md").read_text()
    assert f"{small['dropped_pairs']} pairs of this export were left out" in said


def test_export_takes_a_parent_folder_and_leaves_out_a_damaged_log_with_a_warning(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    parent = tmp_path / "results"
    for name in ("watson", "sherlock"):
        shutil.copytree(runs[name], parent / "nested" / runs[name].name)
    damaged = sorted((parent / "nested" / runs["watson"].name / "games").glob("*.jsonl"))[0]
    lines = damaged.read_text().splitlines(keepends=True)
    damaged.write_text("".join([lines[0], "{not json\n", *lines[2:]]))
    capsys.readouterr()
    assert export(tmp_path / "logs", "hanabilogs", parent) == 0
    err = capsys.readouterr().err
    assert f"warning: {damaged}:2: not a valid log record" in err and len(err.strip().splitlines()) == 1
    manifest = json.loads((tmp_path / "logs" / "export_manifest.json").read_text())
    expected = len(complete_games(runs["watson"], runs["sherlock"])) - 1
    assert manifest["games"] == expected and len(manifest["skipped_corrupt"]) == 1
    assert damaged.stem not in {g["game_id"] for g in manifest["game_list"] if "watson" in g["run_id"]}
    assert str(damaged) in (tmp_path / "logs" / "README.md").read_text()


def test_a_copied_run_is_refused_as_report_refuses_it(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each game is exported once: a run given beside its copy is refused, naming both folders, and nothing is
    written (the same check as `report`'s, tests/report/test_out_folder.py)."""
    import shutil

    copy = tmp_path / "backup" / runs["watson"].name
    shutil.copytree(runs["watson"], copy)
    capsys.readouterr()
    assert export(tmp_path / "logs", "hanabilogs", runs["watson"], tmp_path / "backup") == 2
    err = capsys.readouterr().err
    assert f"is in both {runs['watson']} and {copy} (a copied run?); pass each run once" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "logs").exists()


def test_an_export_folder_of_another_kind_or_schema_version_is_refused_unless_forced(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert export(out, "preferences", runs["watson"]) == 0
    capsys.readouterr()
    assert export(out, "hanabilogs", runs["watson"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        f"--out {out} holds a preferences export of schema version {SCHEMA_VERSION}, not hanabilogs version "
        f"{SCHEMA_VERSION}; choose another folder, or pass --force to replace it"
    )
    assert len(err.splitlines()) == 1
    manifest = json.loads((out / "export_manifest.json").read_text())
    (out / "export_manifest.json").write_text(json.dumps({**manifest, "schema_version": 1}))
    assert export(out, "preferences", runs["watson"]) == 2
    refused = f"holds a preferences export of schema version 1, not preferences version {SCHEMA_VERSION}"
    assert refused in capsys.readouterr().err
    assert export(out, "hanabilogs", runs["watson"], extra=("--force",)) == 0
    assert json.loads((out / "export_manifest.json").read_text())["format"] == "hanabilogs"


def test_a_scaffold_whose_replies_cannot_be_written_is_explained_not_crashed(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Preference replies are written in the deciding call's format, so a scaffold this checkout does not define
    cannot share the `chosen`/`rejected` columns with the others: one line names it and the ways out."""
    import shutil

    ghost = tmp_path / "ghost-run"
    shutil.copytree(runs["watson"], ghost)
    for log in (ghost / "games").glob("*.jsonl"):
        log.write_text(log.read_text().replace('"scaffold":"watson"', '"scaffold":"ghost"'))
    capsys.readouterr()
    assert export(tmp_path / "prefs", "preferences", ghost, runs["sherlock"]) == 2
    err = capsys.readouterr().err.strip()
    assert "scaffold 'ghost' of the logged games is not defined" in err and "--scaffold" in err
    assert len(err.splitlines()) == 1 and not (tmp_path / "prefs").exists()
    assert export(tmp_path / "prefs", "preferences", ghost, runs["sherlock"], extra=("--scaffold", "sherlock")) == 0
    assert export(tmp_path / "rewards", "hanabirewards", ghost, runs["sherlock"]) == 0  # ratings need no format


def test_preferences_prefer_the_accepted_reply_over_rejected_ones_only_when_asked(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    (game,) = complete_games(runs["served"])
    rejected = [(m, a) for m in game.moves for a in m.calls[-1].attempts[:-1] if a.reply is not None]
    assert rejected
    assert export(tmp_path / "plain", "preferences", runs["served"]) == 0
    plain = rows_of(tmp_path / "plain" / "preferences.jsonl")
    assert {r["pair_kind"] for r in plain} == {"ratings"}
    assert export(tmp_path / "repair", "preferences", runs["served"], extra=("--repair-dialogue",)) == 0
    rows = rows_of(tmp_path / "repair" / "preferences.jsonl")
    repairs = [r for r in rows if r["pair_kind"] == "repair"]
    assert [r for r in rows if r["pair_kind"] == "ratings"] == plain
    assert [(r["turn"], r["rejected"][0]["content"]) for r in repairs] == [(m.turn, a.reply) for m, a in rejected]
    for row in repairs:
        record = game.moves[row["turn"] - 1]
        (call,) = record.calls
        assert row["chosen"] == [{"role": "assistant", "content": call.attempts[-1].reply}]
        assert row["prompt"] == [m.model_dump() for m in call.attempts[0].messages]
        assert row["rejected_move_index"] == -1 and row["rejected_error"] == call.attempts[0].error_kind
    assert '`pair_kind` "repair"' in (tmp_path / "repair" / "README.md").read_text()


def test_repeats_of_a_seed_are_told_apart_in_rows_card_and_manifest(runs: dict[str, Path], tmp_path: Path) -> None:
    """A run that plays a seed more than once (`GameHeader.repeat`, game ids suffixed -r1, ...): every play is
    exported, rows carry `repeat`, and the card and manifest count the plays per seed."""
    import shutil

    run = tmp_path / "repeated"
    shutil.copytree(runs["sherlock"], run)
    (first,) = sorted((run / "games").glob("*.jsonl"))
    header, *rest = first.read_text().splitlines(keepends=True)
    data = json.loads(header)
    again = {**data, "repeat": 1, "game_id": f"{data['game_id']}-play1"}
    (run / "games" / f"{again['game_id']}.jsonl").write_text(json.dumps(again) + "\n" + "".join(rest))
    assert export(tmp_path / "rewards", "hanabirewards", run) == 0
    rows = rows_of(tmp_path / "rewards" / "hanabirewards.jsonl")
    assert {(r["game_id"], r["repeat"]) for r in rows} == {(data["game_id"], 0), (again["game_id"], 1)}
    card = (tmp_path / "rewards" / "README.md").read_text()
    assert f"| `{data['run_id']}` | custom | 2 | {data['seed']} | 2 |" in card  # seed, plays per seed
    manifest = json.loads((tmp_path / "rewards" / "export_manifest.json").read_text())
    assert manifest["seeds"] == [{"seed_set": "custom", "seed": data["seed"], "players": [2], "games": 2}]
    assert sorted(g["repeat"] for g in manifest["game_list"]) == [0, 1]
