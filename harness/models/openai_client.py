"""The direct client: a seat's requests sent straight to an OpenAI-compatible server (vLLM, SGLang, llama.cpp)
by the `openai` SDK's async client, without LiteLLM's per-call work (`hanabi-eval run --client openai
--api-base URL`).

It shares the LiteLLM client's request path (harness.models.client.RetryingCaller): deadlines, retries, error
kinds and names, usage, redaction, the budget and prices are the same. The model name sent is the model string
without its route (`openai/NAME` or `hosted_vllm/NAME` sends NAME), as LiteLLM sends it.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Awaitable, Callable
from typing import Any

from harness.models.client import (
    _CONTEXT_OVERFLOW,
    NO_KEY_PLACEHOLDER,
    RetryingCaller,
    check_direct,
    sampling_params,
)
from harness.models.prompt_cache import PROMPT_CACHE_KEY
from harness.schema.config import ModelPrice
from harness.schema.records import CacheMark, ErrorKind, Message
from harness.schema.secrets import register_secret, split_credentials

# one SDK client (and its connection pool) per event loop and seat endpoint: an httpx pool belongs to one loop
_CLIENTS: dict[tuple[int, str, str | None, tuple[tuple[str, str], ...]], Any] = {}


class OpenAIClient(RetryingCaller):
    """Calls one seat's OpenAI-compatible server through the `openai` SDK's async client."""

    def _start(self, prompt_cache: bool, given: ModelPrice | None) -> None:
        seat = self.seat
        check_direct(seat)
        assert seat.api_base is not None
        self._served = seat.model.split("/", 1)[1]
        self._base, url_key, headers = split_credentials(seat.api_base)
        env_key = os.environ.get("OPENAI_API_KEY")
        register_secret(env_key)
        self._key = url_key or env_key or NO_KEY_PLACEHOLDER
        self._headers = tuple(sorted(headers.items()))
        self._body = sampling_params(seat)  # the deadline and retries are set on the SDK client
        # the user's price, or one LiteLLM's list knows (a hosted model reached directly); a served one has none
        self.take_prices([seat.model], given, prompt_cache)
        self._rate = self.prices

    def _client(self) -> Any:
        import openai

        loop = asyncio.get_running_loop()
        key = (id(loop), self._base, self._key, self._headers)
        client = _CLIENTS.get(key)
        if client is None:
            client = openai.AsyncOpenAI(
                base_url=self._base,
                api_key=self._key,
                default_headers=dict(self._headers) or None,
                max_retries=0,  # one retry layer: the harness's
                timeout=self.seat.params.timeout_s,
            )
            _CLIENTS[key] = client
        return client

    def _request(
        self, messages: list[Message], metadata: dict[str, Any], max_tokens: int | None
    ) -> tuple[Callable[[], Awaitable[Any]], list[CacheMark]]:
        body: dict[str, Any] = {"model": self._served, "messages": [m.model_dump() for m in messages], **self._body}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if self.cache == "prompt_cache_key" and metadata.get(PROMPT_CACHE_KEY):
            body["prompt_cache_key"] = metadata[PROMPT_CACHE_KEY]
        from openai.types.chat import ChatCompletion

        # the SDK's own route for a chat completion, less `create`'s walk of the body against its typed
        # parameters (13% of this client's time per call in a profile): the body is already plain JSON
        send = functools.partial(self._client().post, "/chat/completions", body=body, cast_to=ChatCompletion)
        return send, []

    def _classify(self, exc: Exception) -> tuple[ErrorKind, bool, str | None]:
        """An SDK error's record names it as LiteLLM would where the SDK has no name of its own, so that the
        logs read the same whichever client sent the request."""
        import openai

        if isinstance(exc, openai.RateLimitError):
            return "rate_limited", True, None
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return "authentication", False, None
        if isinstance(exc, openai.NotFoundError):
            return "not_found", False, None
        if isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError):
            if getattr(exc, "code", None) == "context_length_exceeded" or _CONTEXT_OVERFLOW.search(str(exc)):
                return "context_overflow", False, "ContextWindowExceededError"
            return "bad_request", False, None
        if isinstance(exc, openai.APITimeoutError):
            return "timeout", True, "Timeout"
        if isinstance(exc, openai.APIConnectionError):
            return "connection", True, None
        status = getattr(exc, "status_code", None)
        if isinstance(status, int) and status >= 500:
            return "server_error", True, None
        if isinstance(exc, openai.APIResponseValidationError | ValueError):  # a body, but no chat completion
            return "server_error", True, None
        return "bad_request", False, None


def warm_up() -> None:
    """Load now what the SDK loads on its first request (about a second), so that it is paid before play, not
    in every game's first move. Sends nothing anywhere."""
    import openai
    from openai.types.chat import ChatCompletion

    client = openai.AsyncOpenAI(api_key=NO_KEY_PLACEHOLDER, base_url="http://127.0.0.1:9/v1", max_retries=0)
    _ = client.chat.completions
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    ChatCompletion.model_validate(
        {"id": "warm-up", "object": "chat.completion", "created": 0, "model": "warm-up", "choices": [choice],
         "usage": usage}
    )


async def close_clients() -> None:
    """Close this event loop's SDK clients before the loop ends."""
    loop = id(asyncio.get_running_loop())
    for key in [k for k in _CLIENTS if k[0] == loop]:
        await _CLIENTS.pop(key).close()
