"""The direct OpenAI-compatible client (`--client openai`): refused before anything runs where it cannot serve a seat,
and recorded in the manifest and every game header, since it is part of what was sent. How it handles replies and
provider errors is tested with LiteLLM's, by the `client` fixture (test_strict_replies, test_misbehaving_models, ...).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from tests.fakeserver import FakeModelServer, careful_player


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--model", "openai/x"], "needs --api-base"),
        (["--model", "local/smart"], "not local/smart"),
        (["--model", "anthropic/claude-sonnet-4-5", "--api-base", "http://127.0.0.1:9/v1"], "not anthropic/"),
        (["--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1", "--thinking-budget", "512"], "thinking"),
        (["--seat", "openai/x", "--seat", "local/smart", "--api-base", "http://127.0.0.1:9/v1"], "local/smart"),
    ],
)
def test_a_seat_the_client_cannot_serve_is_refused_in_one_line_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], named: str
) -> None:
    out = tmp_path / "runs"
    assert main(["run", *args, "--client", "openai", "--seeds", "1", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_the_client_is_recorded_and_a_resume_uses_it(tmp_path: Path) -> None:
    with FakeModelServer(careful_player) as server:
        argv = ["run", "--model", "hosted_vllm/m", "--api-base", server.base_url, "--client", "openai"]
        assert main([*argv, "--seeds", "1", "--out", str(tmp_path), "--no-progress"]) == 0
        sent_model = {e.request["model"] for e in server.exchanges}
        (run_dir,) = tmp_path.iterdir()
        (log,) = (run_dir / "games").glob("*.jsonl")
        lines = log.read_bytes().splitlines(keepends=True)
        log.write_bytes(b"".join(lines[:6]))  # cut after 5 moves, as a crash would leave it
        asked = len(server.exchanges)
        assert main(["resume", str(run_dir), "--no-progress"]) == 0
        assert len(server.exchanges) > asked  # the rest of the game was asked of the same server
    assert sent_model == {"m"}  # the model string without its route, as LiteLLM sends it
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["sent_params"][0]["client"] == "openai"
    assert manifest["config"]["seats"][0]["client"] == "openai"
    header = read_game_log(log).header
    assert header is not None and header.seats[0].client == "openai"
    assert {p["client"] for p in header.sent_params} == {"openai"}
    assert read_game_log(log).result is not None


def test_a_litellm_seat_is_written_as_before(tmp_path: Path) -> None:
    assert main(["run", "--model", "local/smart", "--seeds", "1", "--out", str(tmp_path), "--no-progress"]) == 0
    (run_dir,) = tmp_path.iterdir()
    manifest = (run_dir / "manifest.json").read_text()
    assert '"client"' not in manifest  # records of LiteLLM runs are unchanged by the choice of client
