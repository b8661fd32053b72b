"""A new strategy is one module and one scaffold file: a strategy defined here, registered by name, plays a whole game
through the harness's own loop from a scaffold file that names it; a file naming no known strategy is refused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness.engine.seeds import resolve_seeds
from harness.models.client import ModelClient
from harness.play.agent import SeatAgent
from harness.play.game import play_game
from harness.schema.config import RetryPolicy
from harness.schema.errors import Refused
from harness.schema.log_file import read_game_log
from harness.schema.records import GamePlan, SeatConfig
from harness.strategies.asking import Decision
from harness.strategies.definition import ScaffoldDef
from harness.strategies.registry import Strategy, TurnContext, register
from harness.strategies.rendering import render_call
from harness.strategies.scaffold import calls_text, read_scaffold
from harness.view.seat_view import SeatView


# ---- the new strategy: the whole of its module -------------------------------------------------------------------
@register
class TwoDrafts(Strategy):
    """Ask the scaffold's own prompt twice at once and play the first draft's move."""

    name = "two-drafts"

    def check(self, scaffold: ScaffoldDef) -> str | None:
        return "two-drafts has no roles or decider" if scaffold.roles or scaffold.decider else None

    def calls_per_move(self, scaffold: ScaffoldDef, players: int) -> int:
        return 2

    async def decide(self, view: SeatView, ctx: TurnContext) -> Decision:
        drafts = [ctx.scaffold.base.model_copy(update={"role": f"draft-{i}"}) for i in (1, 2)]
        answers = await ctx.asker.ask_all([(c, render_call(ctx.scaffold, c, view)) for c in drafts])
        return Decision(reply=answers[0].move, calls=[a.call for a in answers])


# ---- the new scaffold file ---------------------------------------------------------------------------------------
SCAFFOLD = """\
name = "watson-two-drafts"
description = "Watson's prompt, asked twice; the first draft is played."
extends = "watson"
strategy = "two-drafts"
"""


def scaffold_file(folder: Path, text: str = SCAFFOLD, name: str = "watson-two-drafts") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_registered_strategy_plays_a_game_from_the_scaffold_file_that_names_it(tmp_path: Path) -> None:
    scaffold = read_scaffold(scaffold_file(tmp_path))
    assert scaffold.strategy == "two-drafts" and calls_text(scaffold) == "2"
    seat = SeatConfig(model="local/smart", scaffold=scaffold.name)
    agent = SeatAgent(seat, scaffold, ModelClient(seat, RetryPolicy()), reply_retries=2)
    (deck,) = resolve_seeds("7")
    plan = GamePlan(game_id="2p-seed7", players=2, seed=7, seed_set="custom", seats=(seat, seat))
    log_path = tmp_path / "2p-seed7.jsonl"  # a log is named after its game

    result = asyncio.run(play_game(plan, list(deck.deck), log_path, {0: agent, 1: agent}, "plug-in", None))

    assert result.status == "complete" and result.turns > 20
    log = read_game_log(log_path)
    assert len(log.moves) == result.turns and result.calls == 2 * result.turns
    for record in log.moves:
        assert record.scaffold == "watson-two-drafts"
        assert [c.role for c in record.calls] == ["draft-1", "draft-2"]
        first_draft = record.calls[0].final.reply or ""
        assert f"Chosen Move Number: {record.move_index}" in first_draft  # the first draft's move was played


def test_a_scaffold_file_naming_an_unknown_strategy_is_refused_with_the_known_ones(tmp_path: Path) -> None:
    text = SCAFFOLD.replace('"two-drafts"', '"three-drafts"')
    with pytest.raises(Refused) as error:
        read_scaffold(scaffold_file(tmp_path, text))
    message = str(error.value)
    assert "'three-drafts'" in message and "\n" not in message
    for known in ("best_of_k", "memory", "mixture", "single", "two-drafts"):
        assert known in message


def test_a_strategy_checks_the_scaffold_files_that_name_it(tmp_path: Path) -> None:
    text = SCAFFOLD + '\n[decider]\nrole = "selector"\nuser_template = "best_of_k/final.j2"\noutput = "text"\n'
    with pytest.raises(Refused, match="two-drafts has no roles or decider"):
        read_scaffold(scaffold_file(tmp_path, text))


def test_a_scaffold_file_of_an_earlier_version_is_told_how_to_name_working_memory(tmp_path: Path) -> None:
    old = tmp_path / "my-mycroft.toml"
    old.write_text('name = "my-mycroft"\nextends = "mycroft"\nstrategy = "single"\n[context]\nworking_memory = true\n')
    with pytest.raises(Refused) as refused:
        read_scaffold(old)
    assert 'write strategy = "memory" instead' in str(refused.value)
    assert len(str(refused.value).splitlines()) == 1
