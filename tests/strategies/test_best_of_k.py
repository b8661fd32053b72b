"""Best-of-K as the paper runs it (app. E.1, I.3): k is a parameter from 1 to 7, the final agent reads the k sampled
replies with their ratings and may only choose a move one of them chose; k = 1 is the single agent."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.schema.errors import Refused
from harness.session.sweep import load_sweep
from tests.fakeserver import FakeModelServer, Reply, answer_in_format, careful_player, legal_moves_in
from tests.helpers import ROOT, logs


class Sampler:
    """Samples alternate between two legal moves; the final agent first names a move no sample chose (it must be
    re-asked), then the last sampled move."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply:
        user = next(m["content"] for m in request["messages"] if m["role"] == "user")
        moves = [i for i, _ in legal_moves_in(request)]
        if "candidate replies" not in user:
            with self.lock:
                self.count += 1
                odd = self.count % 2
            if odd:
                return careful_player(request)
            reveal = next((i for i, d in legal_moves_in(request) if d.startswith("(Reveal")), moves[0])
            return Reply(content=answer_in_format(request, reveal, dict.fromkeys(moves, 0.1), "a clue"))
        sampled = [int(n) for n in re.findall(r"\(chose move (\d+):", user)]
        reasked = any(m["role"] == "assistant" for m in request["messages"])
        choice = sampled[-1] if reasked else next(i for i in moves if i not in sampled)
        return Reply(content=answer_in_format(request, choice, dict.fromkeys(moves, 0.0), "final pick"))


def test_the_final_agent_reads_k_replies_and_only_a_sampled_move_is_played(tmp_path: Path) -> None:
    with FakeModelServer(Sampler()) as server:
        argv = ["run", "--model", "openai/m", "--api-base", server.base_url, "--scaffold", "best-of-k-watson"]
        assert main([*argv, "--k", "3", "--seeds", "2", "--out", str(tmp_path), "--no-progress"]) == 0
    (game,) = logs(tmp_path)
    assert game.header.seats[0].k == 3 and game.header.seats[0].label == "openai/m:best-of-k-watson,k=3"
    assert len(game.moves) > 10
    for record in game.moves:
        assert [c.role for c in record.calls] == ["sample-1", "sample-2", "sample-3", "selector"]
        sampled = {
            int(re.search(r"Chosen Move Number: (\d+)", c.final.reply).group(1)) for c in record.calls[:3]
        }
        assert record.move_index in sampled
        first, *rest = record.calls[-1].attempts
        assert (
            first.error_kind == "illegal_move" and "not one of the moves you may choose here" in first.error
        )
        assert rest[-1].error_kind is None
        prompt = next(m.content for m in first.messages if m.role == "user")
        assert prompt.count("=== Candidate") == 3 and prompt.count("Move Ratings: Move 0:") == 3
        assert (
            "Legal Moves:" in prompt.split("=== Candidate 1")[0]
        )  # the single agent's own input comes first


def test_best_of_1_is_the_single_agent(tmp_path: Path) -> None:
    argv = ["run", "--model", "local/smart", "--scaffold", "best-of-k-sherlock", "--k", "1", "--seeds", "1"]
    assert main([*argv, "--out", str(tmp_path), "--no-progress"]) == 0
    (game,) = logs(tmp_path)
    assert game.moves and all([c.role for c in m.calls] == ["sample-1"] for m in game.moves)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scaffold", "best-of-k-watson", "--k", "0"], "k=0 is out of range"),
        (["--scaffold", "best-of-k-watson", "--k", "8"], "k=8 is out of range"),
        (["--scaffold", "watson", "--k", "3"], "is for best-of-k scaffolds"),
        (["--seat", "openai/m:best-of-k-sherlock,k=9", "--seat", "openai/m:watson"], "k=9 is out of range"),
        (["--seat", "openai/m:sherlock,k=2", "--seat", "openai/m:watson"], "is for best-of-k scaffolds"),
    ],
)
def test_a_bad_k_is_one_line_exit_2_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    with FakeModelServer(careful_player) as server:
        argv = ["run", *args, "--api-base", server.base_url, "--seeds", "1", "--out", str(tmp_path)]
        if "--seat" not in args:
            argv += ["--model", "openai/m"]
        assert main(argv) == 2
        assert server.exchanges == []
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_sweeps_set_k_per_scaffold_and_the_k_curve_file_loads(tmp_path: Path) -> None:
    curve = load_sweep(ROOT / "sweeps" / "paper-best-of-k.toml")
    runs = {(r.seats[0].scaffold, r.seats[0].k) for r in curve.runs()}
    bases = ("best-of-k-watson", "best-of-k-spin-bench", "best-of-k-sherlock")
    assert runs == {(name, k) for name in bases for k in range(1, 8)}
    assert {r.repeats for r in curve.runs()} == {10}  # the paper played each configuration ten times
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "b"\nplayers = [2]\nseeds = ["1"]\nscaffolds = ["best-of-k-watson,k=8"]\n'
                   '[[models]]\nmodel = "local/smart"\n')  # fmt: skip
    with pytest.raises(Refused, match="k=8 is out of range"):
        load_sweep(bad)
