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
from tests.helpers import refused


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


def test_a_report_is_never_written_inside_a_run_directory_and_the_refusal_names_that_run(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    (run,) = runs["solo"].iterdir()
    err = refused(["report", str(run), "--out", str(run / "report")], capsys)
    assert f"--out {run / 'report'} is inside the run directory {run};" in err and not (run / "report").exists()
    err = refused(["report", str(runs["solo"]), "--out", str(run / "report")], capsys)  # given the folder of runs
    assert f"is inside the run directory {run};" in err and not (run / "report").exists()
    err = refused(["report", str(run), "--out", str(runs["solo"])], capsys)
    assert f"--out {runs['solo']} holds the run directory {run};" in err


def test_a_report_may_sit_beside_the_runs_in_a_folder_of_runs(runs: dict[str, Path]) -> None:
    """A report holds no manifest.json, so a report of a folder of runs written into that folder is never read as a
    run: the next report of the folder reads the same runs."""
    out = runs["solo"] / "report"
    assert main(["report", str(runs["solo"]), "--out", str(out)]) == 0
    again = runs["root"] / "again"
    assert main(["report", str(runs["solo"]), "--out", str(again)]) == 0
    assert (again / "games.csv").read_text() == (out / "games.csv").read_text()
    shutil.rmtree(out)
    shutil.rmtree(again)


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


def report_table(folder: Path, name: str) -> list[dict[str, object]]:
    return json.loads((folder / f"{name}.json").read_text())


def test_two_runs_of_one_folder_name_stay_two_runs_with_their_own_spending_and_links(tmp_path: Path) -> None:
    """The same command into two --out folders (another server, another commit) makes two runs of one name: the
    report keeps them apart in every table, names each by the folders that tell them apart, and links each to its
    own viewer pages."""
    for folder, model in (("A", "local/smart"), ("B", "local/cautious")):
        argv = ["--model", model, "--seeds", "1,2", "--run-name", "same", "--no-progress"]
        assert main(["run", *argv, "--out", str(tmp_path / folder)]) == 0
    runs = [str(tmp_path / "A"), str(tmp_path / "B")]
    reports = tmp_path / "reports"
    assert main(["view", *runs, "--out", str(reports / "viewer")]) == 0
    assert main(["report", *runs, "--by", "run", "--out", str(reports / "all")]) == 0
    main_rows = [row for row in report_table(reports / "all", "main_table") if row["convention"] == "fireworks"]
    assert [(row["row"], row["games"]) for row in main_rows] == [("A/same", 2), ("B/same", 2)]
    spent = {(row["level"], row["name"]): row["games"] for row in report_table(reports / "all", "spending")}
    assert spent == {
        ("run", "A/same"): 2,
        ("run", "B/same"): 2,
        ("group", "A/same"): 2,
        ("group", "B/same"): 2,
        ("total", "all runs"): 4,
    }
    html = (reports / "all" / "report.html").read_text()
    assert html.count('<a href="../viewer/runs/same/index.html">A/same</a>') == 1
    assert html.count('<a href="../viewer/runs/same-2/index.html">B/same</a>') == 1
    assert main(["report", *runs, "--out", str(tmp_path / "by-model")]) == 0  # grouped by model: still two runs
    spent_runs = [row for row in report_table(tmp_path / "by-model", "spending") if row["level"] == "run"]
    assert [(row["name"], row["games"]) for row in spent_runs] == [("A/same", 2), ("B/same", 2)]


def test_one_deal_is_paired_whichever_seed_set_named_its_seed(tmp_path: Path) -> None:
    """Seeds 4 and 6 deal the same decks listed alone or as part of `watson-5p-targets`: the two groups are
    compared on those two deals."""
    common = ["--players", "2", "--no-progress", "--out", str(tmp_path / "runs")]
    assert main(["run", "--model", "local/smart", "--seeds", "4,6", *common]) == 0
    assert main(["run", "--model", "local/cautious", "--seeds", "watson-5p-targets", *common]) == 0
    assert main(["report", str(tmp_path / "runs"), "--out", str(tmp_path / "report")]) == 0
    (paired,) = report_table(tmp_path / "report", "paired")
    assert (paired["a"], paired["b"]) == ("local/cautious · watson", "local/smart · watson")
    assert (paired["fireworks_pairs"], paired["unpaired_a"], paired["unpaired_b"]) == (2, 3, 0)
    games = report_table(tmp_path / "report", "games")
    deals = {(game["seed_set"], game["seed"]): game["deal"] for game in games}
    assert deals[("custom", 4)] == deals[("watson-5p-targets", 4)] != deals[("watson-5p-targets", 8)]
    assert "share no complete deal" not in (tmp_path / "report" / "report.md").read_text()
