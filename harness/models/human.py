"""The caller of a seat a person plays (`human` or `human:NAME`): no prompt is sent anywhere. The game loop asks the
person at the seat's desk instead (harness.play.human), which the table page (harness.web.table) serves."""

from __future__ import annotations

from typing import Any

from harness.schema.records import Attempt, Message, SeatConfig


class HumanCaller:
    """The caller of a human seat; `call` is never used (harness.play.human asks the person)."""

    def __init__(self, seat: SeatConfig) -> None:
        self.seat = seat

    @property
    def offline_bot(self) -> str | None:
        return None

    @property
    def caches_prompts(self) -> bool:
        return False

    async def call(
        self, messages: list[Message], metadata: dict[str, Any], first_number: int, max_tokens: int | None = None
    ) -> list[Attempt]:
        raise RuntimeError(f"{self.seat.model} is a person: it is asked through its table page, not a prompt")
