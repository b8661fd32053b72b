"""`mixture`, mixture of agents (paper app. E.2): the scaffold's own call (role "baseline") and the specialist
`[[roles]]` at once (a role with `min_players` above the game's player count is left out), then the aggregator
(`[decider]`) reads every reply in full and chooses the move."""

from __future__ import annotations

from harness.strategies.asking import Decision, decider_report
from harness.strategies.definition import CallDef, ScaffoldDef
from harness.strategies.registry import Strategy, TurnContext, register
from harness.strategies.rendering import render_call
from harness.view.seat_view import SeatView


@register
class Mixture(Strategy):
    name = "mixture"

    def check(self, scaffold: ScaffoldDef) -> str | None:
        if not scaffold.roles or scaffold.decider is None:
            return "mixture needs roles and a decider (the aggregator)"
        return None

    def calls_per_move(self, scaffold: ScaffoldDef, players: int) -> int:
        return len(_advisers(scaffold, players)) + 1

    async def decide(self, view: SeatView, ctx: TurnContext) -> Decision:
        scaffold = ctx.scaffold
        advisers = _advisers(scaffold, view.num_players)
        answers = await ctx.asker.ask_all([(c, render_call(scaffold, c, view, ctx.memory)) for c in advisers])
        calls = [a.call for a in answers]
        assert scaffold.decider is not None  # check() holds
        reports = [decider_report(view, a) for a in answers]
        messages = render_call(scaffold, scaffold.decider, view, ctx.memory, reports)
        final = await ctx.asker.ask(scaffold.decider, messages, earlier=calls)
        return Decision(reply=final.move, calls=[*calls, final.call])


def _advisers(scaffold: ScaffoldDef, players: int) -> list[CallDef]:
    """The calls made at once before the aggregator: the baseline and the roles that play at this player count."""
    baseline = scaffold.base.model_copy(update={"role": "baseline"})
    return [baseline, *(r for r in scaffold.roles if players >= r.min_players)]
