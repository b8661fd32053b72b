"""The only module that calls LiteLLM: model-string checks, one request, and provider-error retries.

LiteLLM is imported lazily (commands that call no model stay fast) with its bundled price list (no network at
import). Tenacity here is the one retry layer: LiteLLM's own retries and the SDKs' are switched off, so waits
never multiply. Every attempt, failed or not, is returned as an Attempt record, its reply, reasoning and error
redacted of secrets before anything else sees them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import os
import random
import re
import sys
import time
import warnings
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterable, Mapping
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Any, TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from harness.models import retry_events
from harness.models.budget import Budget, BudgetReached
from harness.models.model_names import LOCAL_PROVIDER, parse_local_model, provider_of
from harness.models.pricing import (
    FREE,
    Prices,
    check_budget_prices,
    given_prices,
    listed_prices,
    longest_reply,
)
from harness.models.prompt_cache import (
    PROMPT_CACHE_KEY,
    CacheStyle,
    cache_style,
    minimum_tokens,
    place_marks,
    wire_messages,
)
from harness.schema.config import ModelPrice, RetryPolicy, SessionOptions
from harness.schema.errors import Refused
from harness.schema.records import Attempt, CacheMark, ErrorKind, Message, SeatConfig, Usage, storable
from harness.schema.secrets import redact, register_secret, safe_url, split_credentials

# Sent to OpenAI-compatible servers given by --api-base when no key is set.
NO_KEY_PLACEHOLDER = "no-key-needed"
ROUTER_ALIAS = "hanabi-seat"  # the Router's name for a seat's model, whatever its deployments serve


class FatalModelError(RuntimeError):
    """An error that retrying cannot fix (bad key, unknown model, context window exceeded); the attempt carries
    its error kind, and `earlier` the same call's attempts before it (provider errors that were retried)."""

    def __init__(self, message: str, attempt: Attempt, earlier: list[Attempt] | None = None) -> None:
        super().__init__(message)
        self.attempt = attempt
        self.earlier = earlier or []

    @property
    def attempts(self) -> list[Attempt]:
        """Every attempt of the call, the fatal one last: each goes into the log and the error counts."""
        return [*self.earlier, self.attempt]


class ProviderGaveUp(RuntimeError):
    """Provider errors went on past the retry limit."""

    def __init__(self, message: str, attempts: list[Attempt]) -> None:
        super().__init__(message)
        self.attempts = attempts


class _Retryable(Exception):
    def __init__(self, attempt: Attempt, retry_after: float | None) -> None:
        super().__init__(attempt.error)
        self.attempt = attempt
        self.retry_after = retry_after


_litellm: Any = None


def litellm() -> Any:  # the litellm module: its attributes are set at run time, so it is typed loosely
    """Import LiteLLM once, offline-safe and quiet, with the local provider registered."""
    global _litellm
    if _litellm is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("LITELLM_LOG", "ERROR")
        import litellm as module

        module.suppress_debug_info = True
        module.set_verbose = False
        module.num_retries = 0
        # imported here, not at the top: local.py imports LiteLLM, which is loaded only when first needed
        from harness.models.local import LocalBotProvider

        module.custom_provider_map = [{"provider": LOCAL_PROVIDER, "custom_handler": LocalBotProvider()}]
        _litellm = module
    return _litellm


def native_runtime_started() -> bool:
    """Whether LiteLLM's Rust extension has started its runtime in this process (a Router's cooldowns, a native
    tokenizer). Its threads do not survive fork(): a process forked afterwards fails every native call
    (litellm.rust_bridge.fork_guard), so worker processes must then be spawned instead."""
    native = sys.modules.get("litellm.rust_bridge._native")
    started = getattr(native, "process_state_started", None)
    return bool(started()) if callable(started) else False


def warm_up(models: Iterable[str]) -> None:
    """Load now what LiteLLM loads on its first call (its tokenizer, a few hundred pydantic types), so that it
    is paid before play, not in every game's first move. Mock completions send nothing; a failure is left to
    the real call."""
    lib = litellm()
    with contextlib.suppress(Exception):
        _ = lib.encoding
    providers: dict[str, str] = {}
    for model in models:
        providers.setdefault(provider_of(model), model)
    for model in providers.values():
        with contextlib.suppress(Exception):
            lib.completion(model=model, messages=[{"role": "user", "content": "warm-up"}], mock_response="ok")


def check_model(seat: SeatConfig, built_in: Collection[str]) -> None:
    """Reject a malformed model string, a built-in player not among `built_in` (the names `local/` may take: the
    bots of harness.bots, which this layer does not import) or a hosted provider without its key, before any call."""
    model = seat.model
    if seat.human:  # a person at the table page: nothing is called (its name is checked where it is parsed)
        return
    if "/" not in model or not all(model.split("/", 1)) or any(c.isspace() for c in model):
        raise Refused(
            f"model {model!r} is not a LiteLLM model string; write provider/name, e.g. openai/gpt-4.1 or local/smart"
        )
    provider = provider_of(model)
    if seat.client == "openai":
        check_direct(seat)
        return
    if provider == LOCAL_PROVIDER:
        name, _ = parse_local_model(model.split("/", 1)[1])
        if name not in built_in:
            raise Refused(f"no built-in player {name!r}; use one of: local/{', local/'.join(built_in)}")
        if seat.api_base or seat.deployments:
            raise Refused(
                f"{model} is a built-in player, played in this process: it is served from no URL; drop --api-base "
                "(or the seat's api_base=) for it"
            )
        return
    lib = litellm()
    if provider not in lib.provider_list:
        raise Refused(
            f"unknown provider {provider!r} in {model!r}; use a LiteLLM provider such as openai, anthropic, gemini, "
            "xai, deepseek, hosted_vllm or ollama"
        )
    for deployment in seat.deployments:
        if deployment.api_key_env:
            if not os.environ.get(deployment.api_key_env):
                raise Refused(
                    f"a deployment of {model} reads its key from {deployment.api_key_env}, which is not set; "
                    "export it"
                )
        elif missing := _missing_keys(lib, deployment.model or model, deployment.api_base):
            raise Refused(
                f"a deployment of {model} needs {' and '.join(missing)} in the environment; export it, or name the "
                "variable that holds its key with api_key_env"
            )
    if seat.deployments:
        return
    if missing := _missing_keys(lib, model, seat.api_base):
        other = "" if seat.api_base else ", or pass --api-base for a local OpenAI-compatible server"
        raise Refused(f"{model} needs {' and '.join(missing)} in the environment; export it{other}")


def _missing_keys(lib: Any, model: str, api_base: str | None) -> list[str]:
    """The environment variables LiteLLM needs for `model` at `api_base` and does not find. An OpenAI-compatible
    server of the user's own needs none (it is sent a placeholder key), nor one whose URL holds its key."""
    if api_base and (provider_of(model) in DIRECT_PROVIDERS or split_credentials(api_base)[1]):
        return []
    base = split_credentials(api_base)[0] if api_base else None
    missing = list(lib.validate_environment(model, api_base=base).get("missing_keys") or [])
    # LiteLLM's check misses the key its custom_openai route sends, and calls no server without
    unsaid = provider_of(model) == "custom_openai" and "OPENAI_API_KEY" not in missing
    if unsaid and not os.environ.get("OPENAI_API_KEY"):
        missing.append("OPENAI_API_KEY")
    return missing


def check_budget(seats: Iterable[SeatConfig], options: SessionOptions) -> None:
    """Refuse a --price for a model no seat plays (a typo would leave the real model at LiteLLM's price) and, with a
    budget (--max-cost), a seat whose model has no price (LiteLLM's or --price) or no known longest reply
    (harness.models.pricing.check_budget_prices), before any call."""
    seats = list(seats)
    played = {model for seat in seats for model in seat.models}
    stray = sorted(set(options.prices) - played)
    if stray:
        model = stray[0]
        raise Refused(
            f"--price {model}: no seat plays {model!r} (the seats play {', '.join(sorted(played))}); give each "
            "price for a model string as --model or --seat names it"
        )
    if options.max_cost_usd is not None:
        check_budget_prices(seats, options.prices, litellm().model_cost, _is_priced)


def price_of(model: str, given: Mapping[str, ModelPrice]) -> Prices | None:
    """A model's prices per token: the user's (--price), else LiteLLM's, $0 for a built-in player; None where none
    is known."""
    if model in given:
        return given_prices(given[model])
    if provider_of(model) == LOCAL_PROVIDER:
        return FREE
    return listed_prices(model, litellm().model_cost) if _is_priced(model) else None


# The model-string routes the direct client serves: LiteLLM's names for an OpenAI-compatible server.
DIRECT_PROVIDERS = ("openai", "hosted_vllm")


def check_direct(seat: SeatConfig) -> None:
    """Reject a seat the direct OpenAI-compatible client cannot serve, before any call is made."""
    provider = provider_of(seat.model)
    if provider not in DIRECT_PROVIDERS:
        raise Refused(
            f"--client openai serves OpenAI-compatible servers (models openai/NAME or hosted_vllm/NAME), not "
            f"{seat.model}; drop --client openai to call it through LiteLLM"
        )
    if not seat.api_base:
        raise Refused(
            f"--client openai needs --api-base, the server's URL (e.g. http://127.0.0.1:8000/v1) for {seat.model}"
        )
    if seat.deployments:
        raise Refused(
            "--client openai sends to one server; a model spread over deployments is served through LiteLLM's Router"
        )
    if seat.params.thinking_budget is not None:
        raise Refused(
            "--client openai sends no thinking budget (LiteLLM maps it per provider); drop --thinking-budget or "
            "--client openai"
        )


# What a request could cost is counted with LiteLLM's tokenizer for the model, which may count fewer tokens than the
# provider's own: the prompt's count is raised by this share, and by a few tokens per message for its framing.
PROMPT_MARGIN = 1.25
MESSAGE_TOKENS = 8


class RetryingCaller(ABC):
    """The one retry layer every ModelCaller of the harness shares: a call is sent (`_once`) until the provider
    answers, provider errors retried with full-jitter exponential backoff or the Retry-After the provider asked for.
    Each request is first put to the session's budget (`budget`, when it has one) at what it could cost at most, and
    is not sent when it does not fit (BudgetReached). Subclasses build one request each (`_request`) and name
    its errors (`_classify`); they are stateless between calls and safe to share across concurrent games."""

    prices: Prices | None = None  # USD per token of the seat's model, when known
    cache: CacheStyle | None = None  # how the seat's prompts are cached (None: prompt caching off or not offered)
    longest_reply: int | None = None  # the most tokens a reply may take (the budget's count of a call)
    priced = False  # whether the cost the provider reports (LiteLLM's) is recorded
    _rate: Prices | None = None  # else the prices an answer's cost is counted at from its usage, if any

    def __init__(
        self,
        seat: SeatConfig,
        policy: RetryPolicy,
        prompt_cache: bool = True,
        prices: Mapping[str, ModelPrice] | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.seat = seat
        self.policy = policy
        self.budget = budget
        self._start(prompt_cache, (prices or {}).get(seat.model))

    @abstractmethod
    def _start(self, prompt_cache: bool, given: ModelPrice | None) -> None:
        """Set up the seat's client, with the user's price of its model (`given`) where there is one."""

    def take_prices(self, models: Collection[str], given: ModelPrice | None, prompt_cache: bool) -> None:
        """The seat's prices (the user's `given`, else LiteLLM's list), the longest reply any of the `models` it calls
        may give, and how its prompts are cached (none with `prompt_cache` off)."""
        price_list = litellm().model_cost
        listed = listed_prices(self.seat.model, price_list) if _is_priced(self.seat.model) else None
        self.prices = given_prices(given) if given is not None else listed
        replies = [longest_reply(self.seat, model, price_list) for model in models]
        self.longest_reply = max((r for r in replies if r is not None), default=None)
        self.cache = cache_style(self.seat.model, price_list) if prompt_cache else None

    @property
    def offline_bot(self) -> str | None:  # as harness.models.caller.ModelCaller says
        return None

    @property
    def caches_prompts(self) -> bool:
        return self.cache is not None

    def worst_case(self, messages: list[Message], max_tokens: int | None) -> float:
        """What one request could cost at most: its prompt (counted with a margin, PROMPT_MARGIN), all written to a
        prompt cache where that costs more, and its longest reply, at the model's prices."""
        prices = self.prices or FREE
        if prices == FREE:
            return 0.0
        prompt = sum(count_tokens(self.seat.model, m.content) for m in messages)
        tokens = math.ceil(prompt * PROMPT_MARGIN) + MESSAGE_TOKENS * len(messages)
        rate = max(prices.input, prices.cache_write) if self.cache == "cache_control" else prices.input
        return tokens * rate + (max_tokens or self.longest_reply or 0) * prices.output

    async def _paid(
        self,
        messages: list[Message],
        metadata: dict[str, Any],
        number: int,
        max_tokens: int | None,
        earlier: list[Attempt],
    ) -> tuple[Attempt, float | None]:
        """One request within the budget: refused (BudgetReached, with the call's `earlier` attempts) when what it
        could cost does not fit, else sent, its reservation settled at what it cost; an answer with prompt-cache
        tokens gets what caching saved at the model's prices."""
        budget = self.budget
        reserved = self.worst_case(messages, max_tokens) if budget is not None else 0.0
        if budget is not None and not budget.reserve(reserved):
            raise BudgetReached(
                f"{self.seat.model}: the next request was not sent: it could cost up to ${reserved:.4f}, which would "
                f"take the spend past the budget (--max-cost ${budget.limit:g})",
                list(earlier),
            )
        cost = reserved  # a request cut short (a stop) may still be charged: counted at most
        try:
            attempt, wait = await self._once(messages, metadata, number, max_tokens)
            cost = attempt.cost_usd or 0.0
        except FatalModelError as exc:
            cost = exc.attempt.cost_usd or 0.0
            raise
        finally:
            if budget is not None:
                budget.settle(reserved, cost)
        usage = attempt.usage
        if self.prices is not None and (usage.cached_tokens or usage.cache_write_tokens):
            attempt = attempt.model_copy(update={"cache_saving_usd": self.prices.saving(usage)})
        return attempt, wait

    async def call(
        self,
        messages: list[Message],
        metadata: dict[str, Any],
        first_number: int,
        max_tokens: int | None = None,
    ) -> list[Attempt]:
        """Send `messages` until the provider answers; return every attempt, the last one with a reply.
        `max_tokens` overrides the seat's limit for this call (a re-ask after a truncated reply, when
        allowed). Raises ProviderGaveUp, FatalModelError or BudgetReached."""
        attempts: list[Attempt] = []
        # The first request goes out directly: most calls need no retry, and setting up tenacity's loop for every
        # call showed in a profile. A retryable failure hands over to the loop, as its first attempt.
        first = await self._paid(messages, metadata, first_number, max_tokens, [])
        if first[0].error_kind is None:
            return [first[0]]
        pending: tuple[Attempt, float | None] | None = first
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.policy.provider_retries + 1),
            wait=self._wait,
            retry=retry_if_exception_type(_Retryable),
            reraise=True,
            before_sleep=self._announce,
        )
        try:
            async for state in retrying:
                with state:
                    if pending is not None:
                        (attempt, retry_after), pending = pending, None
                    else:
                        attempt, retry_after = await self._paid(
                            messages, metadata, first_number + len(attempts), max_tokens, attempts
                        )
                    attempts.append(attempt)
                    if attempt.error_kind is not None:
                        raise _Retryable(attempt, retry_after)
        except FatalModelError as exc:  # after retried errors: those attempts are the call's too
            exc.earlier = [*attempts, *exc.earlier]
            raise
        except BudgetReached as exc:
            exc.attempts = list(attempts)
            raise
        except _Retryable as exc:
            raise ProviderGaveUp(
                f"{self.seat.model}: provider kept failing after {len(attempts)} attempts ({exc.attempt.error})",
                attempts,
            ) from None
        return attempts

    def _wait(self, state: RetryCallState) -> float:
        """The provider's Retry-After (capped), else full jitter up to an exponential ceiling."""
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, _Retryable) and exc.retry_after is not None:
            return min(exc.retry_after, self.policy.wait_max_s)
        ceiling = min(self.policy.wait_max_s, self.policy.wait_base_s * 2 ** (state.attempt_number - 1))
        return random.uniform(0, ceiling)

    def _announce(self, state: RetryCallState) -> None:
        """Say a back-off as it starts. Tenacity computes a wait before it decides to stop, so the wait itself is no
        sign that a retry follows; this runs only before a retry's sleep."""
        exc = state.outcome.exception() if state.outcome else None
        kind = exc.attempt.error_kind if isinstance(exc, _Retryable) else None
        retry_events.backoff(self.seat.model, kind, state.upcoming_sleep)

    @abstractmethod
    def _request(
        self, messages: list[Message], metadata: dict[str, Any], max_tokens: int | None
    ) -> tuple[Callable[[], Awaitable[Any]], list[CacheMark]]:
        """What sends one request (an OpenAI-shaped chat completion comes back) and its prompt-cache marks."""

    @abstractmethod
    def _classify(self, exc: Exception) -> tuple[ErrorKind, bool, str | None]:
        """A provider error's kind, whether retrying can help, and the name its record gives it (None: its
        class's)."""

    async def _once(
        self, messages: list[Message], metadata: dict[str, Any], number: int, max_tokens: int | None = None
    ) -> tuple[Attempt, float | None]:
        """One request. Returns the attempt and, for a retryable provider error, the wait the provider asked for;
        raises FatalModelError for an error that retrying cannot fix."""
        send, marks = self._request(messages, metadata, max_tokens)
        started = time.perf_counter()
        base = Attempt(number=number, messages=list(messages), cache_marks=marks or None)
        deadline = self.seat.params.timeout_s
        try:
            async with asyncio.timeout(deadline):  # the whole request, however slowly its bytes arrive
                response = await send()
        except TimeoutError:
            error = f"Timeout: no complete answer within the {deadline:g} s deadline (--timeout)"
            update = {"error_kind": "timeout", "error": error, "latency_s": time.perf_counter() - started}
            return base.model_copy(update=update), None
        except Exception as exc:
            kind, retryable, name = self._classify(exc)
            latency = time.perf_counter() - started
            error = _safe_error(exc, name)
            attempt = base.model_copy(update={"error_kind": kind, "error": error, "latency_s": latency})
            if not retryable:
                raise FatalModelError(f"{self.seat.model}: {error}", attempt) from None
            return attempt, _retry_after(exc)
        latency = time.perf_counter() - started
        attempt = await answered(base, response, latency, _cost_of(response) if self.priced else None)
        if self._rate is not None:
            attempt = attempt.model_copy(update={"cost_usd": self._rate.cost(attempt.usage)})
        return attempt, None


class ModelClient(RetryingCaller):
    """Calls one seat's model through LiteLLM: with prompt-cache marks or key where the provider takes them
    (`prompt_cache`), at the user's `prices` where given, within the session's `budget` where it has one."""

    def _start(self, prompt_cache: bool, given: ModelPrice | None) -> None:
        seat = self.seat
        self._router: Any = None
        # --api-base without its credentials, and those credentials as the provider expects them
        self._endpoint = split_credentials(seat.api_base) if seat.api_base else None
        self._rate = given_prices(given) if given is not None else None  # the user's prices, not LiteLLM's
        if provider_of(seat.model) == LOCAL_PROVIDER:
            list_at_zero_price(seat.model)
            self.priced = True  # offline models cost nothing, or what the user's --price says (budget included)
            self.take_prices({seat.model}, given, prompt_cache)
            return
        # LiteLLM knows the price of every model the seat may call; otherwise no cost is recorded
        models = set(seat.models)
        self.priced = given is not None or all(_is_priced(model) for model in models)
        self.take_prices(models, given, prompt_cache)
        for model in models:
            if not _is_priced(model):
                list_at_zero_price(model)

    def _deployment_router(self) -> Any:
        """A LiteLLM Router over the seat's deployments, with its own retries and cooldowns switched off."""
        if self._router is None:
            model_list = []
            for deployment in self.seat.deployments:
                params: dict[str, Any] = {"model": deployment.model or self.seat.model}
                url_key: str | None = None
                if deployment.api_base:
                    params["api_base"], url_key, headers = split_credentials(deployment.api_base)
                    if headers:
                        params["extra_headers"] = headers
                key = os.environ.get(deployment.api_key_env) if deployment.api_key_env else None
                register_secret(key)
                if key or url_key:
                    params["api_key"] = key or url_key
                elif deployment.api_base and provider_of(params["model"]) in DIRECT_PROVIDERS:
                    params["api_key"] = NO_KEY_PLACEHOLDER
                for limit in ("rpm", "tpm", "max_parallel_requests"):
                    if getattr(deployment, limit) is not None:
                        params[limit] = getattr(deployment, limit)
                model_list.append({"model_name": ROUTER_ALIAS, "litellm_params": params})
            limited = any(d.rpm or d.tpm for d in self.seat.deployments)
            self._router = litellm().Router(
                model_list=model_list,
                num_retries=0,
                disable_cooldowns=True,
                routing_strategy="usage-based-routing-v2" if limited else "simple-shuffle",
            )
        return self._router

    @property
    def offline_bot(self) -> str | None:
        if provider_of(self.seat.model) != LOCAL_PROVIDER:
            return None
        return parse_local_model(self.seat.model.split("/", 1)[1])[0]

    def _request(
        self, messages: list[Message], metadata: dict[str, Any], max_tokens: int | None
    ) -> tuple[Callable[[], Awaitable[Any]], list[CacheMark]]:
        lib = litellm()
        marks = self._marks(messages)
        kwargs: dict[str, Any] = {
            "model": self.seat.model,
            "messages": wire_messages(messages, marks),
            **sent_params(self.seat),
        }
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        if self.cache == "prompt_cache_key" and metadata.get(PROMPT_CACHE_KEY):
            kwargs["prompt_cache_key"] = metadata[PROMPT_CACHE_KEY]
        if self._endpoint is not None:
            kwargs["api_base"], url_key, headers = self._endpoint
            if headers:
                kwargs["extra_headers"] = headers
            if url_key:
                kwargs["api_key"] = url_key
            elif provider_of(self.seat.model) in DIRECT_PROVIDERS and not os.environ.get("OPENAI_API_KEY"):
                kwargs["api_key"] = NO_KEY_PLACEHOLDER
        if provider_of(self.seat.model) == LOCAL_PROVIDER:
            kwargs["metadata"] = metadata
        send = lib.acompletion
        if self.seat.deployments:
            send = self._deployment_router().acompletion
            kwargs["model"] = ROUTER_ALIAS
            for key in ("api_base", "api_key", "extra_headers"):
                kwargs.pop(key, None)
        return functools.partial(send, **kwargs), marks

    def _classify(self, exc: Exception) -> tuple[ErrorKind, bool, str | None]:
        lib = litellm()
        if isinstance(exc, lib.RateLimitError):
            return "rate_limited", True, None
        if isinstance(exc, lib.ContextWindowExceededError):
            return "context_overflow", False, None
        if isinstance(exc, lib.AuthenticationError | lib.PermissionDeniedError):
            return "authentication", False, None
        if isinstance(exc, lib.NotFoundError):
            return "not_found", False, None
        if isinstance(exc, lib.BadRequestError | lib.UnprocessableEntityError):
            # servers LiteLLM does not map (llama.cpp: "exceeds the ... context")
            return ("context_overflow" if _CONTEXT_OVERFLOW.search(str(exc)) else "bad_request"), False, None
        if isinstance(exc, lib.Timeout):
            return "timeout", True, None
        text = str(exc).lower()  # LiteLLM reports refused and dropped connections as InternalServerError
        dropped = "connection error" in text or "cannot connect to host" in text
        if isinstance(exc, lib.APIConnectionError) or dropped:
            return "connection", True, None
        status = getattr(exc, "status_code", None)
        if isinstance(exc, lib.InternalServerError | lib.ServiceUnavailableError | lib.BadGatewayError) or (
            isinstance(status, int) and status >= 500
        ):
            return "server_error", True, None
        return "bad_request", False, None

    def _marks(self, messages: list[Message]) -> list[CacheMark]:
        """The prompt-cache breakpoints of a request to a provider that takes cache_control marks (none for
        others): prompt_cache.place_marks with the model's minimum, tokens counted by LiteLLM."""
        if self.cache != "cache_control":
            return []
        model = self.seat.model
        return place_marks(messages, minimum_tokens(model), lambda text: count_tokens(model, text))


async def answered(base: Attempt, response: Any, latency: float, cost: float | None) -> Attempt:
    """The attempt of a request the provider answered (an OpenAI-shaped chat completion, from LiteLLM or the SDK):
    its reply and reasoning redacted, finish_reason, usage, cost and the model that answered."""
    choices = getattr(response, "choices", None) or []
    message = choices[0].message if choices else None
    content = (message.content or "") if message is not None else ""
    reasoning = _reasoning_of(message) if message is not None else None
    if len(content) + len(reasoning or "") > REDACT_INLINE_CHARS:  # long texts: off the event loop
        content, reasoning = await asyncio.to_thread(_redacted, content, reasoning)
    else:
        content, reasoning = _redacted(content, reasoning)
    attempt = base.model_copy(
        update={
            "reply": content,
            "reasoning": reasoning or None,
            "finish_reason": (getattr(choices[0], "finish_reason", None) or None) if choices else None,
            "usage": _usage_of(response),
            "cost_usd": cost,
            "latency_s": latency,
            "resolved_model": received(str(response.model)) if getattr(response, "model", None) else None,
        }
    )
    if not choices:  # an answer without choices holds no reply: recorded as such, and re-asked
        attempt = attempt.model_copy(update={"finish_reason": "no_choices"})
    return attempt


def sampling_params(seat: SeatConfig) -> dict[str, Any]:
    """The sampling parameters the user set (absent ones are the provider's defaults)."""
    names = ("temperature", "max_tokens", "reasoning_effort")
    return {name: value for name in names if (value := getattr(seat.params, name)) is not None}


def sent_params(seat: SeatConfig) -> dict[str, Any]:
    """The parameters sent to LiteLLM with every call of a seat, besides the model, messages and endpoint: the
    sampling parameters the user set (absent ones are the provider's defaults), the overall deadline, and the
    switches that keep one retry layer. Recorded in the run manifest and in each game header as sent."""
    params = seat.params
    sent = sampling_params(seat)
    if params.thinking_budget is not None:  # LiteLLM maps it to Gemini's thinkingBudget, Anthropic's budget_tokens
        sent["thinking"] = {"type": "enabled", "budget_tokens": params.thinking_budget}
    sent.update(timeout=params.timeout_s, num_retries=0, max_retries=0, drop_params=True)
    return sent


def sent_params_record(seat: SeatConfig) -> dict[str, Any]:
    """What a run records of a seat's calls: its model, endpoint (without credentials) and `sent_params`, and for
    a seat served by the direct client (harness.models.openai_client), that client and what it sends instead."""
    if seat.human:  # a person: no request is sent
        return {"model": seat.model}
    if seat.client == "openai":
        record: dict[str, Any] = {"model": seat.model, "client": "openai", **direct_params(seat)}
    else:
        record = {"model": seat.model, **sent_params(seat)}
    if seat.api_base:
        record["api_base"] = safe_url(seat.api_base)
    if seat.params.max_tokens_on_truncation is not None:
        record["max_tokens_on_truncation"] = seat.params.max_tokens_on_truncation
    return record


def direct_params(seat: SeatConfig) -> dict[str, Any]:
    """What the direct OpenAI-compatible client sends with every call of a seat besides the model and messages: the
    sampling parameters the user set, the overall deadline, and no retries of the SDK's own."""
    return {**sampling_params(seat), "timeout": seat.params.timeout_s, "max_retries": 0}


# Models the harness itself listed in LiteLLM's price list at zero: offline models, and models LiteLLM has no price
# for. Listing them once spares LiteLLM a price search among similar names on every call (and a per-call
# registration, had the zero prices gone with each request); for the latter, no cost is recorded.
_LISTED_AT_ZERO: set[str] = set()


def list_at_zero_price(model: str) -> None:
    if model in _LISTED_AT_ZERO:
        return
    zero = {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0}
    litellm().register_model({model: {**zero, "litellm_provider": provider_of(model), "mode": "chat"}})
    _LISTED_AT_ZERO.add(model)


_CONTEXT_OVERFLOW = re.compile(
    r"context[ _](?:length|window|size)|maximum context|too many tokens|prompt is too long", re.IGNORECASE
)


REDACT_INLINE_CHARS = 20_000  # longer replies are redacted in a thread, so no game waits on another's


def received(text: str) -> str:
    """A text a provider sent (a reply, its reasoning, an error, a model name) as its record keeps it: storable in a
    UTF-8 file, without the run's credentials."""
    return redact(storable(text))


def _redacted(content: str, reasoning: str | None) -> tuple[str, str | None]:
    return received(content), received(reasoning) if reasoning else reasoning


def _safe_error(exc: Exception, name: str | None = None) -> str:
    """The first line of an error, named by its class (or `name`), without anything that looks like a key."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return received(f"{name or type(exc).__name__}: {text}")[:500]


def _retry_after(exc: Exception) -> float | None:
    """The wait a provider error's headers ask for (Retry-After-Ms, or Retry-After in seconds or a date)."""
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    try:
        headers = {k.lower(): v for k, v in dict(headers or {}).items()}
    except (TypeError, ValueError):
        return None
    if "retry-after-ms" in headers:
        try:
            return float(headers["retry-after-ms"]) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def _reasoning_of(message: Any) -> str | None:
    text = getattr(message, "reasoning_content", None)
    if text:
        return str(text)
    blocks = getattr(message, "thinking_blocks", None)
    if blocks:
        return "\n".join(str(b.get("thinking", "")) for b in blocks if isinstance(b, dict)) or None
    return None


def _usage_of(response: Any) -> Usage:
    """A response's usage: LiteLLM's (OpenAI's shape, Anthropic's cache writes in `cache_creation_input_tokens`) or
    the SDK's (an OpenAI-compatible server's)."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return Usage()
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    completion_details = getattr(usage, "completion_tokens_details", None)
    written = getattr(usage, "cache_creation_input_tokens", None)
    if written is None:
        written = getattr(prompt_details, "cache_write_tokens", 0)
    return Usage(
        prompt_tokens=_token_count(getattr(usage, "prompt_tokens", 0)),
        completion_tokens=_token_count(getattr(usage, "completion_tokens", 0)),
        cached_tokens=_token_count(getattr(prompt_details, "cached_tokens", 0)),
        reasoning_tokens=_token_count(getattr(completion_details, "reasoning_tokens", 0)),
        cache_write_tokens=_token_count(written),
    )


@lru_cache(maxsize=256)
def count_tokens(model: str, text: str) -> int:
    """About how many tokens `text` is to `model`, by LiteLLM's tokenizer for it (its bundled one where it has none
    of the model's own). The same texts come back (a system message, the rules at a prompt's head): kept."""
    return int(litellm().token_counter(model=model, text=text))


MAX_TOKEN_COUNT = 2**53  # above this a count is no count (and no float holds it exactly)


def _token_count(value: Any) -> int:
    """A token count as a server reported it, if it is one: a whole number from 0 to MAX_TOKEN_COUNT (a float such as
    13.0 included). Anything else (negative, fractional, text, 1e30) is no count, recorded as 0, never a crash nor a
    total lowered by a negative."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not value.is_integer():
        return 0
    return int(value) if 0 <= value <= MAX_TOKEN_COUNT else 0


def _is_priced(model: str) -> bool:
    """Whether LiteLLM's price list has the model. For others (self-hosted, renamed) LiteLLM would guess a price
    from similar names, and a guess is not a measurement."""
    prices = litellm().model_cost
    # the harness's own zero entries are no price, under either name (openrouter/openai/x must not find openai/x)
    return any(name in prices and name not in _LISTED_AT_ZERO for name in (model, model.split("/", 1)[-1]))


def _cost_of(response: Any) -> float | None:
    cost = (getattr(response, "_hidden_params", {}) or {}).get("response_cost")
    return float(cost) if cost is not None else None


T = TypeVar("T")


def run_calls(main: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that calls models in a new event loop, as asyncio.run does. A call cancelled while LiteLLM
    prepares it in a thread (a run stopped by Ctrl-C or a full disk) leaves LiteLLM's request coroutine unstarted;
    Python's "never awaited" warning about it is silenced, since nothing was lost and the user gets one line."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
        return asyncio.run(main)


async def close_clients() -> None:
    """Close LiteLLM's pooled async HTTP clients before the event loop ends."""
    if _litellm is None:
        return
    closer = getattr(_litellm, "close_litellm_async_clients", None)
    if closer is not None:
        await closer()
