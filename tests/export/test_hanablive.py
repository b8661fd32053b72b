"""hanab.live replays re-simulate, under hanab.live's own rules, to the fireworks, strikes and clues of the log.

The simulator below is written from hanab.live's rules alone (it uses neither HLE nor harness.engine.game): it deals the
replay's deck (player 0's hand first), finds played and discarded cards by their order in the deck, checks that
every action is legal, and ends the game the way hanab.live's server does (three strikes; the final round; the best
score still reachable after discards; no needed card left outside discards and finished players' hands). An export
stops each replay exactly there, which can be before the logged game (HLE) stopped.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.schema.log_file import read_game_log

HAND_SIZE = {2: 5, 3: 5, 4: 4, 5: 4, 6: 3}
COPIES = {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}
SUITS = 5


class HanabLive:
    """hanab.live's rules for "No Variant"."""

    def __init__(self, replay: dict) -> None:
        assert replay["options"] == {"variant": "No Variant"}
        self.players = len(replay["players"])
        assert 2 <= self.players <= 6
        self.deck = [(card["suitIndex"], card["rank"]) for card in replay["deck"]]
        assert Counter(self.deck) == Counter({(s, r): COPIES[r] for s in range(SUITS) for r in COPIES})
        size = HAND_SIZE[self.players]
        self.hands = [list(range(p * size, (p + 1) * size)) for p in range(self.players)]
        self.drawn = self.players * size
        self.stacks = [0] * SUITS
        self.strikes = 0
        self.clues = 8
        self.discarded: Counter[tuple[int, int]] = Counter()
        self.turn = 0
        self.turns_left: int | None = None
        self.finished: set[int] = set()  # players who have taken their last turn
        self.ended: str | None = None

    @property
    def score(self) -> int:
        return sum(self.stacks)

    def max_score(self) -> int:
        best = 0
        for suit in range(SUITS):
            rank = self.stacks[suit]
            while rank < 5 and self.discarded[(suit, rank + 1)] < COPIES[rank + 1]:
                rank += 1
            best += rank
        return best

    def act(self, action: dict) -> None:
        assert self.ended is None, "an action after the end of the game"
        player = self.turn % self.players
        kind = action["type"]
        drew_last = False
        if kind in (0, 1):
            assert action.keys() == {"type", "target", "value"} and action["value"] == 0
            order = action["target"]
            assert order in self.hands[player], f"card {order} is not in player {player}'s hand"
            self.hands[player].remove(order)
            suit, rank = self.deck[order]
            if kind == 0 and self.stacks[suit] == rank - 1:
                self.stacks[suit] = rank
                if rank == 5 and self.clues < 8:
                    self.clues += 1
            elif kind == 0:
                self.strikes += 1
                self.discarded[(suit, rank)] += 1
            else:
                assert self.clues < 8, "a discard with all clue tokens"
                self.clues += 1
                self.discarded[(suit, rank)] += 1
            if self.drawn < len(self.deck):
                self.hands[player].append(self.drawn)
                self.drawn += 1
                drew_last = self.drawn == len(self.deck)
        else:
            assert kind in (2, 3) and set(action) == {"type", "target", "value"}
            target, value = action["target"], action["value"]
            assert target != player and 0 <= target < self.players
            assert self.clues > 0, "a clue without clue tokens"
            index = 0 if kind == 2 else 1
            assert any(self.deck[o][index] == value for o in self.hands[target]), (
                "a clue that touches nothing"
            )
            self.clues -= 1
        self.turn += 1
        if drew_last:
            self.turns_left = self.players
        elif self.turns_left is not None:
            self.turns_left -= 1
            self.finished.add(player)
        if self.strikes == 3:
            self.ended = "strikeout"
        elif self.turns_left == 0:
            self.ended = "final round"
        elif self.score == self.max_score():
            self.ended = "max score"
        elif not any(self.can_still_play(suit) for suit in range(SUITS) if self.stacks[suit] < 5):
            self.ended = "no playable card"

    def can_still_play(self, suit: int) -> bool:
        """Whether the suit's next card is still in the deck or in the hand of a player who moves again."""
        needed = (suit, self.stacks[suit] + 1)
        held = [o for p in range(self.players) if p not in self.finished for o in self.hands[p]]
        return any(self.deck[o] == needed for o in [*held, *range(self.drawn, len(self.deck))])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("runs")
    assert (
        main(["run", "--players", "2", "3", "4", "5", "--seeds", "1", "--out", str(out), "--no-progress"])
        == 0
    )
    # In this game the cautious bot discards a card's last copy and reaches the best score still possible with a
    # round to go: hanab.live ends it there, two moves before HLE does.
    argv = ["run", "--model", "local/cautious", "--scaffold", "mycroft", "--seeds", "3", "--out", str(out)]
    assert main([*argv, "--players", "2", "--no-progress"]) == 0
    # In this one the last card still needed is left only in the hand of a player who will not move again.
    assert main(["run", "--players", "2", "--seeds", "10", "--out", str(out), "--no-progress"]) == 0
    return sorted(p for p in out.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def replays(runs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "replays"
    assert main(["export", *map(str, runs), "--format", "hanablive", "--out", str(out)]) == 0
    return out


def logged_games(runs: list[Path]) -> dict[str, object]:
    games = {}
    for run in runs:
        for path in sorted((run / "games").glob("*.jsonl")):
            contents = read_game_log(path)
            games[f"{contents.header.run_id}__{contents.header.game_id}.json"] = contents
    return games


def test_every_replay_re_simulates_to_the_logged_game(runs: list[Path], replays: Path) -> None:
    games = logged_games(runs)
    files = sorted(p.name for p in replays.glob("*.json") if p.name != "export_manifest.json")
    assert files == sorted(games)
    assert {len(json.loads((replays / f).read_text())["players"]) for f in files} == {2, 3, 4, 5}
    endings: Counter[str] = Counter()
    early: Counter[str] = Counter()
    manifest = json.loads((replays / "export_manifest.json").read_text())
    ends = manifest["replay_ends"]
    assert len(ends) == len(files)
    for name in files:
        replay = json.loads((replays / name).read_text())
        contents = games[name]
        assert 0 < len(replay["actions"]) <= len(contents.moves)
        simulator = HanabLive(replay)
        for action, record in zip(replay["actions"], contents.moves, strict=False):
            simulator.act(action)  # refuses an action after hanab.live's end
            assert simulator.score == record.fireworks_after, f"{name} turn {record.turn}"
            assert simulator.strikes == 3 - record.life_tokens_after, f"{name} turn {record.turn}"
            assert simulator.clues == record.info_tokens_after, f"{name} turn {record.turn}"
        assert simulator.ended is not None, f"{name}: the replay stops before hanab.live ends the game"
        assert simulator.score == contents.result.fireworks_score
        if simulator.turn == len(contents.moves):
            assert simulator.strikes == contents.result.lives_lost
        else:
            assert simulator.ended in ("max score", "no playable card")
            assert simulator.strikes <= contents.result.lives_lost
        (end,) = [e for e in ends if e["file"] == name]
        assert (end["hle_moves"], end["hle_score"]) == (len(contents.moves), contents.result.fireworks_score)
        assert (end["hanablive_actions"], end["hanablive_score"]) == (simulator.turn, simulator.score)
        assert end["hanablive_end"] == simulator.ended
        endings["stopped early" if simulator.turn < len(contents.moves) else simulator.ended] += 1
        early.update([simulator.ended] if simulator.turn < len(contents.moves) else [])
    assert endings["final round"] > 0 and endings["stopped early"] > 0
    # Both of hanab.live's early ends occur: the best reachable score reached (the cautious bot's game), and the
    # last needed card left only in the hand of a player who will not move again (local/smart, 2 players, seed 10).
    assert set(early) == {"max score", "no playable card"}
    assert manifest["hle_played_on"] == endings["stopped early"]
    card = (replays / "README.md").read_text()
    assert f"so\n{endings['stopped early']} of {len(files)} games end earlier here than in the log" in card


def test_replays_name_seats_and_use_the_no_variant_suits(runs: list[Path], replays: Path) -> None:
    games = logged_games(runs)
    for name, contents in games.items():
        replay = json.loads((replays / name).read_text())
        assert replay["players"] == [
            f"P{i} {s.model}:{s.scaffold}" for i, s in enumerate(contents.header.seats)
        ]
        suits = {"R": 0, "Y": 1, "G": 2, "W": 3, "B": 4}
        assert [(c["suitIndex"], c["rank"]) for c in replay["deck"]] == [
            (suits[text[0]], int(text[1])) for text in contents.header.deck
        ]
        for action, record in zip(replay["actions"], contents.moves, strict=False):
            move = record.move
            if move.color is not None:
                assert action == {
                    "type": 2,
                    "target": (record.seat + move.target_offset) % contents.header.players,
                    "value": suits[move.color],
                }
            elif move.rank is not None:
                assert action["type"] == 3 and action["value"] == move.rank


def test_replays_load_as_one_row_per_game_with_the_declared_features(
    replays: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import yaml
    from datasets import Features, load_dataset

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    header = (replays / "README.md").read_text().split("---")[1]
    declared = Features._from_yaml_list(yaml.safe_load(header)["dataset_info"]["features"])
    files = sorted(p for p in replays.glob("*.json") if p.name != "export_manifest.json")
    cache = str(tmp_path / "hf" / "datasets")
    loose = load_dataset("json", data_files=[str(p) for p in files], split="train", cache_dir=cache)
    folder = load_dataset(str(replays), split="train", cache_dir=cache)
    assert loose.features == folder.features == declared
    assert loose.num_rows == folder.num_rows == len(files)
    assert sorted(len(a) for a in loose["actions"]) == sorted(len(json.loads(p.read_text())["actions"]) for p in files)


def test_a_replay_of_a_mixed_team_counts_every_seats_moves_as_it_holds_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--model picks the games a seat of that model played; each replay still holds the whole game."""
    team = ["--seat", "local/smart:watson", "--seat", "local/cautious:watson", "--seeds", "1"]
    assert main(["run", *team, "--out", str(tmp_path / "runs"), "--no-progress"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    (log,) = (run / "games").glob("*.jsonl")
    logged = len(read_game_log(log).moves)
    capsys.readouterr()
    argv = ["export", str(run), "--format", "hanablive", "--model", "local/smart", "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    assert f"Exported 1 replay file from 1 game ({logged} moves)" in capsys.readouterr().out
    assert f"| 1 | 1 | {logged} |" in (tmp_path / "out" / "README.md").read_text()
