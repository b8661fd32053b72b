"""The event loop games are played in: asyncio's own, except that LiteLLM's per-call set-up runs inline for
providers whose set-up never blocks.

`litellm.acompletion` hands its synchronous set-up (`completion`: mapping parameters, building the request and the
logging object) to the loop's default executor and awaits it. For most providers that set-up does no I/O, so the
thread hop buys nothing and costs on every call: a hand-off to a thread, a contest for the GIL, a wake-up of the
loop through its self-pipe, and a wait for the loop to come round to the result. With hundreds of games in flight
the loop is busy, and that wait is the time it takes to serve every other ready game (BENCHMARKS.md). Here
`run_in_executor` runs the function at once and returns a finished future when the calling task says its
provider's set-up cannot block. Providers whose set-up may fetch credentials over the network (Vertex AI, Bedrock,
Azure AD, watsonx and others) are not on the list and keep LiteLLM's thread, as does every other executor job.

uvloop was measured as a replacement loop (bench/throughput.py, 64 games over HTTP): it spent about as much CPU
per move and finished later (wall/limit 1.93-1.99 against 1.48-1.56), so it is not used.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Coroutine, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

# Providers whose LiteLLM set-up only reads settings and the environment: an API key, not a token exchange.
NON_BLOCKING_SETUP = frozenset(
    {
        "local",
        "openai",
        "hosted_vllm",
        "anthropic",
        "gemini",
        "deepseek",
        "xai",
        "openrouter",
        "together_ai",
        "groq",
        "mistral",
        "fireworks_ai",
        "deepinfra",
        "cerebras",
        "perplexity",
        "ollama",
        "ollama_chat",
        "lm_studio",
    }
)

_setup_inline: ContextVar[bool] = ContextVar("setup_inline", default=False)


class GameLoop(asyncio.SelectorEventLoop):
    """asyncio's loop, whose default executor runs work inline for a task inside `setup_inline_for`."""

    def run_in_executor(
        self, executor: Executor | None, func: Callable[..., T], *args: Any
    ) -> asyncio.Future[T]:
        if executor is not None or not _setup_inline.get():
            return super().run_in_executor(executor, func, *args)
        future: asyncio.Future[T] = self.create_future()
        try:
            future.set_result(func(*args))
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:  # delivered to the awaiting caller, as a thread's failure would be
            future.set_exception(exc)
        return future


@contextmanager
def setup_inline_for(providers: Collection[str]) -> Iterator[None]:
    """Within this block, the calling task's default-executor jobs run inline if no provider's set-up can block."""
    token = _setup_inline.set(all(provider in NON_BLOCKING_SETUP for provider in providers))
    try:
        yield
    finally:
        _setup_inline.reset(token)


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion in a new GameLoop, as asyncio.run does."""
    with asyncio.Runner(loop_factory=GameLoop) as runner:
        return runner.run(main)
