"""`best_of_k` (paper app. E.1): the scaffold's own call sampled k times at once ("sample-1".."sample-k"), then a
final agent (`[decider]`) reads the k replies and must choose one of the sampled moves. With k = 1 the one sample is
the move and no final agent is asked."""

from __future__ import annotations

from harness.strategies.asking import Decision, decider_report
from harness.strategies.definition import ScaffoldDef
from harness.strategies.registry import Strategy, TurnContext, register
from harness.strategies.rendering import render_call
from harness.view.seat_view import SeatView


@register
class BestOfK(Strategy):
    name = "best_of_k"
    takes_k = True

    def check(self, scaffold: ScaffoldDef) -> str | None:
        if scaffold.decider is None or scaffold.roles:
            return "best_of_k needs a decider (the final agent) and no roles"
        return None

    def calls_per_move(self, scaffold: ScaffoldDef, players: int) -> int:
        return scaffold.k + (1 if scaffold.k > 1 else 0)

    def calls_text(self, scaffold: ScaffoldDef) -> str:
        """The listing shows the scaffold's default k; a seat's k changes it."""
        if scaffold.k == 1:
            return "1 (k = 1)"
        return f"k + 1 ({self.calls_per_move(scaffold, 2)} at k = {scaffold.k})"

    async def decide(self, view: SeatView, ctx: TurnContext) -> Decision:
        scaffold = ctx.scaffold
        samples = [scaffold.base.model_copy(update={"role": f"sample-{i + 1}"}) for i in range(scaffold.k)]
        answers = await ctx.asker.ask_all([(c, render_call(scaffold, c, view, ctx.memory)) for c in samples])
        calls = [a.call for a in answers]
        if scaffold.k == 1 or scaffold.decider is None:
            return Decision(reply=answers[0].move, calls=calls)
        reports = [decider_report(view, a) for a in answers]
        sampled = tuple(dict.fromkeys(r["action"] for r in reports))  # the final agent chooses among these only
        messages = render_call(scaffold, scaffold.decider, view, ctx.memory, reports, sampled)
        final = await ctx.asker.ask(scaffold.decider, messages, sampled, earlier=calls)
        return Decision(reply=final.move, calls=[*calls, final.call])
