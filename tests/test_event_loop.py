"""LiteLLM's call set-up runs on the event loop only for providers whose set-up cannot block."""

from __future__ import annotations

import asyncio
import threading

from harness.models import event_loop
from harness.models.client import ModelClient
from harness.schema.config import RetryPolicy
from harness.schema.records import SeatConfig


def test_inline_only_where_asked_and_errors_still_reach_the_caller() -> None:
    async def main() -> tuple[str, str, str]:
        loop = asyncio.get_running_loop()
        with event_loop.run_inline(True):
            inline = await loop.run_in_executor(None, lambda: threading.current_thread().name)
            try:
                await loop.run_in_executor(None, lambda: 1 / 0)
                failed = "no error"
            except ZeroDivisionError:
                failed = "raised at the await"
        threaded = await loop.run_in_executor(None, lambda: threading.current_thread().name)
        return inline, threaded, failed

    inline, threaded, failed = event_loop.run(main())
    assert inline == threading.current_thread().name  # ran on the loop's own thread
    assert threaded != inline
    assert failed == "raised at the await"


def test_providers_that_may_fetch_credentials_keep_litellms_thread() -> None:
    def inline(model: str) -> bool:
        return ModelClient(SeatConfig(model=model, scaffold="watson"), RetryPolicy())._setup_inline

    assert inline("hosted_vllm/my-model") and inline("openai/gpt-4.1") and inline("local/smart")
    assert not inline("vertex_ai/gemini-2.5-pro") and not inline("bedrock/anthropic.claude-3")


def test_only_the_first_job_of_a_block_runs_inline() -> None:
    """After the call's set-up, later executor work of the same call (a DNS lookup, say) goes to a thread again."""

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        names = []
        with event_loop.run_inline(True):
            for _ in range(2):
                names.append(await loop.run_in_executor(None, lambda: threading.current_thread().name))
        return names

    first, second = event_loop.run(main())
    assert first == threading.current_thread().name and second != first
