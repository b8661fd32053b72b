"""ModelCaller: what a seat's player needs of whatever answers its prompts.

ModelClient (LiteLLM) is the caller of `hanabi-eval run`; other callers (a direct OpenAI-compatible client, an
Inspect AI model) answer through the same interface, so the strict ask / re-ask loop, the logs and the exports are
the same whichever one serves a seat. A caller returns every attempt of one call, failed ones included, the last
with a reply; it raises ProviderGaveUp when provider errors outlast its retries, FatalModelError on an error that
retrying cannot fix (both in harness.models.client) and BudgetReached (harness.models.budget) for a request it did
not send because it could take the spend past the session's budget.
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
