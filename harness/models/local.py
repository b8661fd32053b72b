"""The built-in offline model: a LiteLLM custom provider, `local/<bot>`, backed by a rule-based Hanabi player.

It answers with the reply the strategy asking the seat wrote from the seat's view
(harness.strategies.offline_reply) and sent in the request metadata, so it goes the same path as any hosted
model. Usage is counted with LiteLLM's bundled tokenizer (cl100k): token figures for offline runs are real
counts of the prompts and replies.
"""

from __future__ import annotations

import asyncio
import os
from functools import lru_cache
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before the import: no price-list download

import litellm
from litellm import CustomLLM

from harness.models.model_names import OFFLINE_REPLY_KEY, parse_local_model

TOKENIZER_MODEL = "gpt-4"


class LocalBotProvider(CustomLLM):
    """Serves `local/<bot-name>`: answers with the bot's reply, which the harness wrote from the seat's view."""

    async def acompletion(self, model: str, messages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Any:
        _, delay = parse_local_model(model.split("/", 1)[-1])
        if delay:
            await asyncio.sleep(delay)
        return self.completion(model, messages, *args, **kwargs)

    def completion(self, model: str, messages: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Any:
        litellm_params = kwargs.get("litellm_params") or {}
        metadata = litellm_params.get("metadata") or {}
        if not isinstance(metadata.get(OFFLINE_REPLY_KEY), str):
            raise litellm.BadRequestError(
                message="local models answer from the seat's view, which only hanabi-eval sends; call them through it",
                model=model,
                llm_provider="local",
            )
        bot_name, _ = parse_local_model(model.split("/", 1)[-1])
        text = metadata[OFFLINE_REPLY_KEY]
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
