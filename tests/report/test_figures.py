"""`hanabi-eval report` on real runs: every figure a user reads equals an independent computation from the logs.

Three runs on the same seeds: local/smart with Watson, local/cautious with Sherlock, and a scripted careless player
served over HTTP with Mycroft (blind plays, repeated clues, ratings that disagree with its choices, unreadable
replies, one game interrupted). The expected figures are computed here from the raw JSONL lines with plain
Python, numpy and scipy, and the engine for replays; the report's own helpers are never called.
"""

from __future__ import annotations

import csv
import json
import re
import threading
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from harness.cli.main import main
from harness.engine.game import Game
from harness.schema.cards import COPIES, RANKS
from harness.schema.moves import Move, MoveKind
from harness.view.builder import build_view
from tests.fakeserver import FakeModelServer, Reply, legal_moves_in

SEED = 2025  # the bootstrap seed the report states
_TURN = re.compile(r"You are Player P\d+, Turn (\d+)")
_PLAYERS = re.compile(r"Hanabi with (\d+) players")


class CarelessPlayer:
    """Plays legal moves in Mycroft's JSON format, badly and deterministically: a blind play every fifth turn,
    clues chosen by turn number, ratings that often disagree with the chosen move or cannot be read, deductions
    that never change ("anything is possible"), an unreadable first reply now and then, and two unreadable replies
    in a row the first time any game reaches turn 9 (which interrupts that game)."""

    def __init__(self) -> None:
        self.failures = 0
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply:
        prompt = next(m["content"] for m in request["messages"] if m["role"] == "user")
        turn = int(_TURN.search(prompt).group(1))  # the paper's Mycroft prompt: "You are Player P1, Turn 7"
        players = int(_PLAYERS.search(prompt).group(1))
        with self.lock:
            if turn == 9 and self.failures < 2:
                self.failures += 1
                return Reply(content=f"I am not sure what to do here ({self.failures}).")  # not the same twice
        if turn % 11 == 4 and all(m["role"] != "assistant" for m in request["messages"]):
            return Reply(content="Let me think about the fireworks first.")
        moves = legal_moves_in(request)
        plays = [i for i, d in moves if d.startswith("(Play")]
        discards = [i for i, d in moves if d.startswith("(Discard")]
        hints = [i for i, d in moves if d.startswith("(Reveal")]
        if turn % 5 == 0 or not (discards or hints):
            choice = plays[0]
        elif turn % 5 == 1 and discards:
            choice = discards[turn % len(discards)]
        else:
            choice = hints[turn % len(hints)] if hints else discards[0]
        other = next(i for i, _ in moves if i != choice)
        ratings: dict[int, Any] = {i: 0.1 for i, _ in moves}
        if turn % 4 == 0:
            ratings[choice], ratings[other] = 0.4, 0.9
        elif turn % 4 == 1:
            ratings[choice], ratings[other] = 0.7, 0.7
        elif turn % 4 == 2:
            del ratings[choice]
        if turn % 7 == 3:
            ratings = {i: "good" for i, _ in moves}
        hand = 5 if players < 4 else 4
        anything = {"colors": list("RYGWB"), "ranks": [1, 2, 3, 4, 5]}
        reply = {
            "deductions": {
                f"player_{p}": [{"card": c, **anything} for c in range(hand)] for p in range(players)
            },
            "move_ratings": [{"action": i, "rating": r} for i, r in ratings.items()],
            "reason": f"turn {turn}",
            "action": choice,
        }
        return Reply(content=json.dumps(reply))


# ---- the runs and reports, made once ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("report")
    runs = root / "runs"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        common = ["--players", "2", "3", "--seeds", "1,2,3", "--out", str(runs), "--no-progress"]
        assert main(["run", *common]) == 0
        assert main(["run", "--model", "local/cautious", "--scaffold", "sherlock", *common]) == 0
        # Named after a priced model so that LiteLLM reports a cost from its bundled price table; every reply
        # comes from the scripted server.
        with FakeModelServer(CarelessPlayer(), model_name="gpt-4o-mini") as server:
            code = main(
                [
                    "run",
                    "--model",
                    "openai/gpt-4o-mini",
                    "--api-base",
                    server.base_url,
                    "--scaffold",
                    "mycroft",
                    "--players",
                    "2",
                    "--seeds",
                    "1,2,3",
                    "--out",
                    str(runs),
                    "--concurrency",
                    "1",
                    "--max-retries",
                    "1",
                    "--no-progress",
                ]
            )
        assert code == 1  # one game interrupted
        assert main(["report", str(runs), "--out", str(root / "by-model-scaffold")]) == 0
        assert main(["report", str(runs), "--out", str(root / "by-scaffold"), "--by", "scaffold"]) == 0
    return {"runs": runs, "default": root / "by-model-scaffold", "scaffold": root / "by-scaffold"}


def read_games(runs: Path) -> list[dict[str, Any]]:
    """Every game log as raw JSON lines: header, moves, result (None when there is no result line)."""
    games = []
    for path in sorted(runs.glob("*/games/*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        header = lines[0]
        result = lines[-1] if lines[-1]["type"] == "result" else None
        seat = header["seats"][0]
        games.append(
            {
                "header": header,
                "moves": [line for line in lines if line["type"] == "move"],
                "result": result,
                "complete": result is not None and result["status"] == "complete",
                "model": seat["model"],
                "scaffold": seat["scaffold"],
                "label": f"{seat['model']} · {seat['scaffold']}",
                "deal": (header["seed_set"], header["seed"], header["players"]),
                "run_dir": path.parent.parent,
            }
        )
    return games


def by_group(games: list[dict[str, Any]], key: str = "label") -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for game in games:
        if game["complete"]:
            groups[game[key]].append(game)
    return groups


# ---- reading the report ----------------------------------------------------------------------------------------


def md_table(markdown: str, heading: str) -> list[dict[str, str]]:
    section = markdown.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split(" | ")]
    return [
        dict(zip(header, [cell.strip() for cell in line.strip().strip("|").split(" | ")], strict=True))
        for line in lines[2:]
    ]


class Page(HTMLParser):
    """Collects the tables under each <h2 id>, and every src, href, <script>, <link> and CSS url()."""

    def __init__(self) -> None:
        super().__init__()
        self.section = ""
        self.tables: dict[str, list[list[str]]] = {}
        self.cell: list[str] | None = None
        self.srcs: list[str] = []
        self.hrefs: list[str] = []
        self.scripts: list[dict[str, str | None]] = []
        self.links: list[dict[str, str | None]] = []
        self.images: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if "src" in attributes:
            self.srcs.append(attributes["src"] or "")
        if "href" in attributes:
            self.hrefs.append(attributes["href"] or "")
        if tag == "img":
            self.images.append(attributes.get("src") or "")
        if tag == "script":
            self.scripts.append(attributes)
        if tag == "link":
            self.links.append(attributes)
        if tag == "h2":
            self.section = attributes.get("id") or ""
        if tag == "table" and self.section not in self.tables:
            self.tables[self.section] = []
        if tag == "tr" and self.section in self.tables:
            self.tables[self.section].append([])
        if tag in ("td", "th"):
            self.cell = []
        if tag == "br" and self.cell is not None:
            self.cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.tables[self.section][-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        if tag == "table":
            self.section = f"{self.section}+"  # only a section's first table is collected

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self.cell is not None:
            self.cell.append(data)


def html_page(folder: Path) -> tuple[Page, str]:
    raw = (folder / "report.html").read_text(encoding="utf-8")
    page = Page()
    page.feed(raw)
    return page, raw


def html_table(page: Page, section: str) -> list[dict[str, str]]:
    header, *rows = page.tables[section]
    return [dict(zip(header, row, strict=True)) for row in rows]


def rows_by(table: list[dict[str, str]], *keys: str) -> dict[Any, dict[str, str]]:
    return {tuple(row[k] for k in keys) if len(keys) > 1 else row[keys[0]]: row for row in table}


# ---- independent figures ---------------------------------------------------------------------------------------


def f2(value: float) -> str:
    return f"{value:.2f}"


def pct(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%"


def iqm(values: list[float]) -> float:
    ordered = sorted(values)
    cut = len(ordered) // 4
    kept = ordered[cut : len(ordered) - cut]
    return sum(kept) / len(kept)


def percentile_interval(values: list[float], statistic: Any) -> str:
    if len(values) < 2:
        return "—"
    if len(set(values)) == 1:
        return f"[{f2(values[0])}, {f2(values[0])}]"
    result = stats.bootstrap(
        (np.array(values, dtype=float),),
        statistic,
        n_resamples=9999,
        confidence_level=0.95,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(SEED),
    )
    return f"[{f2(result.confidence_interval.low)}, {f2(result.confidence_interval.high)}]"


def trimmed(values: np.ndarray, axis: int = -1) -> np.ndarray:
    return stats.trim_mean(values, 0.25, axis=axis)


def score_cells(scores: list[int]) -> dict[str, str]:
    n = len(scores)
    mean = sum(scores) / n
    se = (sum((s - mean) ** 2 for s in scores) / (n - 1)) ** 0.5 / n**0.5 if n > 1 else None
    return {
        "games": str(n),
        "mean": f2(mean),
        "s.e.": f2(se) if se is not None else "—",
        "median": f2(float(np.median(scores))),
        "IQM": f2(iqm(scores)),
        "IQM 95% CI": percentile_interval(scores, trimmed),
    }


def test_the_main_convention_is_stated_first_and_interrupted_games_are_listed_apart(built) -> None:
    markdown = (built["default"] / "report.md").read_text()
    lead = markdown.split("\n## ", 1)[0]
    assert "Main score: fireworks at the end of the game" in lead
    games = read_games(built["runs"])
    not_complete = [g for g in games if not g["complete"]]
    assert len(not_complete) == 1
    assert f"Based on {len(games) - 1} complete games. 1 game did not complete" in lead
    (row,) = md_table(markdown, "Games not complete")
    assert row["game"] == not_complete[0]["header"]["game_id"]
    assert row["status"] == "interrupted"
    assert row["moves logged"] == str(len(not_complete[0]["moves"]))
    assert "2 invalid replies in a row" in row["reason"]
    careless = rows_by(md_table(markdown, "Scores: fireworks at the end (main)"), "group")
    assert careless["openai/gpt-4o-mini · mycroft"]["games"] == "2"
    assert careless["openai/gpt-4o-mini · mycroft"]["not complete"] == "1"


def test_scores_under_both_conventions_equal_an_independent_computation(built) -> None:
    markdown = (built["default"] / "report.md").read_text()
    main_table = rows_by(md_table(markdown, "Scores: fireworks at the end (main)"), "group")
    engine_table = rows_by(md_table(markdown, "Scores: 0 after three strikes"), "group")
    summary = {row["group"]: row for row in json.loads((built["default"] / "summary.json").read_text())}
    groups = by_group(read_games(built["runs"]))
    assert set(main_table) == set(groups) == set(summary)
    for label, games in groups.items():
        results = [g["result"] for g in games]
        fireworks = [r["fireworks_score"] for r in results]
        engine = [r["engine_score"] for r in results]
        perfect = sum(s == 25 for s in fireworks)
        struck = sum(r["end_reason"] == "lives_lost" for r in results)
        expected = {
            **score_cells(fireworks),
            "perfect": pct(perfect, len(results)),
            "struck out": pct(struck, len(results)),
        }
        assert {k: main_table[label][k] for k in expected} == expected, label
        assert {k: engine_table[label][k] for k in score_cells(engine)} == score_cells(engine), label
        assert summary[label]["fireworks_mean"] == pytest.approx(np.mean(fireworks))
        assert summary[label]["fireworks_iqm"] == pytest.approx(iqm(fireworks))
        assert summary[label]["engine_median"] == pytest.approx(np.median(engine))
        assert summary[label]["struck_out_share"] == pytest.approx(struck / len(results))
    careless = [r["result"] for r in groups["openai/gpt-4o-mini · mycroft"]]
    assert any(
        r["engine_score"] != r["fireworks_score"] for r in careless
    )  # the conventions really differ here


def test_scores_per_player_count(built) -> None:
    table = rows_by(
        md_table((built["default"] / "report.md").read_text(), "Scores per player count"), "group", "players"
    )
    cells: dict[tuple[str, str], list[int]] = defaultdict(list)
    for label, games in by_group(read_games(built["runs"])).items():
        for game in games:
            cells[(label, str(game["header"]["players"]))].append(game["result"]["fireworks_score"])
    assert set(table) == set(cells)
    for key, scores in cells.items():
        expected = score_cells(scores)
        expected["mean 95% CI"] = percentile_interval(scores, lambda x, axis=-1: np.mean(x, axis=axis))
        assert {k: table[key][k] for k in expected} == expected, key


def test_game_flow_rates_tokens_cost_and_latency(built) -> None:
    markdown = (built["default"] / "report.md").read_text()
    flow = rows_by(md_table(markdown, "Game flow and reliability"), "group")
    cost = rows_by(md_table(markdown, "Tokens, cost and latency"), "group")
    for label, games in by_group(read_games(built["runs"])).items():
        results = [g["result"] for g in games]
        moves = sum(r["turns"] for r in results)
        assert moves == sum(len(g["moves"]) for g in games)
        assert flow[label]["moves"] == str(moves)
        assert flow[label]["turns / game"] == f2(moves / len(results))
        assert flow[label]["lives lost / game"] == f2(np.mean([r["lives_lost"] for r in results]))
        assert flow[label]["hints / game"] == f2(np.mean([r["hints_given"] for r in results]))
        invalid = sum(r["invalid_replies"] for r in results)
        retries = sum(r["retries"] for r in results)
        assert flow[label]["invalid replies"] == str(invalid)
        assert flow[label]["invalid / move"] == f"{invalid / moves:.3f}"
        assert flow[label]["retries / move"] == f"{retries / moves:.3f}"
        tokens = [r["usage"]["prompt_tokens"] + r["usage"]["completion_tokens"] for r in results]
        assert cost[label]["tokens / game"] == f"{np.mean(tokens):,.0f}"
        costs = [r["cost_usd"] for r in results if r["cost_usd"] is not None]
        assert cost[label]["games with cost"] == str(len(costs))
        assert cost[label]["cost / game"] == (f"${np.mean(costs):.4f}" if costs else "—")
        latencies = [
            sum(a["latency_s"] for c in m["calls"] for a in c["attempts"]) for g in games for m in g["moves"]
        ]
        assert cost[label]["latency / move, mean (s)"] == f"{np.mean(latencies):.3f}"
        assert cost[label]["latency / move, median (s)"] == f"{np.median(latencies):.3f}"
    careless = flow["openai/gpt-4o-mini · mycroft"]
    assert int(careless["invalid replies"]) > 0 and careless["retries / move"] != "0.000"
    assert cost["openai/gpt-4o-mini · mycroft"]["games with cost"] == "2"


def _dead(card: str, fireworks: dict[str, int], discarded: Counter[str]) -> bool:
    color, rank = card[0], int(card[1])
    if rank <= fireworks[color]:
        return True
    return any(
        discarded[f"{color}{lower}"] == COPIES[lower] for lower in RANKS if fireworks[color] < lower < rank
    )


def judge(game_log: dict[str, Any]) -> Counter[str]:
    header = game_log["header"]
    game = Game(header["players"], header["deck"])
    counts: Counter[str] = Counter()
    for record in game_log["moves"]:
        move = Move.model_validate(record["move"])
        seat = game.current_player
        ratings = record["ratings"]
        given = [r for r in ratings if r is not None]
        counts["moves"] += 1
        if not given:
            counts["skipped"] += 1
        elif ratings[record["move_index"]] != max(given):
            counts["below"] += 1
        if move.kind is MoveKind.PLAY:
            counts["plays"] += 1
            candidates = build_view(game.observe(seat)).own_hand[move.card_index].candidates
            if all(game.fireworks[c[0]] + 1 != int(c[1]) for c in candidates):
                counts["unplayable"] += 1
        target = (seat + move.target_offset) % header["players"] if move.is_hint else None
        before = (
            [(k.could_be_colors, k.could_be_ranks) for k in game.knowledge(target)] if move.is_hint else None
        )
        fireworks, discarded = game.fireworks, Counter(game.discards())
        entry = game.apply(move)
        if move.is_hint:
            counts["clues"] += 1
            after = [(k.could_be_colors, k.could_be_ranks) for k in game.knowledge(target)]
            counts["empty"] += before == after
        if move.kind is MoveKind.DISCARD:
            counts["discards"] += 1
            last_copy = discarded[entry.card] == COPIES[int(entry.card[1])] - 1
            counts["critical"] += last_copy and not _dead(entry.card, fireworks, discarded)
    return counts


def test_play_quality_equals_an_independent_replay(built) -> None:
    table = rows_by(md_table((built["default"] / "report.md").read_text(), "Play quality"), "group")
    totals: dict[str, Counter[str]] = {}
    for label, games in by_group(read_games(built["runs"])).items():
        total: Counter[str] = Counter()
        for game in games:
            total.update(judge(game))
        totals[label] = total
        n, row = len(games), table[label]
        assert row["games"] == str(n) and row["moves"] == str(total["moves"])
        assert row["rated / skipped"] == f"{total['moves'] - total['skipped']} / {total['skipped']}"
        rated = total["moves"] - total["skipped"]
        assert row["chose below own top rating"] == (
            f"{total['below']} · {pct(total['below'], rated)} of rated · {f2(total['below'] / n)}/game"
        )
        for column, key, kind in (
            ("known-unplayable plays", "unplayable", "plays"),
            ("empty clues", "empty", "clues"),
            ("critical discards", "critical", "discards"),
        ):
            share = pct(total[key], total[kind]) if total[kind] else "—"
            assert row[column] == (
                f"{total[key]} · {share} of {total[kind]} {kind} · {total[key] / total['moves']:.3f}/move · "
                f"{f2(total[key] / n)}/game"
            ), (label, column)
    careless = totals["openai/gpt-4o-mini · mycroft"]
    assert careless["below"] and careless["skipped"] and careless["unplayable"]
    assert sum(t["critical"] for t in totals.values()) and sum(t["empty"] for t in totals.values())


def test_state_tracking_is_the_mean_of_the_logged_measurements(built) -> None:
    table = rows_by(
        md_table((built["default"] / "report.md").read_text(), "State tracking (working memory)"), "group"
    )
    groups = by_group(read_games(built["runs"]))
    measured = {label: games for label, games in groups.items() if games[0]["scaffold"] == "mycroft"}
    assert set(table) == set(measured)
    for label, games in measured.items():
        tracked = [m["tracking"] for g in games for m in g["moves"]]
        assert table[label]["moves"] == str(len(tracked))
        for side in ("own", "others"):
            for measure in ("exact", "precision", "recall"):
                expected = f"{np.mean([t[side][measure] for t in tracked]):.3f}"
                assert table[label][f"{side} {measure}"] == expected
    assert table["openai/gpt-4o-mini · mycroft"]["own exact"] != "1.000"  # its unchanging notes go stale


def test_scaffolds_on_the_same_seeds_are_compared_pair_by_pair(built) -> None:
    table = rows_by(md_table((built["scaffold"] / "report.md").read_text(), "Paired comparisons"), "A", "B")
    paired_json = {(r["a"], r["b"]): r for r in json.loads((built["scaffold"] / "paired.json").read_text())}
    groups = by_group(read_games(built["runs"]), key="scaffold")
    assert set(groups) == {"mycroft", "sherlock", "watson"}
    expected_pairs = {("mycroft", "sherlock"): 2, ("mycroft", "watson"): 2, ("sherlock", "watson"): 6}
    assert {key: int(row["pairs"]) for key, row in table.items()} == expected_pairs
    for (a, b), pairs in expected_pairs.items():
        scores_a = {g["deal"]: g["result"]["fireworks_score"] for g in groups[a]}
        scores_b = {g["deal"]: g["result"]["fireworks_score"] for g in groups[b]}
        deals = sorted(set(scores_a) & set(scores_b))
        assert len(deals) == pairs
        differences = [scores_a[d] - scores_b[d] for d in deals]
        wins = sum(d > 0 for d in differences)
        ties = sum(d == 0 for d in differences)
        row = table[(a, b)]
        assert row["mean A"] == f2(np.mean([scores_a[d] for d in deals]))
        assert row["mean B"] == f2(np.mean([scores_b[d] for d in deals]))
        assert row["difference A − B"] == f"{np.mean(differences):+.2f}"
        assert row["95% CI"] == percentile_interval(differences, lambda x, axis=-1: np.mean(x, axis=axis))
        assert row["P(A > B)"] == f2((wins + 0.5 * ties) / pairs)
        assert row["A better / tie / B better"] == f"{wins} / {ties} / {pairs - wins - ties}"
        assert paired_json[(a, b)]["fireworks_mean_difference"] == pytest.approx(np.mean(differences))
        assert paired_json[(a, b)]["fireworks_pairs"] == pairs
        counts = {deal[2] for deal in deals}  # deals only one group completed, at the counts compared: left out
        only_a = sum(d not in scores_b for d in scores_a if d[2] in counts)
        only_b = sum(d not in scores_a for d in scores_b if d[2] in counts)
        assert row["unpaired A / B"] == f"{only_a} / {only_b}"
    assert table[("mycroft", "watson")]["unpaired A / B"] != "0 / 0"  # watson played deals mycroft did not


def test_the_html_is_self_contained_and_holds_the_markdown_numbers(built) -> None:
    page, raw = html_page(built["default"])
    assert len(page.images) == 5  # two per-player-count plots, heat map, distributions, state tracking
    assert all(src.startswith("data:image/png;base64,") for src in page.images)
    assert all(src.startswith("data:") for src in page.srcs)
    assert not [h for h in page.hrefs if re.match(r"\s*(https?:)?//", h)]
    assert not re.search(r"url\(\s*['\"]?\s*(https?:)?//", raw)
    assert not [s for s in page.scripts if s.get("src")]
    assert not [link for link in page.links if "stylesheet" in (link.get("rel") or "")]
    markdown = (built["default"] / "report.md").read_text()
    for section, heading in (
        ("scores", "Scores: fireworks at the end (main)"),
        ("scores-engine", "Scores: 0 after three strikes"),
        ("players", "Scores per player count"),
        ("paired", "Paired comparisons"),
        ("heatmap", "Scaffold by model"),
        ("flow", "Game flow and reliability"),
        ("cost", "Tokens, cost and latency"),
        ("quality", "Play quality"),
        ("tracking", "State tracking (working memory)"),
        ("not-complete", "Games not complete"),
        ("references", "Published references"),
    ):
        assert html_table(page, section) == md_table(markdown, heading), section


def test_tables_are_written_as_csv_and_json_with_the_same_values(built) -> None:
    names = ["games", "summary", "summary_by_players", "paired", "quality", "tracking", "tracking_by_turn"]
    names += ["scaffold_model", "runs"]
    for name in names:
        with (built["default"] / f"{name}.csv").open(newline="") as handle:
            from_csv = list(csv.DictReader(handle))
        from_json = json.loads((built["default"] / f"{name}.json").read_text())
        assert from_json, name
        assert [{k: "" if v is None else str(v) for k, v in row.items()} for row in from_json] == from_csv, (
            name
        )
    games = json.loads((built["default"] / "games.json").read_text())
    logs = read_games(built["runs"])
    assert len(games) == len(logs)
    expected = {(g["header"]["run_id"], g["header"]["game_id"]): g["result"]["fireworks_score"] for g in logs}
    assert {(g["run_id"], g["game_id"]): g["fireworks_score"] for g in games} == expected


def test_every_run_is_listed_with_its_configuration_and_provenance(built) -> None:
    table = md_table((built["default"] / "report.md").read_text(), "Runs")
    assert len(table) == 3
    listed = {row["run"]: row for row in table}
    for manifest_path in built["runs"].glob("*/manifest.json"):
        manifest = json.loads(manifest_path.read_text())
        status = json.loads((manifest_path.parent / "status.json").read_text())
        row = listed[manifest_path.parent.name]
        assert row["run id"] == manifest["run_id"]
        assert row["git commit"].startswith(manifest["git"]["commit"])
        assert ("uncommitted changes" in row["git commit"]) == manifest["git"]["dirty"]
        assert row["harness"] == manifest["versions"]["hanabi-eval"]
        assert row["status"].startswith(status["status"])
        assert row["models"] == manifest["config"]["seats"][0]["model"]
        assert row["scaffolds"] == manifest["config"]["seats"][0]["scaffold"]
        assert row["players"] == ", ".join(str(p) for p in manifest["config"]["players"])
        assert row["seeds"] == "custom: 1, 2, 3"


def test_the_same_logs_give_the_same_report(built, tmp_path: Path) -> None:
    assert main(["report", str(built["runs"]), "--out", str(tmp_path), "--by", "scaffold"]) == 0
    for name in ("report.md", "report.html", "summary.json", "paired.csv"):
        assert (tmp_path / name).read_bytes() == (built["scaffold"] / name).read_bytes(), name


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["report", "--out", "{tmp}/out"], "the following arguments are required: RUN_DIR"),
        (["report", "{tmp}/missing", "--out", "{tmp}/out"], "does not exist"),
        (["report", "{tmp}/a-file", "--out", "{tmp}/out"], "is not a run directory"),
        (["report", "{tmp}/empty", "--out", "{tmp}/out"], "holds no runs"),
        (["report", "{tmp}/empty", "--out", "{tmp}/out", "--by", "colour"], "invalid choice: 'colour'"),
        (["report", "{tmp}/empty", "--out", "{tmp}/out", "--by", "model", "model"], "--by repeats"),
        (["report", "{tmp}/empty", "--out", "{tmp}/a-file"], "is a file"),
    ],
)
def test_bad_input_is_one_line_with_exit_code_2(
    argv: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("not a run")
    (tmp_path / "empty").mkdir()
    try:
        code = main([part.replace("{tmp}", str(tmp_path)) for part in argv])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert named in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
