"""The built-in offline model: a LiteLLM custom provider, `local/<bot>`, backed by a rule-based Hanabi player.

It goes through the same path as any hosted model (render -> LiteLLM -> parse -> apply -> log). The harness sends
the seat's SeatView in the request metadata (only to this provider); the bot decides from that view alone and the
provider answers in the call's reply format (harness.formats), as text or JSON. Usage is counted with LiteLLM's bundled
tokenizer (cl100k), so token figures for offline runs are real counts of the prompts and replies.
"""

from __future__ import annotations

import asyncio
import os
from functools import lru_cache
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before the import: no price-list download

import litellm
from litellm import CustomLLM

from harness.bots import get_bot
from harness.formats import get_format
from harness.models.model_names import parse_local_model
from harness.schema.cards import COLOR_NAMES
from harness.view.seat_view import SeatView

TOKENIZER_MODEL = "gpt-4"


class LocalBotProvider(CustomLLM):
    """Serves `local/<bot-name>`: reads the seat view from metadata, answers with the bot's decision."""

    async def acompletion(self, model: str, messages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Any:
        _, delay = parse_local_model(model.split("/", 1)[-1])
        if delay:
            await asyncio.sleep(delay)
        return self.completion(model, messages, *args, **kwargs)

    def completion(self, model: str, messages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Any:
        litellm_params = kwargs.get("litellm_params") or {}
        metadata = litellm_params.get("metadata") or {}
        if "view" not in metadata:
            raise litellm.BadRequestError(
                message="local models need the seat view in the request metadata; call them through hanabi-eval",
                model=model,
                llm_provider="local",
            )
        bot_name, _ = parse_local_model(model.split("/", 1)[-1])
        view = SeatView.model_validate(metadata["view"])
        decision = get_bot(bot_name).decide(view)
        text = format_reply(
            view, decision.move_index, decision.ratings, decision.reason, metadata.get("format", "text-move")
        )
        # OpenAI's chat accounting: each message's tokens plus 3, plus 3 to prime the reply
        prompt_tokens = sum(count_tokens(str(m.get("content") or "")) + 3 for m in messages) + 3
        completion_tokens = count_tokens(text)
        return litellm.ModelResponse(
            model=f"local/{bot_name}",
            choices=[
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
            ],
            usage={
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        )


@lru_cache(maxsize=4096)
def count_tokens(text: str) -> int:
    """cl100k tokens of a text (LiteLLM's bundled tokenizer); the system prompt repeats, so counts are cached."""
    return litellm.token_counter(model=TOKENIZER_MODEL, text=text)


def deductions_of(view: SeatView) -> dict[str, Any]:
    """A complete deduction block in the Mycroft contract, taken from the could-be sets in the view."""

    def cards(knowledge_list: list[Any]) -> list[dict[str, Any]]:
        return [
            {"card": i, "colors": list(k.could_be_colors), "ranks": list(k.could_be_ranks)}
            for i, k in enumerate(knowledge_list)
        ]

    block = {f"player_{view.seat}": cards([c.knowledge for c in view.own_hand])}
    for hand in view.others:
        block[f"player_{hand.player}"] = cards([c.knowledge for c in hand.cards])
    return block


def paper_deduction_of(view: SeatView) -> dict[str, dict[str, str]]:
    """The paper's Mycroft deduction block ("you", "player+1", ...; "card0", ...), in words, from the view's
    could-be sets: what a player was told directly is "is", the rest "could be"."""

    def text(k: Any) -> str:
        color = f"color is {COLOR_NAMES[k.color]}" if k.color else f"color could be {', '.join(k.could_be_colors)}"
        rank = f"rank is {k.rank}" if k.rank else f"rank could be {', '.join(map(str, k.could_be_ranks))}"
        return f"{color}; {rank}"

    block = {"you": {f"card{c.index}": text(c.knowledge) for c in view.own_hand}}
    for hand in view.others:
        block[f"player+{hand.offset}"] = {f"card{c.index}": text(c.knowledge) for c in hand.cards}
    return block


def format_reply(view: SeatView, action: int, ratings: list[float], reason: str, reply_format: str) -> str:
    """The reply text a well-behaved model would send in this reply format (harness.formats)."""
    if reply_format == "report":
        return f"Recommended move: {action} {view.legal_moves[action].description}.\nAnalysis: {reason}"
    fmt = get_format(reply_format)
    extras: dict[str, Any] = {}
    if "deductions" in fmt.fields:
        extras = {"deductions": deductions_of(view)}
    elif "deduction" in fmt.fields:
        extras = {"deduction": paper_deduction_of(view)}
    return fmt.write(action, [(i, round(r, 3)) for i, r in enumerate(ratings)], reason, extras)
