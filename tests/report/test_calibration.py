"""The report's calibration table: the model's ratings and choices against the engine values of `hanabi-eval values`,
recomputed here independently from the values files and the game logs."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import spearmanr

from harness.cli.main import main
from harness.schema.log_file import read_game_log

LAST_TURNS = 5


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A sherlock run (two games, the second left unfinished) whose complete game is valued on its last turns, one
    valued decision made unrated; and a watson run without values."""
    out = tmp_path_factory.mktemp("runs")
    argv = ["--out", str(out), "--no-progress"]
    assert main(["run", "--scaffold", "sherlock", "--seeds", "1,2", "--run-name", "sh", *argv]) == 0
    assert main(["run", "--seeds", "3", "--run-name", "wa", *argv]) == 0
    sherlock = out / "sh"
    first, second = sorted((sherlock / "games").glob("*.jsonl"))
    second.write_bytes(b"".join(second.read_bytes().splitlines(keepends=True)[:-1]))  # no result line
    log = read_game_log(first)
    from_turn = log.moves[-LAST_TURNS].turn
    assert main(["values", str(sherlock), "--rollouts", "2", "--from-turn", str(from_turn)]) == 0
    # the reply of one valued decision gave no ratings: it is skipped for the rank correlation, and counted
    lines = first.read_text().splitlines(keepends=True)
    for number, line in enumerate(lines):
        record = json.loads(line)
        if record.get("type") == "move" and record["turn"] == from_turn + 1:
            record["ratings"] = [None] * len(record["ratings"])
            lines[number] = json.dumps(record) + "\n"
    first.write_text("".join(lines))
    return {"sherlock": sherlock, "watson": out / "wa", "valued": first}


def expected(game_log: Path, values_file: Path) -> dict[str, Any]:
    """The calibration figures of one game, from its log and its values file alone."""
    moves = {m.turn: m for m in read_game_log(game_log).moves}
    rhos, regrets, best, unrated, tied = [], [], [], 0, 0
    for line in values_file.read_text().splitlines():
        valued = json.loads(line)
        record = moves[valued["turn"]]
        value = {m["logged_index"]: m["value"] for m in valued["moves"]}
        worth = [value[i] for i in range(len(record.legal_moves))]
        chosen = worth[record.move_index]
        regrets.append(max(worth) - chosen)
        best.append(chosen == max(worth))
        rated = [(r, v) for r, v in zip(record.ratings, worth, strict=True) if r is not None]
        if len(rated) < 2:
            unrated += 1
        elif len({r for r, _ in rated}) < 2 or len({v for _, v in rated}) < 2:
            tied += 1
        else:
            rhos.append(spearmanr([r for r, _ in rated], [v for _, v in rated]).statistic)
    return {"rho": rhos, "regret": regrets, "best": best, "unrated": unrated, "tied": tied}


def mean_se(values: list[float]) -> tuple[float, float]:
    data = np.asarray(values, dtype=float)
    return float(data.mean()), float(data.std(ddof=1) / math.sqrt(data.size))


def test_the_report_compares_ratings_and_choices_with_the_engine_values(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["report", str(runs["sherlock"]), str(runs["watson"]), "--out", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
    want = expected(runs["valued"], runs["sherlock"] / "values" / runs["valued"].name)
    assert want["unrated"] == 1 and len(want["rho"]) >= 2

    table = {row["group"]: row for row in json.loads((out / "calibration.json").read_text())}
    row = table["local/smart · sherlock"]
    assert (row["complete_games"], row["valued_games"], row["not_complete_games"]) == (1, 1, 1)
    assert row["decisions"] == LAST_TURNS
    assert (row["correlated"], row["skipped_unrated"], row["skipped_tied"]) == (
        len(want["rho"]),
        want["unrated"],
        want["tied"],
    )
    rho, rho_se = mean_se(want["rho"])
    regret, regret_se = mean_se(want["regret"])
    share, share_se = mean_se([float(b) for b in want["best"]])
    assert row["spearman_mean"] == pytest.approx(rho) and row["spearman_se"] == pytest.approx(rho_se)
    assert row["regret_mean"] == pytest.approx(regret) and row["regret_se"] == pytest.approx(regret_se)
    assert row["best_share_mean"] == pytest.approx(share) and row["best_share_se"] == pytest.approx(share_se)
    for name in ("spearman", "regret", "best_share"):
        assert row[f"{name}_ci_low"] <= row[f"{name}_mean"] <= row[f"{name}_ci_high"]
    assert row["rollouts"] == "2" and row["base_seeds"] == "0"
    # the watson group has no values: no figures, never zeros
    empty = table["local/smart · watson"]
    assert empty["valued_games"] == 0 and empty["regret_mean"] is None and empty["spearman_mean"] is None

    report = (out / "report.md").read_text()
    section = report.split("## Calibration against engine values")[1].split("\n## ")[0]
    cells = (
        f"| local/smart · sherlock | 2 | 1 of 1 | {LAST_TURNS} ("
        in section,
        f"| {rho:.2f} ± {rho_se:.2f} [" in section,
        f"| {len(want['rho'])} / 1 / {want['tied']} |" in section,
        f"| {regret:.2f} ± {regret_se:.2f} [" in section,
        f"| {100 * share:.1f}% ± {100 * share_se:.1f}% [" in section,
    )
    assert all(cells), cells
    assert "1 interrupted or unfinished game of these groups has no values" in section
    assert "- local/smart · watson, 2 players: no move values (1 complete game)" in section
    html = (out / "report.html").read_text()
    assert 'id="calibration"' in html and f"{regret:.2f} ± {regret_se:.2f}" in html
    per_decision = json.loads((out / "calibration_decisions.json").read_text())
    assert [d["regret"] for d in per_decision] == pytest.approx(want["regret"])


def test_a_report_without_values_says_so_in_one_line(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main(["report", str(runs["watson"]), "--out", str(out)]) == 0
    section = (out / "report.md").read_text().split("## Calibration against engine values")[1].split("\n## ")[0]
    assert section.strip() == (
        "No game in these runs has readable move values, so there is no calibration to show (`hanabi-eval values "
        "RUN` computes them for a run's complete games)."
    )
    assert not (out / "calibration.csv").exists() and not (out / "calibration_decisions.csv").exists()


def test_a_damaged_values_file_is_named_and_left_out(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "sh"
    shutil.copytree(runs["sherlock"], run)
    path = run / "values" / runs["valued"].name
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([lines[0], "{not json\n", *lines[2:]]))
    out = tmp_path / "report"
    assert main(["report", str(run), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"warning: skipped {path}: move values, line 2: not a valid values record" in err
    report = (out / "report.md").read_text()
    assert "No game in these runs has readable move values" in report
    assert "Logs skipped" in report
