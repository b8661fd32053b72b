"""The direct client: a seat's requests sent straight to an OpenAI-compatible server (vLLM, SGLang, llama.cpp) by
the `openai` SDK's async client, without LiteLLM's per-call work (`hanabi-eval run --client openai --api-base URL`).

It is a ModelCaller with the same contract as the LiteLLM client (harness.models.client), and shares its retry layer,
its reading of an answer and its error records: the overall deadline per request, provider errors retried with
backoff honouring Retry-After (the SDK's own retries off), the same error kinds and error names, finish reasons,
usage, redaction, credentials in the URL sent as a key or as Basic auth, the budget and a prompt_cache_key where the
model takes one. A seat whose model LiteLLM's price list knows gets the same per-token price (or the user's, given
with --price); a self-hosted model has none, as through LiteLLM. The model name sent is the
model string without its route (`openai/NAME` or `hosted_vllm/NAME` sends NAME), as LiteLLM sends it.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from typing import Any

from harness.models.budget import Budget
from harness.models.client import (
    _CONTEXT_OVERFLOW,
    NO_KEY_PLACEHOLDER,
    RetryingCaller,
    RetryPolicy,
    answered,
    check_direct,
    direct_params,
    failed,
    timed_out,
)
from harness.models.prompt_cache import PROMPT_CACHE_KEY
from harness.schema.config import ModelPrice
from harness.schema.records import Attempt, ErrorKind, Message, SeatConfig
from harness.schema.secrets import register_secret, split_credentials

# one SDK client (and its connection pool) per event loop and seat endpoint: an httpx pool belongs to one loop
_CLIENTS: dict[tuple[int, str, str | None, tuple[tuple[str, str], ...]], Any] = {}


class OpenAIClient(RetryingCaller):
    """Calls one seat's OpenAI-compatible server through the `openai` SDK's async client."""

    def __init__(
        self,
        seat: SeatConfig,
        policy: RetryPolicy,
        prompt_cache: bool = True,
        prices: Mapping[str, ModelPrice] | None = None,
        budget: Budget | None = None,
    ) -> None:
        check_direct(seat)
        assert seat.api_base is not None
        self.seat = seat
        self.policy = policy
        self.budget = budget
        self._served = seat.model.split("/", 1)[1]
        self._base, url_key, headers = split_credentials(seat.api_base)
        env_key = os.environ.get("OPENAI_API_KEY")
        register_secret(env_key)
        self._key = url_key or env_key or NO_KEY_PLACEHOLDER
        self._headers = tuple(sorted(headers.items()))
        params = direct_params(seat)
        params.pop("timeout"), params.pop("max_retries")  # the SDK client's settings, not the request body's
        self._body = params
        # the user's price, or one LiteLLM's list knows (a hosted model reached directly); a served one has none
        self.take_prices([seat.model], (prices or {}).get(seat.model), prompt_cache)

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

    async def _once(
        self, messages: list[Message], metadata: dict[str, Any], number: int, max_tokens: int | None = None
    ) -> tuple[Attempt, float | None]:
        body: dict[str, Any] = {"model": self._served, "messages": [m.model_dump() for m in messages], **self._body}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if self.cache == "prompt_cache_key" and metadata.get(PROMPT_CACHE_KEY):
            body["prompt_cache_key"] = metadata[PROMPT_CACHE_KEY]
        from openai.types.chat import ChatCompletion

        client = self._client()
        started = time.perf_counter()
        base = Attempt(number=number, messages=list(messages))
        deadline = self.seat.params.timeout_s
        try:
            async with asyncio.timeout(deadline):  # the whole request, however slowly its bytes arrive
                # the SDK's own route for a chat completion, less `create`'s walk of the body against its typed
                # parameters (13% of this client's time per call in a profile): the body is already plain JSON
                response = await client.post("/chat/completions", body=body, cast_to=ChatCompletion)
        except TimeoutError:
            return timed_out(base, deadline, time.perf_counter() - started), None
        except Exception as exc:
            kind, retryable, name = classify(exc)
            return failed(self.seat.model, base, exc, kind, retryable, time.perf_counter() - started, name)
        latency = time.perf_counter() - started
        attempt = await answered(base, response, latency, None)
        if self.prices is not None:
            attempt = attempt.model_copy(update={"cost_usd": self.prices.cost(attempt.usage)})
        return attempt, None


def classify(exc: Exception) -> tuple[ErrorKind, bool, str | None]:
    """The error kind of an SDK error, whether retrying can help, and the name its record gives it (LiteLLM's name
    where the SDK has none of its own, so that the logs read the same whichever client sent the request)."""
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
    if isinstance(exc, openai.APIResponseValidationError | ValueError):  # a body that is no chat completion
        return "server_error", True, None
    return "bad_request", False, None


def warm_up() -> None:
    """Load now what the SDK loads on its first request (its resources and the pydantic types of a chat completion,
    about a second), so that it is paid before play instead of inside the first move of every game in flight. Sends
    nothing anywhere."""
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
