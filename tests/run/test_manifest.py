"""The run manifest as users meet it: a run made by an older version of the harness still resumes, lists and exports,
and its manifest.json is written back unchanged but for the new session; a resumed run keeps the session options it
recorded unless the command line gives others."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from tests.helpers import only_run

RUN = ["run", "--model", "local/smart", "--players", "2", "--seeds", "1,2", "--no-progress"]


def played(tmp_path: Path, *extra: str) -> tuple[Path, Path]:
    """A finished run of RUN under `tmp_path`: its --out folder and the run's folder."""
    out = tmp_path / "out"
    assert main([*RUN, "--out", str(out), *extra]) == 0
    return out, only_run(out)


def manifest(run: Path) -> dict[str, Any]:
    return json.loads((run / "manifest.json").read_text(encoding="utf-8"))


def test_a_run_made_by_an_older_version_resumes_and_its_manifest_gains_only_a_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, run = played(tmp_path)
    old = manifest(run)
    # what versions before sent_params, repeats and the recorded concurrency wrote, and a key from a later one
    del old["sent_params"]
    del old["config"]["repeats"]
    for session in old["sessions"]:
        del session["concurrency"]
    old["from_a_later_version"] = {"kept": [1, 2.5, None]}
    old_text = json.dumps(old, indent=2) + "\n"
    (run / "manifest.json").write_text(old_text, encoding="utf-8")
    (run / "games" / "2p-custom-seed2.jsonl").unlink()  # a game left to play

    assert main(["resume", str(run), "--no-progress"]) == 0

    new = manifest(run)
    assert len(new["sessions"]) == len(old["sessions"]) + 1
    assert new["sessions"][-1]["concurrency"] == 8  # none recorded: the default
    del new["sessions"][-1]
    assert json.dumps(new, indent=2) + "\n" == old_text  # every other byte as the older version wrote it
    capsys.readouterr()
    assert main(["runs", str(out)]) == 0
    listing = capsys.readouterr().out
    assert "complete" in listing and "unreadable" not in listing
    assert main(["export", str(run), "--format", "hanabilogs", "--out", str(tmp_path / "export")]) == 0
    rows = (tmp_path / "export" / "hanabilogs.jsonl").read_text(encoding="utf-8").splitlines()
    assert {json.loads(row)["run_id"] for row in rows} == {old["run_id"]}


def test_a_manifest_that_is_not_one_is_named_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, run = played(tmp_path)
    broken = manifest(run)
    broken["git"] = "not an object"
    (run / "manifest.json").write_text(json.dumps(broken), encoding="utf-8")
    capsys.readouterr()
    assert main(["export", str(run), "--format", "hanabilogs", "--out", str(tmp_path / "export")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "manifest.json is not a run manifest (git:" in error
    assert main(["runs", str(out)]) == 0
    assert "unreadable" in capsys.readouterr().out


def test_resume_keeps_the_recorded_session_options_unless_given(tmp_path: Path) -> None:
    _, run = played(tmp_path, "--concurrency", "3", "--max-retries", "5")
    assert main(["resume", str(run), "--no-progress"]) == 0
    assert main(["resume", str(run), "--no-progress", "--concurrency", "2", "--provider-retries", "1"]) == 0
    sessions = manifest(run)["sessions"]
    assert [s["concurrency"] for s in sessions] == [3, 3, 2]
    assert [s["reply_retries"] for s in sessions] == [
        5,
        5,
        5,
    ]  # the run's own setting, recorded in its config
    assert [s["retry"]["provider_retries"] for s in sessions] == [6, 6, 1]
    assert manifest(run)["config"]["retry"]["provider_retries"] == 6  # a session's setting is not the run's


@pytest.mark.parametrize(
    ("where", "value", "named"),
    [
        (("config", "reply_retries"), -1, "config.reply_retries"),
        (("config", "retry", "provider_retries"), -2, "config.retry.provider_retries"),
        (("sessions", -1, "concurrency"), 0, "sessions.0.concurrency"),
    ],
)
def test_a_hand_edited_limit_the_command_line_would_refuse_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: tuple[Any, ...], value: int, named: str
) -> None:
    _, run = played(tmp_path)
    edited = manifest(run)
    parent = edited
    for key in where[:-1]:
        parent = parent[key]
    parent[where[-1]] = value
    (run / "manifest.json").write_text(json.dumps(edited), encoding="utf-8")
    (run / "games" / "2p-custom-seed2.jsonl").unlink()  # a game left to play
    capsys.readouterr()
    assert main(["resume", str(run), "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "manifest.json is not a run manifest" in error and named in error
    assert not (run / "games" / "2p-custom-seed2.jsonl").exists()  # nothing played


def test_a_log_written_by_a_newer_version_is_refused_with_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, run = played(tmp_path)
    log = run / "games" / "2p-custom-seed1.jsonl"
    header, *rest = log.read_text(encoding="utf-8").splitlines(keepends=True)
    log.write_text(header.replace('"schema_version":1', '"schema_version":99') + "".join(rest[:5]), encoding="utf-8")
    capsys.readouterr()
    assert main(["resume", str(run), "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "schema 99, written by a newer hanabi-eval" in error
    assert "read it with the hanabi-eval that wrote it" in error


def test_a_run_whose_manifest_was_lost_goes_on_under_the_run_id_its_logs_carry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, run = played(tmp_path)
    run_id = manifest(run)["run_id"]
    log = run / "games" / "2p-custom-seed2.jsonl"
    log.write_text("".join(log.read_text(encoding="utf-8").splitlines(keepends=True)[:6]), encoding="utf-8")
    (run / "manifest.json").unlink()
    assert main([*RUN, "--out", str(out)]) == 0  # the same command plays what is left
    assert manifest(run)["run_id"] == run_id
    capsys.readouterr()
    assert main(["runs", str(out)]) == 0
    listing = capsys.readouterr().out
    assert "complete" in listing and "corrupt" not in listing and "damaged" not in listing
