"""ModelCaller: what a seat's player needs of whatever answers its prompts (LiteLLM's ModelClient, the direct
OpenAI-compatible client, an Inspect AI model), so that the strict re-ask loop, the logs and the exports are
the same whichever one serves a seat. A caller raises as harness.models.client.RetryingCaller.call does.
"""

from __future__ import annotations

from typing import Any, Protocol

from harness.schema.records import Attempt, Message, SeatConfig


class ModelCaller(Protocol):
    """Answers one seat's prompts: every attempt of a call, the last one with a reply."""

    seat: SeatConfig

    @property
    def offline_bot(self) -> str | None:
        """The built-in player this caller serves (its reply is written from the seat's view and sent in the
        request metadata, harness.models.model_names.OFFLINE_REPLY_KEY); None for a real model."""
        ...

    @property
    def caches_prompts(self) -> bool:
        """Whether the provider caches prompt prefixes (and prompt caching is on): calls that share a prefix are
        then sent one first and the rest when it returns, so that they read its cache."""
        ...

    async def call(
        self,
        messages: list[Message],
        metadata: dict[str, Any],
        first_number: int,
        max_tokens: int | None = None,
    ) -> list[Attempt]: ...
