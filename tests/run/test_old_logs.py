"""Logs of every schema-1 version read as today's: the first commit's (other state digests) and 65ba470's replay
move by move, in the viewer, the report and a replay, and a wrong digest in them is still refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.engine.replay import ReplayMismatch, replay_to_end
from harness.schema.log_file import read_game_log
from tests.viewer_runs import FIRST_COMMIT, FIRST_RELEASE, first_release_run

GAMES = ("2p-custom-seed1", "3p-custom-seed1")


@pytest.fixture(scope="module", params=[FIRST_COMMIT, FIRST_RELEASE], ids=["first-commit", "first-release"])
def old_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return first_release_run(tmp_path_factory.mktemp("old") / "run", request.param)


def test_every_move_of_an_old_log_replays_to_its_logged_result(old_run: Path) -> None:
    for game in GAMES:
        contents = read_game_log(old_run / "games" / f"{game}.jsonl")
        assert contents.header is not None and contents.result is not None
        final = replay_to_end(contents.header.players, contents.header.deck, contents.moves)
        assert final.is_over and final.fireworks_sum == contents.result.fireworks_score


def test_a_wrong_digest_in_an_old_log_is_still_refused(old_run: Path) -> None:
    contents = read_game_log(old_run / "games" / "2p-custom-seed1.jsonl")
    assert contents.header is not None
    moves = list(contents.moves)
    moves[4] = moves[4].model_copy(update={"digest_after": "0" * 16})
    with pytest.raises(ReplayMismatch, match="turn 5: the rebuilt state does not match the logged state digest"):
        replay_to_end(contents.header.players, contents.header.deck, moves)


def test_the_viewer_shows_every_move_of_an_old_log(old_run: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert main(["view", str(old_run), "--out", str(site)]) == 0
    for game in GAMES:
        page = (site / "runs" / old_run.name / "games" / f"{game}.html").read_text()
        moves = len(read_game_log(old_run / "games" / f"{game}.jsonl").moves)
        assert "does not match" not in page
        assert page.count('<section class="step" ') == moves
        assert f'data-label="turn {moves} of {moves}"' in page


def test_the_report_judges_every_move_of_an_old_run(old_run: Path, tmp_path: Path) -> None:
    assert main(["report", str(old_run), "--out", str(tmp_path / "report")]) == 0
    games = json.loads((tmp_path / "report" / "games.json").read_text())
    assert sorted(row["game_id"] for row in games) == list(GAMES)
    assert all(row["status"] == "complete" for row in games)
    (quality,) = json.loads((tmp_path / "report" / "quality.json").read_text())  # play quality replays each log
    moves = sum(len(read_game_log(old_run / "games" / f"{game}.jsonl").moves) for game in GAMES)
    assert quality["games"] == len(GAMES) and quality["moves"] == moves
    assert "did not replay" not in (tmp_path / "report" / "report.md").read_text()


def test_an_old_run_resumes_and_an_edit_of_its_config_is_still_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each version's manifest verifies against the digest it wrote (the first commit's was over its whole config as
    written): an old run with a game left plays it, twice in a row, and an edited one is named as edited."""
    for source in (FIRST_COMMIT, FIRST_RELEASE):
        run = first_release_run(tmp_path / source.name / "run", source)
        (run / "games" / "3p-custom-seed1.jsonl").unlink()
        assert main(["resume", str(run), "--no-progress"]) == 0
        assert main(["resume", str(run), "--no-progress"]) == 0  # the manifest it wrote back still verifies
        assert read_game_log(run / "games" / "3p-custom-seed1.jsonl").complete
        edited = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
        edited["config"]["players"] = [2]
        (run / "manifest.json").write_text(json.dumps(edited), encoding="utf-8")
        capsys.readouterr()
        assert main(["resume", str(run), "--no-progress"]) == 2
        assert "does not match its own config digest; it was edited by hand" in capsys.readouterr().err
