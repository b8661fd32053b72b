"""Games spread over worker processes report every move and every result to the parent's progress display."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.engine.seeds import resolve_seeds
from harness.run.games import RunJob
from harness.run.live_progress import RunProgress
from harness.run.manifest import manifest_for
from harness.run.store import RunDir
from harness.run.workers import play_in_workers
from harness.schema.config import RunConfig, SessionOptions
from harness.schema.log_file import read_game_log
from harness.schema.records import SeatConfig


def test_worker_progress_counts_every_move_and_game(tmp_path: Path) -> None:
    config = RunConfig(
        seats=(SeatConfig(model="local/smart", scaffold="watson"),),
        players=(2, 3),
        seeds=tuple(resolve_seeds("1,2")),
    )
    run = RunDir(tmp_path / "run")
    options = SessionOptions(concurrency=4, workers=2)
    manifest = manifest_for(config, options, "test", ["test"])
    run.write_manifest(manifest)
    selected = [(0, plan) for plan in config.plans()]
    progress = RunProgress(total_games=len(selected), enabled=False)

    results = play_in_workers([RunJob(config=config, run=run, manifest=manifest)], selected, options, progress)

    logged = sum(len(read_game_log(path).moves) for path in run.game_paths())
    assert len(results) == len(selected) == 4
    assert progress.moves == logged > 0
    assert sorted(progress.scores) == sorted(result.fireworks_score for _, _, result in results)


def test_a_failure_in_the_parent_stops_the_workers_and_leaves_every_log_readable(tmp_path: Path) -> None:
    """Workers ignore SIGTERM (the parent decides how a session stops): when the parent fails, it tells them to stop,
    as a press of Ctrl-C does, instead of waiting while they play every game out."""
    config = RunConfig(
        seats=(SeatConfig(model="local/smart@25ms", scaffold="watson"),),
        players=(2,),
        seeds=tuple(resolve_seeds(",".join(str(seed) for seed in range(1, 17)))),
    )
    run = RunDir(tmp_path / "run")
    options = SessionOptions(concurrency=4, workers=2)  # two games at once in each worker: eight rounds of games
    manifest = manifest_for(config, options, "test", ["test"])
    run.write_manifest(manifest)
    selected = [(0, plan) for plan in config.plans()]

    def fails(*_: object) -> None:
        raise RuntimeError("the parent failed")

    job = RunJob(config=config, run=run, manifest=manifest)
    with pytest.raises(RuntimeError, match="the parent failed"):
        play_in_workers([job], selected, options, RunProgress(total_games=16, enabled=False), on_game=fails)
    logs = [read_game_log(path) for path in run.game_paths()]
    assert all(not contents.torn for contents in logs)
    assert sum(contents.complete for contents in logs) < len(selected) // 2  # they stopped, not played on


# last in this file: once a Router ran here, this process spawns its workers (tests/conftest.py, LAST_FILES)
def test_workers_start_after_litellm_s_native_runtime_ran_in_the_parent(tmp_path: Path) -> None:
    """A Router's calls start LiteLLM's native (Rust) runtime, whose threads a forked worker would not have: every
    call of such a worker failed (ForkedAfterNativeRuntimeStarted). Workers of a later run are then spawned, and
    play as any others."""
    from harness.cli.main import main
    from harness.models.client import native_runtime_started
    from tests.fakeserver import FakeModelServer, careful_player

    with FakeModelServer(careful_player) as server:
        grid = tmp_path / "grid.yaml"
        grid.write_text(
            "name: grid\nplayers: [2]\nseeds: ['1,2']\nscaffolds: [watson]\nmodels:\n"
            f"  - model: hosted_vllm/served\n    deployments:\n      - {{api_base: '{server.base_url}'}}\n"
        )
        assert main(["run", "--config", str(grid), "--out", str(tmp_path / "first"), "--no-progress"]) == 0
        assert native_runtime_started()
        argv = ["run", "--config", str(grid), "--workers", "2", "--out", str(tmp_path / "second"), "--no-progress"]
        assert main(argv) == 0
    logs = sorted((tmp_path / "second").glob("**/games/*.jsonl"))
    assert len(logs) == 2 and all(read_game_log(path).complete for path in logs)
