"""The report a paper can be written from: the wide main table, pairing per player count, spending, reliability
over all games, cross-play, Best-of-K and judge scores, each checked against an independent computation from the
raw JSONL logs.

Runs (real, small): local/smart with Watson and Sherlock at 2, 3 and 4 players; local/smart with best-of-5-watson and
with Mycroft; a mixed team local/smart + local/cautious; a scripted model behind the local HTTP server that answers
well for a few moves, then never again, so both of its games stop (one at its very first move); and two priced model
names served by the scripted server, so that the score-against-cost plot has something to compare. Written
directly with the harness's own records: copies of the Watson run's 2-player games whose header seats carry k=3
(local/smart plays the same whatever k says; the report keeps them apart as a setting of their own), and a repeat
(`repeat` = 1) of one Sherlock deal. Judge files are written through a small pydantic model of the judge's schema.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.cli.main import main
from harness.schema.judge_records import JudgeRecord
from harness.schema.records import GameHeader
from tests.fakeserver import FakeModelServer, Reply, careful_player
from tests.report.test_figures import html_page, html_table, md_table, percentile_interval, rows_by

GOOD_REPLIES = 4  # the scripted model's good answers before it stops making sense
PAID_MODELS = ("gpt-4o-mini", "gpt-4.1-mini")


def deal_scores(games: list[dict[str, Any]], field: str) -> list[float]:
    """One score per deal: the mean over a deal's repeats (the same game id apart from its -playN suffix)."""
    deals: dict[tuple[str, str], list[int]] = {}
    for game in games:
        header = game["header"]
        deal = header["game_id"].removesuffix(f"-play{header['repeat']}") if header["repeat"] else header["game_id"]
        deals.setdefault((header["run_id"], deal), []).append(game["result"][field])
    return [float(np.mean(scores)) for scores in deals.values()]


def _mean(values: Any, axis: int = -1) -> Any:
    return np.mean(values, axis=axis)


def run(*argv: str) -> int:
    return main(["run", *argv, "--no-progress"])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("paper")
    runs = root / "runs"
    out = ["--out", str(runs)]
    with pytest.MonkeyPatch.context() as env:
        env.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        assert run("--scaffold", "watson", "--players", "2", "3", "4", "--seeds", "1,2", *out) == 0
        assert run("--scaffold", "sherlock", "--players", "2", "3", "4", "--seeds", "1,2", *out) == 0
        assert run("--scaffold", "best-of-5-watson", "--players", "2", "--seeds", "1", *out) == 0
        assert run("--scaffold", "mycroft", "--players", "2", "--seeds", "1", *out) == 0
        assert (
            run("--seat", "local/smart:watson", "--seat", "local/cautious:watson", "--seeds", "1,2", *out)
            == 0
        )
        assert (
            run("--model", "local/cautious", "--scaffold", "watson", "--players", "2", "--seeds", "1", *out)
            == 0
        )

        answered = []

        def stops_making_sense(request: dict[str, Any]) -> Reply:
            answered.append(1)
            if len(answered) <= GOOD_REPLIES:
                return careful_player(request)
            return Reply(content="Let me think about this very carefully... I am not sure.")

        with FakeModelServer(stops_making_sense, model_name="broken") as server:
            code = run(
                "--model", "openai/broken", "--api-base", server.base_url, "--scaffold", "watson",
                "--players", "2", "--seeds", "1,2", "--concurrency", "1", "--max-retries", "1", *out,
            )  # fmt: skip
        assert code == 1
        for model in PAID_MODELS:  # priced by LiteLLM's bundled price table; the replies come from the script
            with FakeModelServer(careful_player, model_name=model) as server:
                base = ["--model", f"openai/{model}", "--api-base", server.base_url, "--scaffold", "watson"]
                assert run(*base, "--players", "2", "--seeds", "1", *out) == 0
    _seat_k_copies(runs)
    _repeat_one_deal(runs)
    _judge(runs)
    assert main(["report", str(runs), "--out", str(root / "default")]) == 0
    assert main(["report", str(runs), "--out", str(root / "scaffold"), "--by", "scaffold"]) == 0
    return {"runs": runs, "default": root / "default", "scaffold": root / "scaffold"}


def _run_dir(runs: Path, prefix: str) -> Path:
    (found,) = [p for p in runs.iterdir() if p.name.startswith(prefix)]
    return found


def _seat_k_copies(runs: Path) -> None:
    source = _run_dir(runs, "local-smart-watson-")
    target = runs / "seat-k3-local-smart-watson"
    (target / "games").mkdir(parents=True)
    manifest = json.loads((source / "manifest.json").read_text())  # a run of its own, not a copy: its own run id
    (target / "manifest.json").write_text(json.dumps({**manifest, "run_id": "local-smart-watson-k3"}))
    for path in sorted((source / "games").glob("2p-*.jsonl")):
        lines = path.read_text().splitlines()
        header = GameHeader.model_validate_json(lines[0])
        seats = [s.model_copy(update={"k": 3}) for s in header.seats]
        copied = header.model_copy(update={"seats": seats, "run_id": "local-smart-watson-k3"})
        (target / "games" / path.name).write_text("\n".join([copied.model_dump_json(), *lines[1:]]) + "\n")


def _repeat_one_deal(runs: Path) -> None:
    games = _run_dir(runs, "local-smart-sherlock-") / "games"
    lines = (games / "2p-custom-seed1.jsonl").read_text().splitlines()
    header = GameHeader.model_validate_json(lines[0])
    repeat = header.model_copy(update={"repeat": 1, "game_id": "2p-custom-seed1-play1"})
    (games / "2p-custom-seed1-play1.jsonl").write_text("\n".join([repeat.model_dump_json(), *lines[1:]]) + "\n")


def _judge(runs: Path) -> None:
    run_dir = _run_dir(runs, "local-smart-mycroft-")
    (game,) = (run_dir / "games").glob("*.jsonl")
    moves = [json.loads(line) for line in game.read_text().splitlines() if '"type":"move"' in line]
    (run_dir / "judge").mkdir()
    records = [
        JudgeRecord(
            game_id=game.stem,
            turn=m["turn"],
            seat=m["seat"],
            judge_model="openai/judge",
            overall_rating=round((m["turn"] % 7) / 7, 3),
            deduction_accuracy=round((m["turn"] % 5) / 5, 3),
            history_integration=0.5,
            state_tracking_quality=round((m["turn"] % 3) / 3, 3),
            detailed_feedback="tracked",
            key_issues=[],
            strengths=["kept notes"],
        )
        for m in moves
        if m["turn"] % 2 == 1
    ]
    text = "\n".join(r.model_dump_json() for r in records) + "\n"
    (run_dir / "judge" / f"{game.stem}.jsonl").write_text(text)


def read_logs(runs: Path) -> list[dict[str, Any]]:
    games = []
    for path in sorted(runs.glob("*/games/*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        header = lines[0]
        results = [line for line in lines if line["type"] == "result"]
        result = lines[-1] if lines[-1]["type"] == "result" else None
        moves = [line for line in lines if line["type"] == "move"]
        calls = [c for m in moves for c in m["calls"]] + [c for r in results for c in r["failed_calls"]]
        models = sorted({s["model"] for s in header["seats"]})  # a team's name: not one game's seat order
        # a seat's own sample count is part of its setting: k=3 and k=1 are never pooled as repeats of one deal
        scaffolds = sorted({s["scaffold"] + (f",k={s['k']}" if s.get("k") else "") for s in header["seats"]})
        games.append(
            {
                "header": header,
                "moves": moves,
                "result": result,
                "complete": result is not None and result["status"] == "complete",
                "attempts": [a for c in calls for a in c["attempts"]],
                "calls": calls,
                "failed_moves": sum(r["status"] == "interrupted" for r in results),
                "label": f"{' + '.join(models)} · {' + '.join(scaffolds)}",
                "scaffold": " + ".join(scaffolds),
                "deal": (header["seed_set"], header["seed"], header["players"]),
                "run": path.parent.parent.name,
            }
        )
    return games


def grouped(games: list[dict[str, Any]], key: str = "label") -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for game in games:
        groups[game[key]].append(game)
    return groups


def mean_se(scores: list[float], games: int | None = None) -> str:
    """A cell of the main table: mean ± s.e. over `scores` (one per deal), with n the number of games."""
    n = len(scores) if games is None else games
    if not scores:
        return "—"
    if len(scores) == 1:
        return f"{scores[0]:.2f} (n={n})"
    se = np.std(scores, ddof=1) / np.sqrt(len(scores))
    return f"{np.mean(scores):.2f} ± {se:.2f} (n={n})"


@pytest.mark.parametrize(
    ("heading", "field"),
    [("fireworks at the end", "fireworks_score"), ("0 after three strikes", "engine_score")],
)
def test_the_main_result_is_one_wide_table_per_convention(built, heading: str, field: str) -> None:
    markdown = (built["default"] / "report.md").read_text()
    table = rows_by(md_table(markdown, f"Main result: {heading}"), "model · scaffold")
    groups = grouped(read_logs(built["runs"]))
    assert set(table) == set(groups)
    for label, games in groups.items():
        done = [g for g in games if g["complete"]]
        row = table[label]
        for players in (2, 3, 4):
            played = [g for g in done if g["header"]["players"] == players]
            expected = mean_se(deal_scores(played, field), len(played))  # a repeated deal is one sample
            assert row[f"{players} players"] == expected, (label, players)
        scores = deal_scores(done, field)
        assert row["mean"] == (f"{np.mean(scores):.2f}" if scores else "—")
        assert row["95% CI"] == percentile_interval(scores, _mean)
        assert row["games"] == str(len(done))
        assert row["not complete"] == str(len(games) - len(done))
    broken = table["openai/broken · watson"]
    assert broken["mean"] == "—" and broken["games"] == "0" and broken["not complete"] == "2"
    page, _ = html_page(built["default"])
    section = "main-fireworks" if field == "fireworks_score" else "main-engine"
    assert html_table(page, section) == md_table(markdown, f"Main result: {heading}")
    with (built["default"] / "main_table.csv").open(newline="") as handle:
        rows = [
            r
            for r in csv.DictReader(handle)
            if r["convention"] == ("fireworks" if "fire" in field else "engine")
        ]
    watson = next(r for r in rows if r["row"] == "local/smart · watson")
    scores = [g["result"][field] for g in groups["local/smart · watson"] if g["header"]["players"] == 3]
    assert float(watson["mean_3p"]) == pytest.approx(np.mean(scores)) and watson["games_3p"] == "2"


def test_the_total_cost_is_stated_and_an_unpriced_model_is_never_zero(built) -> None:
    markdown = (built["default"] / "report.md").read_text()
    games = read_logs(built["runs"])
    priced = [g for g in games if any(a["cost_usd"] is not None for a in g["attempts"])]
    unpriced = [g for g in games if g not in priced]
    assert {g["label"] for g in unpriced} == {"openai/broken · watson"}
    cost = sum(a["cost_usd"] for g in priced for a in g["attempts"] if a["cost_usd"] is not None)
    tokens = sum(
        a["usage"]["prompt_tokens"] + a["usage"]["completion_tokens"] for g in games for a in g["attempts"]
    )
    lead = markdown.split("\n## ", 1)[0]
    assert (
        f"**Total cost: ${cost:.4f}** over {len(priced)} priced games ({len(unpriced)} games unpriced, not included);"
        f" {tokens:,} tokens"
    ) in lead
    table = md_table(markdown, "Spending")
    rows = {(r["level"], r["name"]): r for r in table}
    broken = rows[("group", "openai/broken · watson")]
    assert broken["cost"] == broken["cost / game"] == broken["cost / point"] == "unpriced"
    assert broken["unpriced games"] == "2" and int(broken["total tokens"].replace(",", "")) > 0
    total = rows[("total", "all runs")]
    assert total["games"] == str(len(games)) and total["total tokens"] == f"{tokens:,}"
    assert total["cost / game"] == f"${cost / len(priced):.4f}"
    for run_name, run_games in grouped(games, "run").items():
        spent = sum(
            a["usage"]["prompt_tokens"] + a["usage"]["completion_tokens"]
            for g in run_games
            for a in g["attempts"]
        )
        assert rows[("run", run_name)]["total tokens"] == f"{spent:,}"
    assert "$0.0000" not in broken.values()
    page, raw = html_page(built["default"])
    assert html_table(page, "spending") == table
    assert (built["default"] / "figures" / "cost.png").stat().st_size > 0
    assert "Not drawn, unpriced: openai/broken · watson." in raw
    paid = [
        r for (level, _), r in rows.items() if level == "group" and r["cost"] not in ("$0.0000", "unpriced")
    ]
    assert len(paid) == len(PAID_MODELS)


def test_reliability_counts_every_game_so_a_model_whose_games_stop_looks_broken(built) -> None:
    markdown = (built["default"] / "report.md").read_text()
    table = rows_by(md_table(markdown, "Reliability over all games"), "group")
    groups = grouped(read_logs(built["runs"]))
    for label, games in groups.items():
        row = table[label]
        attempts = [a for g in games for a in g["attempts"]]
        moves = sum(len(g["moves"]) + g["failed_moves"] for g in games)
        retries = len(attempts) - sum(len(g["calls"]) for g in games)
        assert row["games"] == str(len(games))
        stopped = sum(bool(g["result"]) and g["result"]["status"] == "interrupted" for g in games)
        assert row["interrupted"] == str(stopped)
        assert row["moves attempted"] == str(moves) and row["attempts"] == str(len(attempts))
        assert row["retries"] == str(retries) and row["retries / move"] == f"{retries / moves:.3f}"
        kinds = [a["error_kind"] for a in attempts if a["error_kind"]]
        for kind in set(kinds):
            assert row[kind] == f"{kinds.count(kind)} · {kinds.count(kind) / moves:.3f}/move"
    broken = table["openai/broken · watson"]
    assert broken["complete"] == "0" and broken["interrupted"] == "2" and broken["share interrupted"] == "100.0%"
    # every stopped move shows its kinds: unparseable replies, and the same reply sent again (which ends re-asks)
    assert int(broken["invalid replies"]) >= 4 and int(broken["unparseable"].split(" · ")[0]) >= 2
    # the game-flow table counts complete games, and beside them how many stopped and their invalid replies
    flow = rows_by(md_table(markdown, "Game flow and reliability"), "group")
    assert flow["openai/broken · watson"]["games"] == "0"
    assert flow["openai/broken · watson"]["games interrupted"] == "2 of 2"
    assert flow["openai/broken · watson"]["invalid replies, all games"] == (
        f"{broken['invalid replies']} · {broken['invalid / move']}/move"
    )
    page, _ = html_page(built["default"])
    assert html_table(page, "reliability") == md_table(markdown, "Reliability over all games")


def test_paired_comparisons_per_player_count_count_a_repeated_deal_once(built) -> None:
    markdown = (built["scaffold"] / "report.md").read_text()
    table = rows_by(md_table(markdown, "Paired comparisons per player count"), "A", "B", "players")
    groups = grouped(read_logs(built["runs"]), "scaffold")
    for (a, b, players), row in table.items():
        by_deal: dict[str, dict[tuple[str, int, int], list[int]]] = {}
        for name in (a, b):
            by_deal[name] = defaultdict(list)
            for game in groups[name]:
                if game["complete"] and game["header"]["players"] == int(players):
                    by_deal[name][game["deal"]].append(game["result"]["fireworks_score"])
        deals = sorted(set(by_deal[a]) & set(by_deal[b]))
        differences = [np.mean(by_deal[a][d]) - np.mean(by_deal[b][d]) for d in deals]
        assert row["pairs"] == str(len(deals)), (a, b, players)
        assert (
            row["games A / B"]
            == f"{sum(len(by_deal[a][d]) for d in deals)} / {sum(len(by_deal[b][d]) for d in deals)}"
        )
        assert row["difference A − B"] == f"{np.mean(differences):+.2f}"
        assert row["95% CI"] == percentile_interval(differences, _mean)
    repeated = table[("sherlock", "watson", "2")]
    assert repeated["pairs"] == "2" and repeated["games A / B"].startswith("3 / ")  # seed 1 played twice
    assert repeated["repeated"] == "2"  # that deal, and both deals of watson, played by several models
    pooled = rows_by(md_table(markdown, "Paired comparisons"), "A", "B")
    assert pooled[("sherlock", "watson")]["pairs"] == "6"
    page, _ = html_page(built["scaffold"])
    assert html_table(page, "paired-players") == md_table(markdown, "Paired comparisons per player count")


def test_cross_play_is_a_matrix_of_one_seat_against_the_rest(built) -> None:
    markdown = (built["default"] / "report.md").read_text()
    table = rows_by(md_table(markdown, "Cross-play"), "one seat \\ other seats")
    games = [g for g in read_logs(built["runs"]) if g["complete"]]
    smart, cautious = "local/smart:watson", "local/cautious:watson"

    def scores(seats: set[str], size: int | None = None) -> list[int]:
        return [
            g["result"]["fireworks_score"]
            for g in games
            if {f"{s['model']}:{s['scaffold']}" for s in g["header"]["seats"]} == seats
            and (size is None or g["header"]["players"] == size)
            and all(s.get("k") is None for s in g["header"]["seats"])
        ]

    mixed = scores({smart, cautious})
    assert len(mixed) == 2
    assert table[smart][cautious] == table[cautious][smart] == mean_se(mixed)
    # the diagonal: self-play at the player counts of the cross-play games (2 here), a seat with its own k apart
    assert table[smart][smart] == mean_se(scores({smart}, 2)) and len(scores({smart}, 2)) == 2
    assert table[cautious][cautious] == mean_se(scores({cautious}, 2))
    assert set(table) == {smart, cautious}
    per_count = rows_by(
        md_table(markdown, "Cross-play per player count"), "one seat", "other seats", "players"
    )
    assert per_count[(smart, cautious, "2")]["mean ± s.e."] == mean_se(mixed)
    assert set(per_count) == {
        (smart, cautious, "2"),
        (cautious, smart, "2"),
        (smart, smart, "2"),
        (cautious, cautious, "2"),
    }
    page, _ = html_page(built["default"])
    assert html_table(page, "crossplay") == md_table(markdown, "Cross-play")
    assert html_table(page, "crossplay-players") == md_table(markdown, "Cross-play per player count")


def test_the_best_of_k_curve_takes_k_from_the_seat_or_the_scaffold(built) -> None:
    markdown = (built["default"] / "report.md").read_text()
    table = rows_by(md_table(markdown, "Best-of-K"), "model · prompt", "k")
    games = [
        g
        for g in read_logs(built["runs"])
        if g["complete"] and g["header"]["seats"][0]["model"] == "local/smart"
    ]
    expected: dict[int, list[int]] = defaultdict(list)
    for game in games:
        seat = game["header"]["seats"][0]
        if len({s["model"] for s in game["header"]["seats"]}) > 1:
            continue
        k = seat.get("k") or {"watson": 1, "best-of-5-watson": 5}.get(seat["scaffold"])
        if k is not None:
            expected[k].append(game["result"]["fireworks_score"])
    assert sorted(int(k) for _, k in table) == [1, 3, 5]
    for k, scores in expected.items():
        row = table[("local/smart · watson", str(k))]
        assert row["games"] == str(len(scores)) and row["mean"] == f"{np.mean(scores):.2f}"
        assert row["95% CI"] == percentile_interval(scores, _mean)
    assert (built["default"] / "figures" / "best_of_k.png").is_file()


def test_judge_scores_sit_beside_the_measured_tracking_by_turn(built) -> None:
    markdown = (built["default"] / "report.md").read_text()
    run_dir = next(p for p in built["runs"].iterdir() if p.name.startswith("local-smart-mycroft-"))
    judged = [
        json.loads(line) for f in (run_dir / "judge").glob("*.jsonl") for line in f.read_text().splitlines()
    ]
    row = md_table(markdown, "State tracking: judge scores")[0]
    assert row["group"] == "local/smart · mycroft" and row["judged turns"] == str(len(judged))
    for column, field in (("overall", "overall_rating"), ("deduction accuracy", "deduction_accuracy")):
        assert row[column] == f"{np.mean([j[field] for j in judged]):.3f}"
    published = [
        r for r in md_table(markdown, "State tracking: judge scores") if r["group"].startswith("published")
    ]
    assert {r["overall"] for r in published} == {"0.252", "0.459"} and all(
        "Table 4" in r["judge"] for r in published
    )
    by_turn = rows_by(md_table(markdown, "State tracking by turn"), "group", "turns")
    page, _ = html_page(built["default"])
    assert html_table(page, "tracking-turns") == md_table(markdown, "State tracking by turn")
    assert html_table(page, "judge") == md_table(markdown, "State tracking: judge scores")
    bins = json.loads((built["default"] / "tracking_by_turn.json").read_text())
    for entry in (b for b in bins if b["group"] == "local/smart · mycroft"):
        inside = [
            j["overall_rating"] for j in judged if entry["first_turn"] <= j["turn"] <= entry["last_turn"]
        ]
        assert entry["judged_turns"] == len(inside)
        assert entry["judge_overall"] == (pytest.approx(np.mean(inside)) if inside else None)
        shown = by_turn[("local/smart · mycroft", f"{entry['first_turn']}-{entry['last_turn']}")]
        assert shown["judge overall"] == (f"{np.mean(inside):.3f}" if inside else "—")
        assert shown["judged turns"] == str(len(inside))


def test_no_table_holds_nan_and_sources_name_their_table_or_figure(built) -> None:
    for folder in (built["default"], built["scaffold"]):
        for path in [folder / "report.md", *folder.glob("*.csv")]:
            text = path.read_text()
            for cell in (c.strip() for line in text.splitlines() for c in line.replace(",", "|").split("|")):
                assert cell.lower() not in ("nan", "inf", "-inf", "none"), path
        for path in folder.glob("*.json"):
            assert "NaN" not in path.read_text() and "Infinity" not in path.read_text(), path
    references = md_table((built["default"] / "report.md").read_text(), "Published references")
    assert all(
        (
            "Table" in r["source"]
            or "Figure" in r["source"]
            or "README" in r["source"]
            or "not recorded" in r["source"]
            or r["source"].startswith("Not published")
        )
        for r in references
    )
    assert not any("baselines.md" in r["source"] for r in references)
    assert len(references) < 40


def test_a_corrupted_log_is_named_and_skipped_and_the_rest_is_reported(
    built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(_run_dir(built["runs"], "local-smart-watson-"), runs / "watson")
    bad = runs / "watson" / "games" / "3p-custom-seed2.jsonl"
    lines = bad.read_text().splitlines()
    lines[3] = lines[3][: len(lines[3]) // 2]  # one damaged line in the middle of a finished log
    bad.write_text("\n".join(lines) + "\n")
    judge = runs / "watson" / "judge"
    judge.mkdir()
    (judge / "2p-custom-seed1.jsonl").write_text('{"game_id": "2p-custom-seed1", "turn": "soon"}\n')
    capsys.readouterr()
    assert main(["report", str(runs), "--out", str(tmp_path / "report")]) == 0
    err = capsys.readouterr().err
    assert f"warning: skipped {bad}: line 4: not a valid log record" in err
    assert f"warning: skipped {judge / '2p-custom-seed1.jsonl'}: line 1: not a judge record" in err
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "Based on 5 complete games." in markdown and "**Warning: 2 logs could not be read" in markdown
    skipped = md_table(markdown, "Logs skipped")
    assert [Path(r["file"]).name for r in skipped] == ["3p-custom-seed2.jsonl", "2p-custom-seed1.jsonl"]
    assert json.loads((tmp_path / "report" / "runs.json").read_text())[0]["games_skipped"] == 1


def test_a_run_whose_every_log_is_corrupted_is_one_line_with_exit_code_2(
    built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "mycroft"
    shutil.copytree(_run_dir(built["runs"], "local-smart-mycroft-"), run_dir)
    (log,) = (run_dir / "games").glob("*.jsonl")
    log.write_text("{not json\n" + log.read_text())
    capsys.readouterr()
    assert main(["report", str(run_dir), "--out", str(tmp_path / "report")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{log}: line 1: not a valid log record" in err
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize(
    ("cost", "points", "shown"), [(0.49, 0, "—"), (0.49, 7, "$0.0700"), (None, 0, "unpriced"), (None, 7, "unpriced")]
)
def test_cost_per_point_is_unpriced_only_without_a_price_and_a_dash_without_a_point(
    cost: float | None, points: int, shown: str
) -> None:
    """A run stopped at its budget before any game was complete spent a known sum over no point: "—", not unpriced."""
    from harness.report.costs import Spend
    from harness.report.render import per_point

    spend = Spend(
        name="all runs", games=2, complete=0 if not points else 1, prompt_tokens=1, completion_tokens=1,
        total_tokens=2, priced_games=2 if cost is not None else 0, unpriced_games=0 if cost is not None else 2,
        cost_usd=cost, cost_per_game=None if cost is None else cost / 2, points=points,
        cost_per_point=cost / points if cost is not None and points else None, mean_score=None,
    )  # fmt: skip
    assert per_point(spend) == shown
