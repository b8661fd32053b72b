"""Rule-based Hanabi players that see only a SeatView: baselines and reference partners for the LLM seats.

`get_bot("smart")` returns the recommended default; `bot_names()` lists every registered bot.
"""

from __future__ import annotations

from harness.bots.base import Bot, BotDecision
from harness.bots.cautious import CautiousBot
from harness.bots.smart import SmartBot

DEFAULT_BOT = "smart"

BOTS: dict[str, type[Bot]] = {cls.name: cls for cls in (SmartBot, CautiousBot)}


def bot_names() -> list[str]:
    return list(BOTS)


def get_bot(name: str) -> Bot:
    """A fresh instance of the bot registered as `name`; KeyError naming the known bots otherwise."""
    try:
        return BOTS[name]()
    except KeyError:
        raise KeyError(f"unknown bot {name!r}; known bots: {', '.join(BOTS)}") from None


__all__ = ["BOTS", "DEFAULT_BOT", "Bot", "BotDecision", "bot_names", "get_bot"]
