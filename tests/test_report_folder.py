"""`report --out` treats its folder as `export` does: a folder of other files is never written into, an earlier
report is replaced only with --force and then whole (none of its files stays beside the new ones), and a report is
never written inside a run directory; runs that hold the same game (a copied run) are refused. Each refusal is one
line with exit code 2, before anything is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli.main import main


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    common = ["--seeds", "1", "--no-progress"]
    assert main(["run", "--model", "local/smart", *common, "--out", str(root / "solo")]) == 0
    team = ["--seat", "local/smart:watson", "--seat", "local/cautious:watson"]
    assert main(["run", *team, *common, "--out", str(root / "team")]) == 0
    return {"solo": root / "solo", "team": root / "team", "root": root}


def files_in(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_a_folder_of_other_files_is_never_written_into(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "thesis.tex").write_text("my thesis")
    err = refused(["report", str(runs["solo"]), "--out", str(tmp_path), "--force"], capsys)
    assert f"--out {tmp_path} is a folder that holds other files, not a report; choose a new or empty folder" in err
    assert files_in(tmp_path) == {"thesis.tex"}


def test_an_earlier_report_is_replaced_only_with_force_and_then_whole(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["report", str(runs["solo"]), str(runs["team"]), "--out", str(out)]) == 0
    assert {"crossplay.csv", "crossplay.json", "figures/crossplay.png"} <= files_in(out)
    err = refused(["report", str(runs["solo"]), "--out", str(out)], capsys)
    assert f"--out {out} already holds a report; pass --force to replace it" in err
    assert "figures/crossplay.png" in files_in(out)  # untouched by the refusal
    assert main(["report", str(runs["solo"]), "--out", str(out), "--force"]) == 0
    manifest = json.loads((out / "report_manifest.json").read_text())
    assert files_in(out) == {*manifest["files"], "report_manifest.json"}
    assert not any("crossplay" in name for name in files_in(out))
    assert manifest["runs"] == [str(runs["solo"])] and [p.name for p in tmp_path.iterdir()] == ["report"]


def test_force_never_deletes_a_file_the_earlier_report_did_not_write(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["report", str(runs["solo"]), "--out", str(out)]) == 0
    (out / "figures" / "my-notes.md").write_text("what I saw")
    err = refused(["report", str(runs["solo"]), "--out", str(out), "--force"], capsys)
    assert f"--out {out} holds figures/my-notes.md, which the report there did not write, and --force would " in err
    assert (out / "figures" / "my-notes.md").read_text() == "what I saw"
    (out / "figures" / "my-notes.md").unlink()
    assert main(["report", str(runs["solo"]), "--out", str(out), "--force"]) == 0


def test_a_report_written_before_reports_had_a_manifest_is_still_a_report(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("report.html", "report.md", "summary.csv"):
        (tmp_path / name).write_text("an earlier report")
    assert "already holds a report" in refused(["report", str(runs["solo"]), "--out", str(tmp_path)], capsys)
    assert main(["report", str(runs["solo"]), "--out", str(tmp_path), "--force"]) == 0
    assert "an earlier report" not in (tmp_path / "summary.csv").read_text()


def test_a_report_is_never_written_inside_a_run_directory(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    (run,) = runs["solo"].iterdir()
    err = refused(["report", str(run), "--out", str(run / "report")], capsys)
    assert "overlaps the run directory" in err and not (run / "report").exists()


@pytest.mark.parametrize("layout", ["a backup inside the folder given", "the copy given beside the original"])
def test_a_copied_run_is_refused_not_counted_twice(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    """A run copied into a second folder holds the same games: a report over both would count each game twice
    (twice the tokens, standard errors too tight). It is refused as `export` refuses it, naming both folders."""
    (run,) = runs["solo"].iterdir()
    copy = tmp_path / "twice" / "backup" / run.name
    shutil.copytree(run, copy)
    if layout == "a backup inside the folder given":
        shutil.copytree(run, tmp_path / "twice" / "a" / run.name)
        given, first = [tmp_path / "twice"], tmp_path / "twice" / "a" / run.name
    else:
        given, first = [run, copy], run
    out = tmp_path / "report"
    err = refused(["report", *map(str, given), "--out", str(out)], capsys)
    run_id = json.loads((run / "manifest.json").read_text())["run_id"]
    assert f"of run {run_id} is in both {first} and {copy} (a copied run?); pass each run once" in err
    assert not out.exists()
    assert main(["report", str(copy), "--out", str(out)]) == 0  # the copy alone is a run like any other


@pytest.mark.parametrize("command", [["report"], ["export", "--format", "hanabilogs"], ["view"]])
def test_the_current_folder_is_refused_as_out_not_moved_away(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    """An output is written whole and renamed into place: the current folder cannot be renamed (it used to fail as a
    disk fault, exit 1)."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    err = refused([command[0], str(runs["solo"]), *command[1:], "--out", "."], capsys)
    assert "--out . is the current folder or holds it" in err and "give a new folder" in err
    assert list(here.iterdir()) == []


def test_planned_games_without_a_log_are_counted_in_the_reports_first_lines(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """A run stopped before some of its games started: they are in no table, and the report says how many."""
    both = tmp_path / "both"
    shutil.copytree(runs["solo"], both / "solo")
    shutil.copytree(runs["team"], both / "team")
    (log,) = (both / "team").glob("*/games/*.jsonl")
    log.unlink()  # as a stop before this game began leaves it
    assert main(["report", str(both), "--out", str(tmp_path / "report")]) == 0
    first_lines = (tmp_path / "report" / "report.md").read_text(encoding="utf-8").split("\n## ")[0]
    assert "1 planned game has no log yet (not started: `hanabi-eval resume` plays it), in no figure." in first_lines
