"""A seat's player: its scaffold's strategy turns a SeatView into a Decision, asking the seat's model.

How replies are read and re-asked is harness.strategies.asking; how a move is decided from them (one call, k
samples and a final agent, advisers and an aggregator, working memory) is the scaffold's strategy.
"""

from __future__ import annotations

from typing import Any

from harness.models.caller import ModelCaller
from harness.models.human import HumanCaller
from harness.play.human import human_decision
from harness.schema.records import SeatConfig
from harness.strategies.asking import Asker, Decision, Journal
from harness.strategies.definition import ScaffoldDef
from harness.strategies.registry import TurnContext, get_strategy
from harness.view.seat_view import SeatView


class SeatAgent:
    def __init__(
        self, config: SeatConfig, scaffold: ScaffoldDef, client: ModelCaller, reply_retries: int
    ) -> None:
        self.config = config
        self.scaffold = scaffold
        self.client = client
        self.reply_retries = reply_retries
        self.strategy = get_strategy(scaffold.strategy)

    async def decide(
        self,
        view: SeatView,
        memory: dict[str, Any] | None = None,
        journal: Journal | None = None,
        cache_key: str | None = None,
    ) -> Decision:
        """The seat's move for this view; raises MoveInterrupted when its model gives no valid reply in the limits.
        Each call's attempts go into `journal` as they arrive (see Asker); `cache_key` names the game-seat's prompt
        cache where the provider takes one. A human seat's move comes from its table page (harness.play.human)."""
        if isinstance(self.client, HumanCaller):
            return await human_decision(view, self.client, [] if journal is None else journal)
        asker = Asker(self.config, self.client, self.reply_retries, view, journal, cache_key)
        return await self.strategy.decide(view, TurnContext(self.scaffold, asker, memory))
