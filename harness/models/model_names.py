"""How a model string is spelled: its provider, and the built-in players' `local/<bot>[@<ms>ms]` names."""

from __future__ import annotations

from harness.schema.errors import Refused

LOCAL_PROVIDER = "local"
# The request metadata key that carries a built-in player's reply, written by the harness from the seat's view
# (harness.strategies.offline_reply) and returned by the offline providers (harness.models.local, Inspect's hanabi/).
OFFLINE_REPLY_KEY = "offline_reply"
MAX_LOCAL_DELAY_MS = 600_000  # ten minutes, the default overall deadline of a request: a longer wait only times out


def provider_of(model: str) -> str:
    return model.split("/", 1)[0]


def parse_local_model(name: str) -> tuple[str, float]:
    """'smart' -> ('smart', 0.0); 'smart@200ms' -> ('smart', 0.2): a built-in player answering after a fixed delay."""
    bot, _, delay = name.partition("@")
    if not delay:
        return bot, 0.0
    digits = delay[:-2] if delay.endswith("ms") else ""
    if not (digits.isascii() and digits.isdigit()) or int(digits) > MAX_LOCAL_DELAY_MS:
        raise Refused(
            f"local model delay {delay!r} must be whole milliseconds up to {MAX_LOCAL_DELAY_MS:,}, "
            f"e.g. local/{bot}@200ms"
        )
    return bot, int(digits) / 1000
