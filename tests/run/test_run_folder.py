"""One reader of run folders: a damaged manifest, status, sweep record or game log gets the same one-line verdict
from every command (run again, resume, runs, report, export, values, judge), exit code 2 where the command cannot
go on, and nothing is written by a command that refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli.main import main
from tests.helpers import one_line

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


def listing(folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["runs", str(folder)]) == 0
    return capsys.readouterr().out.replace("\n", "")


def done_column(out: str) -> str:
    row = out.split("│ r ")[1]  # run │ players │ status │ done │ ...
    return row.split("│")[3].strip()


def status_column(out: str) -> str:
    return out.split("│ r ")[1].split("│")[2].strip()


def report_and_export_leave_it_out(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], named: str, seeds: set[int]
) -> None:
    """`report` and `export` name the damaged log on stderr and score and export only the games of `seeds`."""
    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 0
    captured = capsys.readouterr()
    assert named in captured.err and f"{len(seeds)} complete games" in captured.out
    assert main(["export", str(run), "--format", "hanabilogs", "--out", str(tmp_path / "export")]) == 0
    assert named in capsys.readouterr().err
    rows = (tmp_path / "export" / "hanabilogs.jsonl").read_text().splitlines()
    assert {json.loads(row)["seed"] for row in rows} == seeds


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
        line = one_line(capsys.readouterr().err)
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
    assert "status.json is not a run status" in one_line(capsys.readouterr().err)
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
        assert "sweep.json is not valid JSON" in one_line(capsys.readouterr().err)


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

    report_and_export_leave_it_out(run, tmp_path, capsys, named, seeds={1})

    assert main(["resume", str(run), "--no-progress"]) == 2  # refused, never taken as the finished seed 2
    line = one_line(capsys.readouterr().err)
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
    assert f"{log}:4: not a valid log record" in one_line(capsys.readouterr().err)
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
    assert "does not match the logged state digest" in one_line(capsys.readouterr().err)
    assert (run / "manifest.json").read_bytes() == manifest


OUT_OF_SEQUENCE = [
    ("repeated", "11", "expected the move of turn 10 by seat 1, found turn 9 again (a move line repeated)"),
    ("deleted", "10", "expected the move of turn 9 by seat 0, found turn 10 (a move line before it is missing)"),
]


@pytest.mark.parametrize(("damage", "line", "named"), OUT_OF_SEQUENCE, ids=[d for d, _, _ in OUT_OF_SEQUENCE])
def test_a_move_line_repeated_or_deleted_is_named_and_left_out_by_every_reader(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str, line: str, named: str
) -> None:
    log = run / "games" / "2p-custom-seed2.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)  # line 10 is the move of turn 9 (seat 0)
    if damage == "repeated":
        lines.insert(10, lines[9])  # as `sed -i '10p'`
    else:
        del lines[9]  # as `sed -i '10d'`
    log.write_bytes(b"".join(lines))
    manifest = (run / "manifest.json").read_bytes()

    out = listing(run.parent, capsys)
    assert f"corrupt log {log} line {line}: move line out of sequence: {named}" in out
    assert done_column(out) == "1" and status_column(out) == "damaged"  # not the "complete" last recorded
    assert "move it aside" in out and "hanabi-eval resume" in out

    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 0
    captured = capsys.readouterr()
    assert f"skipped {log}: line {line}: move line out of sequence" in captured.err
    assert "1 complete games" in captured.out and "1 unreadable log skipped" in captured.out
    games = json.loads((tmp_path / "report" / "games.json").read_text())
    assert [row["game_id"] for row in games] == ["2p-custom-seed1"]  # never scored as a game of one move more or less

    assert main(["export", str(run), "--format", "hanabilogs", "--out", str(tmp_path / "logs")]) == 0
    assert f"{log}:{line}: move line out of sequence" in capsys.readouterr().err
    rows = [json.loads(row) for row in (tmp_path / "logs" / "hanabilogs.jsonl").read_text().splitlines()]
    assert {row["seed"] for row in rows} == {1}
    turns = [row["turn"] for row in rows]
    assert turns == sorted(set(turns))  # no move exported twice

    assert main(["export", str(run), "--format", "hanablive", "--out", str(tmp_path / "replays")]) == 0
    assert f"{log}:{line}: move line out of sequence" in capsys.readouterr().err
    assert "seed2" not in " ".join(p.name for p in (tmp_path / "replays").glob("*.json"))

    assert main(["resume", str(run), "--no-progress"]) == 2
    refusal = one_line(capsys.readouterr().err)
    assert f"{log}:{line}: move line out of sequence: {named}" in refusal
    assert "restore the log from a backup, or move it aside" in refusal and "hanabi-eval resume" in refusal
    assert (run / "manifest.json").read_bytes() == manifest  # a refused resume records no session

    log.rename(tmp_path / log.name)  # the fix it names: move it aside, and resume plays that game again
    assert main(["resume", str(run), "--no-progress"]) == 0
    assert status_column(listing(run.parent, capsys)) == "complete"


def test_a_log_that_cannot_be_read_at_all_is_named_and_left_out_by_every_reader(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = run / "games" / "2p-custom-seed2.jsonl"
    log.unlink()
    log.mkdir()  # what the reader finds where the log should be: not a file it can read
    named = "unreadable (Is a directory)"

    out = listing(run.parent, capsys)
    assert f"corrupt log {log} {named}" in out
    assert done_column(out) == "1" and status_column(out) == "damaged"
    report_and_export_leave_it_out(run, tmp_path, capsys, named, seeds={1})
    assert main(["view", str(run), "--out", str(tmp_path / "site")]) == 0
    assert f"skipped {log}: {named}" in capsys.readouterr().err


def test_a_finished_games_move_that_does_not_replay_is_named_and_left_out_by_every_reader(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An edited move whose turn and seat are still in sequence: the replay the run store runs on every log names
    it, so runs, report and export agree with resume and the viewer."""
    log = run / "games" / "2p-custom-seed2.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[5])
    record["digest_after"] = "0" * 16
    lines[5] = json.dumps(record).encode() + b"\n"
    log.write_bytes(b"".join(lines))
    named = f"{log}:6: the move does not replay (turn 5: the rebuilt state does not match the logged state digest)"

    out = listing(run.parent, capsys)
    assert f"corrupt log {log} line 6: the move does not replay" in out and done_column(out) == "1"
    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 0
    assert "1 complete games" in capsys.readouterr().out
    assert main(["export", str(run), "--format", "hanablive", "--out", str(tmp_path / "replays")]) == 0
    assert named in capsys.readouterr().err
    assert main(["resume", str(run), "--no-progress"]) == 2
    assert named in one_line(capsys.readouterr().err)


def test_a_log_of_another_run_moved_in_is_named_and_left_out_by_every_reader(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    assert main([*RUN[:4], "1,3", "--run-name", "o", "--no-progress", "--out", str(other)]) == 0
    games = run / "games"
    shutil.copy(other / "o" / "games" / "2p-custom-seed3.jsonl", games)  # a game this run does not play
    named = "the header is of run o-"

    out = listing(run.parent, capsys)
    assert named in out and done_column(out) == "2"  # not a third finished game
    report_and_export_leave_it_out(run, tmp_path, capsys, named, seeds={1, 2})

    # the same game of another run copied over this run's log: resume refuses it rather than go on with it
    shutil.copy(other / "o" / "games" / "2p-custom-seed1.jsonl", games)
    (games / "2p-custom-seed3.jsonl").unlink()
    assert main(["resume", str(run), "--no-progress"]) == 2
    line = one_line(capsys.readouterr().err)
    assert named in line and "move it back to the run it came from" in line
