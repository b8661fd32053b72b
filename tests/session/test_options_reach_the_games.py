"""Options that were silently dropped or crashed (issue 16 item 6), each checked as a user would see it: against the
real fake OpenAI-compatible server, through `hanabi-eval run` and `resume`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from tests.fakeserver import FakeModelServer, Reply, careful_player, slow_player
from tests.helpers import finished


def refused(request: dict[str, Any]) -> Reply:
    return Reply(status=401)


def sweep(tmp_path: Path, model_entry: str, concurrency: int = 8, seeds: str = "1,2,3,4") -> Path:
    path = tmp_path / "grid.yaml"
    path.write_text(
        f"name: grid\nplayers: [2]\nseeds: ['{seeds}']\nscaffolds: [watson]\nconcurrency: {concurrency}\n"
        f"models:\n{model_entry}"
    )
    return path


def sessions(run_dir: Path) -> list[dict[str, Any]]:
    return json.loads((run_dir / "manifest.json").read_text())["sessions"]


def all_complete(folder: Path) -> bool:
    logs = list(folder.glob("**/games/*.jsonl"))
    return bool(logs) and all(read_game_log(p).complete for p in logs)


def test_workers_share_out_the_rate_limits_of_deployments(tmp_path: Path) -> None:
    # four games at once, one request each in flight: two workers that each took the whole limit would send four
    with FakeModelServer(slow_player) as server:
        entry = (
            "  - model: hosted_vllm/served\n    deployments:\n"
            f"      - {{api_base: '{server.base_url}', max_parallel_requests: 2, rpm: 100000, tpm: 100000000}}\n"
        )
        out = tmp_path / "out"
        # a process of its own, as a user would start it: this one's workers may have to be spawned (test_workers.py)
        run = finished(["run", "--config", str(sweep(tmp_path, entry)), "--workers", "2", "--out", str(out)])
        assert run.returncode == 0, run.stderr
        assert server.max_in_flight <= 2
    assert all_complete(out)


def test_session_options_given_with_config_apply_over_the_sweep_file(tmp_path: Path) -> None:
    with FakeModelServer(slow_player) as server:
        entry = f"  - {{model: openai/alpha, api_base: '{server.base_url}'}}\n"
        argv = [
            "run",
            "--config",
            str(sweep(tmp_path, entry, seeds="1,2")),  # two games: the file's 8 would run both at once
            "--out",
            str(tmp_path / "out"),
            "--no-progress",
        ]
        options = ["--concurrency", "1", "--timeout", "7", "--max-retries", "1"]
        options += ["--provider-retries", "2", "--retry-wait", "0.5", "--retry-wait-max", "9"]
        assert main([*argv, *options]) == 0
        assert server.max_in_flight == 1  # the file says 8
    (run_dir,) = (tmp_path / "out" / "grid").glob("openai-alpha*")
    (session,) = sessions(run_dir)
    assert session["timeouts_s"] == [7.0] and session["reply_retries"] == 1
    assert session["retry"] == {"provider_retries": 2, "wait_base_s": 0.5, "wait_max_s": 9.0}
    assert session["concurrency"] == 1


def test_resuming_a_sweep_keeps_its_concurrency(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeModelServer(refused) as down:
        entry = f"  - {{model: openai/alpha, api_base: '{down.base_url}'}}\n"
        config = sweep(tmp_path, entry, concurrency=1, seeds="1,2")  # two games: 8 would run both at once
        assert main(["run", "--config", str(config), "--out", str(out), "--no-progress"]) == 1
    with FakeModelServer(slow_player) as up:
        # the server moved: point the recorded sweep at it, as a user fixing the file would
        record = out / "grid" / "sweep.json"
        record.write_text(record.read_text().replace(down.base_url, up.base_url))
        assert main(["resume", str(out / "grid"), "--no-progress"]) == 0
        assert up.max_in_flight == 1  # not the 8 a resume used to set
    (run_dir,) = (out / "grid").glob("openai-alpha*")
    assert [s["concurrency"] for s in sessions(run_dir)] == [1, 1]
    assert all_complete(out)


def test_a_model_string_with_a_colon_tag_is_a_model_not_a_scaffold(tmp_path: Path) -> None:
    with FakeModelServer(careful_player) as server:
        seat = f"openai/llama3:latest,api_base={server.base_url}"
        argv = ["run", "--seat", seat, "--seat", "local/smart", "--seeds", "1", "--out", str(tmp_path)]
        assert main([*argv, "--no-progress"]) == 0
        assert {e.request["model"] for e in server.exchanges} == {"llama3:latest"}
    (log,) = tmp_path.glob("*/games/*.jsonl")
    assert read_game_log(log).header.seats[0].model == "openai/llama3:latest"


def test_resume_api_base_reaches_a_run_served_by_a_deployment(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeModelServer(refused) as down:
        entry = f"  - model: hosted_vllm/served\n    deployments:\n      - {{api_base: '{down.base_url}'}}\n"
        config = sweep(tmp_path, entry, seeds="1")  # one game: which server it reaches is what counts
        assert main(["run", "--config", str(config), "--out", str(out), "--no-progress"]) == 1
    (run_dir,) = (out / "grid").glob("hosted_vllm-served*")
    with FakeModelServer(slow_player) as up:
        assert main(["resume", str(run_dir), "--api-base", up.base_url, "--no-progress"]) == 0
        assert len(up.exchanges) > 20
    assert all_complete(run_dir)
    assert sessions(run_dir)[-1]["deployments"][0][0]["api_base"] == up.base_url
