"""A model's prices: given by the user (--price, a sweep file's prices) or read from LiteLLM's bundled price list, with
its prompt cache's read and write prices; what usage costs at them, and what prompt caching saved.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from harness.models.model_names import LOCAL_PROVIDER, provider_of
from harness.schema.config import ModelPrice
from harness.schema.errors import Refused
from harness.schema.records import SeatConfig, Usage

PER_MILLION = 1_000_000


class Prices(NamedTuple):
    """USD per token: input, output, and the prompt cache's reads and writes (as the input where there are none)."""

    input: float
    output: float
    cache_read: float
    cache_write: float

    def cost(self, usage: Usage) -> float:
        """What `usage` costs: fresh prompt tokens at the input price, cache reads and writes at theirs."""
        fresh = max(0, usage.prompt_tokens - usage.cached_tokens - usage.cache_write_tokens)
        return (
            fresh * self.input
            + usage.cached_tokens * self.cache_read
            + usage.cache_write_tokens * self.cache_write
            + usage.completion_tokens * self.output
        )

    def saving(self, usage: Usage) -> float:
        """What prompt caching saved on `usage` against the same prompt sent uncached (negative when the writes cost
        more than the reads saved)."""
        return usage.cached_tokens * (self.input - self.cache_read) - usage.cache_write_tokens * (
            self.cache_write - self.input
        )


FREE = Prices(0.0, 0.0, 0.0, 0.0)


def given_prices(price: ModelPrice) -> Prices:
    """A user's prices (USD per million tokens) per token."""
    read = price.input if price.cache_read is None else price.cache_read
    write = price.input if price.cache_write is None else price.cache_write
    return Prices(price.input / PER_MILLION, price.output / PER_MILLION, read / PER_MILLION, write / PER_MILLION)


def entry_of(model: str, price_list: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any]:
    """A model's entry in LiteLLM's price list (by its model string or its name without provider), or {}."""
    return price_list.get(model) or price_list.get(model.split("/", 1)[-1]) or {}


def listed_prices(model: str, price_list: Mapping[str, Mapping[str, object]]) -> Prices | None:
    """A model's prices in LiteLLM's price list, None where it has no input or output price for it."""
    entry = entry_of(model, price_list)
    inputs, outputs = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if not isinstance(inputs, int | float) or not isinstance(outputs, int | float):
        return None
    read, write = entry.get("cache_read_input_token_cost"), entry.get("cache_creation_input_token_cost")
    return Prices(
        float(inputs),
        float(outputs),
        float(read) if isinstance(read, int | float) else float(inputs),
        float(write) if isinstance(write, int | float) else float(inputs),
    )


def longest_reply(seat: SeatConfig, model: str, price_list: Mapping[str, Mapping[str, object]]) -> int | None:
    """The most tokens one reply of the seat may take: its --max-tokens (or the larger limit a truncated reply is
    asked again with), else the model's largest output in LiteLLM's list; None where neither is known."""
    params = seat.params
    if params.max_tokens is not None:
        return max(params.max_tokens, params.max_tokens_on_truncation or 0)
    entry = entry_of(model, price_list)
    for key in ("max_output_tokens", "max_tokens"):
        value = entry.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return None


def check_budget_prices(
    seats: Iterable[SeatConfig],
    given: Mapping[str, ModelPrice],
    price_list: Mapping[str, Mapping[str, object]],
    listed: Callable[[str], bool],
) -> None:
    """With a budget (--max-cost) every model a seat calls needs a price (LiteLLM's, or one the user gave) and a
    largest reply (--max-tokens, or LiteLLM's), so that what a call could cost is known before it is sent. Raises
    Refused naming the first model without one, and how to give it. `listed`: whether the price list's entry of a
    model is LiteLLM's (not one the harness listed at $0)."""
    for seat in seats:
        for model in seat.models:
            if provider_of(model) == LOCAL_PROVIDER and model not in given:
                continue  # a built-in player costs nothing unless the user prices it
            if model not in given and not (listed(model) and listed_prices(model, price_list) is not None):
                raise Refused(
                    f"--max-cost needs the price of {model}, which LiteLLM does not list; give it with --price "
                    f"{model}=INPUT,OUTPUT (USD per million tokens), or run without --max-cost"
                )
            if longest_reply(seat, model, price_list) is None:
                raise Refused(
                    f"--max-cost needs the longest reply {model} may send, which LiteLLM does not list; a run "
                    "started with --max-tokens (or the seat's max_tokens) has one, else play without --max-cost"
                )
