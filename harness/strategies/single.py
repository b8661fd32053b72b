"""`single`: one call of the scaffold's own prompt (role "player"); its reply's move is the move."""

from __future__ import annotations

from harness.strategies.asking import Decision
from harness.strategies.definition import ScaffoldDef
from harness.strategies.registry import Strategy, TurnContext, register
from harness.strategies.rendering import render_call
from harness.view.seat_view import SeatView


@register
class Single(Strategy):
    name = "single"

    def check(self, scaffold: ScaffoldDef) -> str | None:
        if scaffold.roles or scaffold.decider or scaffold.k != 1:
            return "a single-call scaffold has no roles, decider or k"
        return None

    def calls_per_move(self, scaffold: ScaffoldDef, players: int) -> int:
        return 1

    async def decide(self, view: SeatView, ctx: TurnContext) -> Decision:
        call = ctx.scaffold.base
        answer = await ctx.asker.ask(call, render_call(ctx.scaffold, call, view, ctx.memory))
        return Decision(reply=answer.move, calls=[answer.call])
