"""The caller of each seat: LiteLLM (harness.models.client) unless the seat chose the direct OpenAI-compatible
client (harness.models.openai_client, `--client openai`)."""

from __future__ import annotations

from harness.models import client, openai_client
from harness.models.budget import Budget
from harness.models.caller import ModelCaller
from harness.models.client import ModelClient
from harness.models.human import HumanCaller
from harness.models.openai_client import OpenAIClient
from harness.schema.config import SessionOptions
from harness.schema.records import SeatConfig


def caller_for(seat: SeatConfig, options: SessionOptions, budget: Budget | None = None) -> ModelCaller:
    """The ModelCaller that sends this seat's requests, with the session's retries, prompt caching and prices, within
    its `budget` (a human seat's: its table page)."""
    if seat.human:
        return HumanCaller(seat)
    if seat.client == "openai":
        return OpenAIClient(seat, options.retry, options.prompt_cache, options.prices, budget)
    return ModelClient(seat, options.retry, options.prompt_cache, options.prices, budget)


def load_clients(seats: list[SeatConfig]) -> None:
    """Import each seat's client library here, so that worker processes forked from it inherit it (an import
    starts no thread, so forking afterwards is safe; the warm-up, which does, stays in the workers)."""
    if any(seat.client == "litellm" and not seat.human for seat in seats):
        client.litellm()
    if any(seat.client == "openai" for seat in seats):
        import openai  # noqa: F401


def warm_up(seats: list[SeatConfig]) -> None:
    """Load what each client loads on its first call, before play (see client.warm_up, openai_client.warm_up)."""
    through_litellm = {seat.model for seat in seats if seat.client == "litellm" and not seat.human}
    if through_litellm:  # its tokenizer alone is 0.2 s of each worker's CPU, which direct seats never use
        client.warm_up(through_litellm)
    if any(seat.client == "openai" for seat in seats):
        openai_client.warm_up()


async def close_callers() -> None:
    """Close every client's pooled connections of this event loop before it ends."""
    await client.close_clients()
    await openai_client.close_clients()
