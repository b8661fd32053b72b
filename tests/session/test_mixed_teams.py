"""Mixed teams and multi-call scaffolds: every seat's server gets exactly its seats' prompts, rotation is fair,
best-of-k and mixture of agents make and log the right calls, and the H-group prompt finds the right chop."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.engine.game import Game, deck_for_seed
from harness.engine.replay import replay_to_end
from harness.formats import parse_reply
from harness.models.client import price_of
from harness.run.runner import estimate, planned_calls
from harness.run.store import RunDir
from harness.schema.moves import Move, MoveKind
from harness.session.launch import expected_cost_line
from harness.session.request import RunRequest, plan_run
from harness.strategies.rendering import render_messages
from harness.strategies.scaffold import load_scaffold
from harness.view.builder import build_view
from tests.fakeserver import FakeModelServer, Reply, careful_player
from tests.helpers import logs


def first_prompts(records: list[Any], label: str) -> list[str]:
    return [c.attempts[0].messages[-1].content for r in records if r.player == label for c in r.calls]


def test_a_mixed_team_sends_each_seats_prompts_to_its_own_server_and_rotates_positions(
    tmp_path: Path,
) -> None:
    with FakeModelServer(careful_player) as alpha, FakeModelServer(careful_player) as beta:
        code = main(
            [
                "run",
                "--seat", f"openai/alpha:watson,api_base={alpha.base_url}",
                "--seat", f"openai/beta:sherlock,api_base={beta.base_url},temperature=0.7",
                "--seat", "local/smart:watson",
                "--seeds", "1,2,3",
                "--out", str(tmp_path),
                "--no-progress",
            ]
        )  # fmt: skip
        assert code == 0
        games = logs(tmp_path)
        records = [r for g in games for r in g.moves]
        sent = {
            "alpha": sorted(e.request["messages"][-1]["content"] for e in alpha.exchanges),
            "beta": sorted(e.request["messages"][-1]["content"] for e in beta.exchanges),
        }
        assert sent["alpha"] == sorted(first_prompts(records, "openai/alpha:watson"))
        assert sent["beta"] == sorted(first_prompts(records, "openai/beta:sherlock"))
        assert {e.request["temperature"] for e in beta.exchanges} == {0.7}
        assert all("temperature" not in e.request for e in alpha.exchanges)
    positions: dict[str, Counter[int]] = {}
    for game in games:
        labels = [s.label for s in game.header.seats]
        for position, label in enumerate(labels):
            positions.setdefault(label, Counter())[position] += 1
        for record in game.moves:  # the log names the player of every move
            assert record.player == labels[record.seat]
    assert all(counts == Counter({0: 1, 1: 1, 2: 1}) for counts in positions.values())


def test_every_rotation_of_every_seed(tmp_path: Path) -> None:
    argv = ["run", "--seat", "local/smart", "--seat", "local/cautious", "--rotation", "all", "--seeds", "1,2"]
    assert main([*argv, "--out", str(tmp_path), "--no-progress"]) == 0
    names = sorted(p.name for p in tmp_path.glob("*/games/*.jsonl"))
    assert names == [f"2p-custom-seed{s}-r{r}.jsonl" for s in (1, 2) for r in (0, 1)]


def test_the_papers_cross_play_design_is_one_line_of_a_sweep(tmp_path: Path) -> None:
    config = tmp_path / "xp.toml"
    config.write_text(
        'name = "xp"\nplayers = [2, 3, 4]\nseeds = ["1"]\n'
        'crossplay = [{one = "local/smart", rest = "local/cautious", scaffold = "sherlock"}]\n'
    )
    assert main(["run", "--config", str(config), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    teams = sorted(tuple(s.model for s in g.header.seats) for g in logs(tmp_path / "out" / "xp"))
    assert sorted(sorted(Counter(team).items()) for team in teams) == [
        [("local/cautious", n - 1), ("local/smart", 1)] for n in (2, 3, 4)
    ]


ANALYSIS_MARKERS = (  # the first words of the paper's analysis roles (app. I.4 Watson, I.5 Sherlock)
    "You are the Analyst Agent",
    "You are the Discard Pile Analyst",
    "You are Agent 5 (History Analyst)",
    "Analyse EVERY candidate move",
    "give a detailed discard analysis",
    "Your identity for this turn is Player",
)


def counting(request: dict[str, Any]) -> Reply:
    """A legal player that answers analysis requests with prose, as a model would."""
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    markers = ANALYSIS_MARKERS
    if any(marker in user for marker in markers):
        return Reply(content="Move 0 looks weakest; card 1 is the safest discard. Player 2 wants us to play.")
    return careful_player(request)


@pytest.mark.parametrize(
    ("scaffold", "players", "roles"),
    [
        ("best-of-5-sherlock", 3, ["sample-1", "sample-2", "sample-3", "sample-4", "sample-5", "selector"]),
        (
            "moa-sherlock",
            3,
            ["baseline", "rank_preferring", "analyst", "discard_strategist", "history_analyst", "aggregator"],
        ),
        ("moa-watson", 2, ["baseline", "rank_preferring", "analyst", "discard_strategist", "aggregator"]),
    ],
)
def test_multi_call_scaffolds_make_and_log_every_call(
    tmp_path: Path, scaffold: str, players: int, roles: list[str]
) -> None:
    with FakeModelServer(counting) as server:
        argv = ["run", "--model", "openai/m", "--api-base", server.base_url, "--scaffold", scaffold]
        assert (
            main([*argv, "--players", str(players), "--seeds", "2", "--out", str(tmp_path), "--no-progress"])
            == 0
        )
        requests = len(server.exchanges)
    (game,) = logs(tmp_path)
    for record in game.moves:
        assert [c.role for c in record.calls] == roles
        decider = record.calls[-1].attempts[-1]
        assert (
            parse_reply(decider.reply, len(record.legal_moves)).action == record.move_index
        )  # the decider's
        user = next(m.content for m in decider.messages if m.role == "user")
        if scaffold.startswith("moa"):
            assert "Agent 3" in user and "card 1 is the safest discard" in user
        else:
            assert user.count("chose move") == 5 and "You may choose ONLY one of the moves" in user
    assert requests == len(roles) * len(game.moves)


def test_a_failed_sample_stops_the_move_with_every_call_logged(tmp_path: Path) -> None:
    def fifth_sample_fails(request: dict[str, Any]) -> Reply:
        fifth_sample_fails.count += 1
        return Reply(status=401) if fifth_sample_fails.count == 5 else careful_player(request)

    fifth_sample_fails.count = 0
    with FakeModelServer(fifth_sample_fails) as server:
        argv = ["run", "--model", "openai/m", "--api-base", server.base_url, "--scaffold", "best-of-5-watson"]
        assert main([*argv, "--seeds", "3", "--out", str(tmp_path), "--no-progress"]) == 1
    (game,) = logs(tmp_path)
    assert game.moves == [] and game.result.status == "interrupted"
    assert sorted(c.role for c in game.result.failed_calls) == [f"sample-{i}" for i in range(1, 6)]


def test_the_hgroup_prompt_names_the_chop_in_hles_indexing() -> None:
    game = Game(3, deck_for_seed(1))
    hand_1 = game.hands()[1]
    # Player 0 clues player 1 about the colour of their oldest card: card 0 is touched, so the chop moves to card 1
    game.apply(Move(kind=MoveKind.REVEAL_COLOR, target_offset=1, color=hand_1[0][0]))
    touched = {i for i, c in enumerate(hand_1) if c[0] == hand_1[0][0]}
    expected_chop = min(i for i in range(5) if i not in touched)
    view = build_view(game.observe(game.current_player))  # player 1's own view
    prompt = render_messages(load_scaffold("hgroup-watson"), view)[1].content
    assert f"Your chop is card {expected_chop} (slot {5 - expected_chop})." in prompt
    view_2 = build_view(replay_to_end(3, deck_for_seed(1), [e.move for e in game.history]).observe(2))
    prompt_2 = render_messages(load_scaffold("hgroup-sherlock"), view_2)[1].content
    card = hand_1[expected_chop]
    names = {"R": "Red", "Y": "Yellow", "G": "Green", "W": "White", "B": "Blue"}
    assert (
        f"Player 1's chop: card {expected_chop} (slot {5 - expected_chop}, {names[card[0]]} {card[1]})"
        in prompt_2
    )
    assert "- Card 4 (slot 1): " in prompt_2  # HLE's newest card is H-group slot 1


def test_scaffolds_listing_and_expected_calls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scaffolds"]) == 0
    listing = capsys.readouterr().out
    assert "6 (5 for 2 players)" in listing and "best-of-5-sherlock" in listing
    assert "k + 1 (6 at k = 5)" in listing  # best-of-k's calls follow --k
    argv = ["run", "--scaffold", "moa-watson", "--players", "3", "--seeds", "1", "--out", str(tmp_path)]
    assert main([*argv, "--no-progress"]) == 0
    assert "Expected model calls: about 366 for 1 unfinished game " in capsys.readouterr().out
    assert main([*argv, "--no-progress"]) == 0
    assert "Every game is finished: no model calls needed." in capsys.readouterr().out


def test_a_person_at_the_table_is_no_model_call_and_has_no_price(tmp_path: Path) -> None:
    """What a game with a person is said to take before it starts counts its model seats alone: a person makes no
    model call and costs nothing, so no price is asked for."""
    run_path, config, options = plan_run(RunRequest(seat=["human", "local/smart"], seeds="7", out=tmp_path))
    expected = estimate([(config, RunDir(run_path))], lambda model: price_of(model, options.prices))
    assert (expected.games, expected.calls) == planned_calls([config], 1)  # the partner's calls only
    assert expected.cost_usd == 0.0 and expected.unpriced == ()
    assert expected_cost_line(expected, options) is None  # no "Expected cost: unknown, no price for human"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--seat", "local/smart", "--model", "local/smart", "--seat", "local/smart"], "not both"),
        (["--seat", "local/smart"], "a team has 2 to 5 seats"),
        (["--seat", "local/smart:holmes", "--seat", "local/smart"], "unknown scaffold 'holmes'"),
        (["--seat", "local/smart,temp=1", "--seat", "local/smart"], "'temp=1' is not a setting"),
        (
            ["--seat", "local/smart:watson,temperature=0.2,temperature=1.5", "--seat", "local/smart"],
            "temperature is set twice; give each setting once",
        ),
        (["--seat", "local/smart:best-of-k-watson,k=3,k=4", "--seat", "local/smart"], "k is set twice"),
        (["--seat", "local/smart", "--seat", "local/smart", "--players", "3"], "a team of 2 seats plays 2-player"),
        (["--seat", "openai/gpt-4.1", "--seat", "local/smart"], "OPENAI_API_KEY"),
    ],
)
def test_bad_seat_specs_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], named: str
) -> None:
    assert main(["run", *args, "--out", str(tmp_path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())  # refused before any run folder was made


def test_the_run_wide_api_base_serves_every_seat_without_a_server_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # with --api-base no key is needed, for seats too
    with FakeModelServer(careful_player) as server:
        argv = ["run", "--seat", "openai/a", "--seat", "local/smart", "--api-base", server.base_url]
        assert main([*argv, "--seeds", "1", "--rotation", "off", "--out", str(tmp_path), "--no-progress"]) == 0
        asked = len(server.exchanges)
    (game,) = logs(tmp_path)
    seat_a = [r for r in game.moves if r.player.startswith("openai/a")]
    assert seat_a and asked == sum(len(c.attempts) for r in seat_a for c in r.calls)  # the built-in seat asked none
    assert [s.api_base for s in game.header.seats] == [server.base_url, None]
