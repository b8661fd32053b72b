"""Sweeps: a grid in one file, validated before any call, with per-model limits, deployments spread over several
servers, and resume."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from tests.fakeserver import FakeModelServer, Reply, slow_player
from tests.helpers import ROOT


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def sweep_file(
    tmp_path: Path, a: FakeModelServer, b: FakeModelServer, extra: str = "", seeds: str = "1,2,3,4"
) -> Path:
    return write(
        tmp_path / "grid.toml",
        f"""
name = "grid"
players = [2]
seeds = ["{seeds}"]
scaffolds = ["watson"]
concurrency = 8
{extra}
[[models]]
model = "openai/alpha"
api_base = "{a.base_url}"
concurrency = 1

[[models]]
model = "openai/beta"
api_base = "{b.base_url}"
concurrency = 3
""",
    )


def test_a_grid_runs_in_one_command_within_each_models_limit(tmp_path: Path) -> None:
    with FakeModelServer(slow_player) as a, FakeModelServer(slow_player) as b:
        config = sweep_file(tmp_path, a, b)
        assert main(["run", "--config", str(config), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
        assert a.max_in_flight == 1
        assert 2 <= b.max_in_flight <= 3
        assert {e.request["model"] for e in a.exchanges} == {"alpha"}
        assert {e.request["model"] for e in b.exchanges} == {"beta"}
        requests_before = len(a.exchanges) + len(b.exchanges)
        # the same command again plays nothing: every game is finished
        assert main(["run", "--config", str(config), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
        assert len(a.exchanges) + len(b.exchanges) == requests_before
    runs = sorted(p for p in (tmp_path / "out" / "grid").iterdir() if p.is_dir())
    assert [p.name.split("-watson")[0] for p in runs] == ["openai-alpha", "openai-beta"]
    for run in runs:
        logs = list((run / "games").glob("*.jsonl"))
        assert len(logs) == 4 and all(read_game_log(p).complete for p in logs)


def test_a_model_served_by_several_deployments_uses_all_of_them(tmp_path: Path) -> None:
    with FakeModelServer(slow_player) as one, FakeModelServer(slow_player) as two:
        config = write(
            tmp_path / "deployments.yaml",
            f"""
name: spread
players: [2]
seeds: ["1,2,3,4"]
scaffolds: [watson]
models:
  - model: hosted_vllm/served
    concurrency: 4
    deployments:
      - {{api_base: "{one.base_url}", max_parallel_requests: 1}}
      - {{api_base: "{two.base_url}", max_parallel_requests: 1}}
""",
        )
        assert main(["run", "--config", str(config), "--out", str(tmp_path), "--no-progress"]) == 0
        assert len(one.exchanges) > 20 and len(two.exchanges) > 20
        assert one.max_in_flight == 1 and two.max_in_flight == 1
    manifest = json.loads(next((tmp_path / "spread").glob("*/manifest.json")).read_text())
    assert [d["api_base"] for d in manifest["sessions"][0]["deployments"][0]] == [one.base_url, two.base_url]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("models = [{model = 'local/smart', temprature = 0.5}]", "models[0].temprature: unknown key"),
        (
            "models = [{model = 'local/smart', concurrency = 0}]",
            "models[0].concurrency: must be above 0, not 0",
        ),
        (
            "models = [{model = 'local/smart'}]\nplayers = [2, 6]",
            "players: player counts must be 2-5",
        ),
        (
            "models = [{model = 'local/smart'}]\nscaffolds = ['holmes']",
            "scaffolds: unknown scaffold",
        ),
        (
            "models = [{model = 'local/smart'}]\nseeds = ['nosuchset']",
            "seeds: --seeds 'nosuchset' is not a seed",
        ),
        ("models = []", "nothing to play: give models and scaffolds, teams, or crossplay"),
        ("models = [{model = 'local/smart'}]\nseeds = [5]", "seeds[0]: must be text (in quotes), not 5"),
        ("models = [{model = 'local/smart'}]\nrepeats = 0", "repeats: must be 1 or more, not 0"),
        ("models = [{model = 'local/smart'}]\nplayers = []", "players: needs at least 1 entry"),
        (
            "teams = [{seats = ['local/smart:holmes', 'local/smart']}]",
            "teams[0].seats[0]: --seat 'local/smart:holmes'",
        ),
        ("models = [{model = 'nosuchprovider/x'}]", "unknown provider 'nosuchprovider'"),
        ("models = [{model = 'openai/gpt-4.1'}]", "OPENAI_API_KEY"),
    ],
)
def test_invalid_sweeps_are_refused_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, named: str
) -> None:
    base = {"name": "'bad'", "players": "[2]", "seeds": "['standard']", "scaffolds": "['watson']"}
    lines = [
        f"{k} = {v}" for k, v in base.items() if f"\n{k} =" not in f"\n{text}" and not text.startswith(k)
    ]
    config = write(tmp_path / "bad.toml", "\n".join(lines) + "\n" + text + "\n")
    assert main(["run", "--config", str(config), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


TEAM = "{seats = ['local/smart:watson', 'local/cautious:watson']}"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (
            "scaffolds = ['watson', 'watson']\nmodels = [{model = 'local/smart'}]",
            "scaffolds[1] (watson) for local/smart is the same run as scaffolds[0] (watson) for local/smart; "
            "remove one of them",
        ),
        (
            f"teams = [{TEAM}, {TEAM}]",
            "teams[1] (local/smart:watson, local/cautious:watson) is the same run as teams[0] (local/smart:watson, "
            "local/cautious:watson); remove one of them",
        ),
        (
            f"teams = [{TEAM}]\ncrossplay = [{{one = 'local/smart', rest = 'local/cautious', players = [2, 3]}}]",
            "crossplay[0] at 2 players (local/smart:watson, local/cautious:watson) is the same run as teams[0] "
            "(local/smart:watson, local/cautious:watson); remove one of them",
        ),
        (
            "scaffolds = ['watson']\nmodels = [{model = 'local/smart'}, {model = 'local/cautious'}, "
            "{model = 'local/smart'}]",
            "models[0] and models[2] are both 'local/smart'; list each model once",
        ),
        (
            "scaffolds = ['watson']\nmodels = [{model = 'local/smart'}]\nplayers = [2, 3, 2]",
            "players: 2 is listed twice; list each player count once",
        ),
    ],
    ids=["scaffold twice", "team twice", "crossplay also in teams", "model twice", "player count twice"],
)
def test_two_entries_of_one_run_are_refused_before_the_sweep_folder_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, named: str
) -> None:
    """Two entries that are the same run would play into one run folder at once: the sweep refused itself as a run
    "being written by" its own process, after writing sweep.json, and the folder could not be used again."""
    players = "" if "\nplayers =" in f"\n{text}" else "players = [2]\n"
    config = write(tmp_path / "twice.toml", f"name = 'twice'\n{players}seeds = ['1']\n{text}\n")
    out = tmp_path / "out"
    assert main(["run", "--config", str(config), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"error: {config}: {named}\n" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_sweep_folder_recorded_with_two_entries_of_one_run_says_how_to_go_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder an older version left with only a sweep.json of such a sweep: resume names the duplicate and the way
    on, and changes nothing."""
    folder = tmp_path / "out" / "twice"
    folder.mkdir(parents=True)
    config = {"name": "twice", "players": [2], "seeds": ["1"], "scaffolds": ["watson", "watson"]}
    config |= {"models": [{"model": "local/smart"}]}
    record = json.dumps({"name": "twice", "digest": "59de5dd910", "config": config})
    (folder / "sweep.json").write_text(record)
    assert main(["resume", str(folder), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "sweep.json: scaffolds[1] (watson) for local/smart is the same run as scaffolds[0]" in err
    assert "this folder's sweep cannot be played (move the folder aside, then run the corrected sweep file)" in err
    assert len(err.strip().splitlines()) == 1
    assert [p.name for p in folder.iterdir()] == ["sweep.json"] and (folder / "sweep.json").read_text() == record


def test_config_and_single_run_options_do_not_mix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = ROOT / "sweeps" / "offline-demo.toml"
    assert main(["run", "--config", str(config), "--model", "local/smart", "--out", str(tmp_path)]) == 2
    assert "drop --model" in capsys.readouterr().err


def test_an_interrupted_sweep_resumes_once_the_cause_is_fixed(tmp_path: Path) -> None:
    healthy = threading.Event()

    def sometimes_down(request: dict[str, Any]) -> Reply:
        return slow_player(request) if healthy.is_set() else Reply(status=401)

    with FakeModelServer(slow_player) as a, FakeModelServer(sometimes_down) as b:
        # two games a model: one model's games finished, the other's to resume
        config = sweep_file(tmp_path, a, b, seeds="1,2")
        out = tmp_path / "out"
        assert main(["run", "--config", str(config), "--out", str(out), "--no-progress"]) == 1
        alpha_logs = {p: p.read_bytes() for p in out.glob("grid/openai-alpha*/games/*.jsonl")}
        assert len(alpha_logs) == 2
        healthy.set()
        assert main(["resume", str(out / "grid"), "--no-progress"]) == 0
        assert {p: p.read_bytes() for p in alpha_logs} == alpha_logs  # finished games untouched
    beta = [read_game_log(p) for p in out.glob("grid/openai-beta*/games/*.jsonl")]
    assert len(beta) == 2 and all(log.complete for log in beta)
    assert all(log.results[0].status == "interrupted" for log in beta)


def test_a_different_sweep_on_the_same_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = ROOT / "sweeps" / "offline-demo.toml"
    # the demo cut to 2 players and one seed (4 games): enough to leave a sweep in the folder
    smaller = demo.read_text().replace("players = [2, 3]", "players = [2]")
    smaller = smaller.replace('seeds = ["1,2,3"]', 'seeds = ["1"]')
    assert smaller.count("players = [2]\n") == 1 and smaller.count('seeds = ["1"]\n') == 1
    other = write(tmp_path / "offline-demo.toml", smaller)
    out = tmp_path / "out"
    assert main(["run", "--config", str(other), "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    for dry_run in ([], ["--dry-run"]):  # refused alike when only sized
        assert main(["run", "--config", str(demo), "--out", str(out), "--no-progress", *dry_run]) == 2
        assert "holds a different sweep" in capsys.readouterr().err


def test_a_deployment_without_its_providers_key_is_refused_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # an Anthropic-style server of the user's own still takes ANTHROPIC_API_KEY, unless api_key_env names another
    grid = write(tmp_path / "grid.toml", 'name = "grid"\nplayers = [2]\nseeds = ["1"]\nscaffolds = ["watson"]\n'
                 '[[models]]\nmodel = "anthropic/claude-sonnet-4-5"\n'
                 'deployments = [{ api_base = "http://127.0.0.1:9" }]\n')  # fmt: skip
    out = tmp_path / "out"
    assert main(["run", "--config", str(grid), "--out", str(out), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "a deployment of anthropic/claude-sonnet-4-5 needs " in err
    assert "ANTHROPIC_API_KEY" in err and "api_key_env" in err and not out.exists()
