"""How a model string is spelled: its provider, and the built-in players' `local/<bot>[@<ms>ms]` names."""

from __future__ import annotations

LOCAL_PROVIDER = "local"
# The request metadata key that carries a built-in player's reply, written by the harness from the seat's view
# (harness.strategies.offline_reply) and returned by the offline providers (harness.models.local, Inspect's hanabi/).
OFFLINE_REPLY_KEY = "offline_reply"


class ModelSpecError(ValueError):
    """A model string or its settings cannot be used; the message names the problem and the fix."""


def provider_of(model: str) -> str:
    return model.split("/", 1)[0]


def parse_local_model(name: str) -> tuple[str, float]:
    """'smart' -> ('smart', 0.0); 'smart@200ms' -> ('smart', 0.2): a built-in player answering after a fixed delay."""
    bot, _, delay = name.partition("@")
    if not delay:
        return bot, 0.0
    if not delay.endswith("ms") or not delay[:-2].isdigit():
        raise ModelSpecError(
            f"local model delay {delay!r} must be whole milliseconds, e.g. local/{bot}@200ms"
        )
    return bot, int(delay[:-2]) / 1000
