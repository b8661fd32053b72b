"""A cost is recorded only where LiteLLM knows the price of every model a seat may call; never a guessed $0."""

from __future__ import annotations

from harness.models.client import ModelClient
from harness.schema.config import RetryPolicy
from harness.schema.records import Deployment, SeatConfig


def priced(model: str, *deployments: str) -> bool:
    seat = SeatConfig(
        model=model,
        scaffold="watson",
        deployments=tuple(Deployment(model=d, api_base="http://127.0.0.1:1/v1") for d in deployments),
    )
    return ModelClient(seat, RetryPolicy()).priced


def test_unpriced_models_record_no_cost_whatever_was_seen_before() -> None:
    assert priced("openai/gpt-4.1") and priced("local/smart")
    assert not priced("openai/my-finetune-7")
    # the harness listed openai/my-finetune-7 at zero above; that is no price for a longer name ending in it
    assert not priced("openrouter/openai/my-finetune-7")


def test_a_deployment_of_an_unpriced_model_makes_the_seat_unpriced() -> None:
    assert priced("openai/gpt-4.1", "openai/gpt-4.1")
    assert not priced("openai/gpt-4.1", "hosted_vllm/my-llama-3")
