"""One reader of run folders: a damaged manifest, status, sweep record or game log gets the same one-line verdict
from every command (run again, resume, runs, report, export, values, judge), exit code 2 where the command cannot
go on, and nothing is written by a command that refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli.main import main

RUN = ["run", "--players", "2", "--seeds", "1,2", "--run-name", "r", "--no-progress"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("finished")
    assert main([*RUN, "--out", str(out)]) == 0
    return out / "r"


@pytest.fixture
def run(finished: Path, tmp_path: Path) -> Path:
    shutil.copytree(finished, tmp_path / "out" / "r")
    return tmp_path / "out" / "r"


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


def listing(folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["runs", str(folder)]) == 0
    return capsys.readouterr().out.replace("\n", "")


def done_column(out: str) -> str:
    row = out.split("│ r ")[1]  # run │ players │ status │ done │ ...
    return row.split("│")[3].strip()


def status_column(out: str) -> str:
    return out.split("│ r ")[1].split("│")[2].strip()


DAMAGED_MANIFESTS = [
    (b"", "manifest.json is empty"),
    (b"{ not json", "manifest.json is not valid JSON"),
    (b'{"run_id": "x"}', "manifest.json is not a run manifest (created_at: Field required)"),
]


@pytest.mark.parametrize(("content", "named"), DAMAGED_MANIFESTS)
def test_a_damaged_manifest_is_one_line_from_every_command(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, named: str
) -> None:
    (run / "manifest.json").write_bytes(content)
    capsys.readouterr()
    commands = [
        ["resume", str(run), "--no-progress"],
        [*RUN, "--out", str(run.parent)],  # the same command again
        ["values", str(run), "--rollouts", "1"],
        ["report", str(run), "--out", str(tmp_path / "report")],
        ["export", str(run), "--format", "hanabilogs", "--out", str(tmp_path / "export")],
    ]
    for argv in commands:
        assert main(argv) == 2, argv
        line = one_line(capsys)
        assert named in line and str(run / "manifest.json") in line, (argv, line)
    assert (run / "manifest.json").read_bytes() == content  # nothing written
    assert not (run / "values").exists() and not (tmp_path / "export").exists()
    out = listing(run.parent, capsys)
    assert "unreadable" in out and named in out


def test_a_damaged_status_or_sweep_record_is_one_line(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (run / "status.json").write_text("[1, 2]")
    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 2
    assert "status.json is not a run status" in one_line(capsys)
    assert "status.json is not a run status" in listing(run.parent, capsys)

    sweep = tmp_path / "grid.toml"
    sweep.write_text(
        'name = "grid"\nplayers = [2]\nseeds = ["1"]\nscaffolds = ["watson"]\n[[models]]\nmodel = "local/smart"\n'
    )
    out = tmp_path / "sweeps"
    assert main(["run", "--config", str(sweep), "--out", str(out), "--no-progress"]) == 0
    (out / "grid" / "sweep.json").write_text('{"name": "grid"')
    capsys.readouterr()
    for argv in (
        ["resume", str(out / "grid"), "--no-progress"],
        ["run", "--config", str(sweep), "--out", str(out), "--no-progress"],
    ):
        assert main(argv) == 2
        assert "sweep.json is not valid JSON" in one_line(capsys)


def test_a_log_copied_over_another_games_file_is_named_by_every_reader(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = run / "games"
    shutil.copy(games / "2p-custom-seed1.jsonl", games / "2p-custom-seed2.jsonl")
    manifest = (run / "manifest.json").read_bytes()
    named = "the header is game 2p-custom-seed1, not 2p-custom-seed2"

    out = listing(run.parent, capsys)
    assert f"corrupt log {games / '2p-custom-seed2.jsonl'} line 1: {named}" in out
    assert done_column(out) == "1"  # the copy is not a second finished game
    assert status_column(out) == "damaged"  # not the "complete" its last session recorded

    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 0
    captured = capsys.readouterr()
    assert named in captured.err and "1 complete games" in captured.out

    assert main(["export", str(run), "--format", "hanabilogs", "--out", str(tmp_path / "export")]) == 0
    assert named in capsys.readouterr().err
    rows = (tmp_path / "export" / "hanabilogs.jsonl").read_text().splitlines()
    assert {json.loads(row)["seed"] for row in rows} == {1}

    assert main(["resume", str(run), "--no-progress"]) == 2  # refused, never taken as the finished seed 2
    line = one_line(capsys)
    assert named in line and "move it aside" in line
    assert (run / "manifest.json").read_bytes() == manifest  # a refused resume records no session


def test_an_invalid_utf8_byte_inside_a_line_is_damage_for_runs_as_for_the_others(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = run / "games" / "2p-custom-seed2.jsonl"
    lines = log.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b'"reason":"', b'"reason":"\xff', 1)
    log.write_bytes(b"\n".join(lines))
    out = listing(run.parent, capsys)
    assert f"corrupt log {log} line 4: not a valid log record" in out
    assert done_column(out) == "1" and status_column(out) == "damaged"
    assert main(["resume", str(run), "--no-progress"]) == 2
    assert f"{log}:4: not a valid log record" in one_line(capsys)
    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 0
    assert f"skipped {log}: line 4: not a valid log record" in capsys.readouterr().err


def test_a_refused_resume_appends_no_session(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = run / "games" / "2p-custom-seed2.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[5])
    record["digest_after"] = "0" * 16
    log.write_bytes(b"".join(lines[:5]) + json.dumps(record).encode() + b"\n")  # no result: to be continued
    manifest = (run / "manifest.json").read_bytes()
    assert main(["resume", str(run), "--no-progress"]) == 2
    assert "does not match the logged state digest" in one_line(capsys)
    assert (run / "manifest.json").read_bytes() == manifest
