"""The built-in players as an Inspect model API, `hanabi/<bot>` (`hanabi/smart`, `hanabi/cautious`): the offline
route through `inspect eval`, as `local/<bot>` is through `hanabi-eval run`.

The bot decides from the seat's view: the seat's strategy writes its reply in the call's reply format
(harness.strategies.offline_reply, the same text `local/<bot>` sends), the task's caller puts it in SEAT_REQUEST for
this model API only, and this API answers with it, so a game played here makes the same moves as under
`hanabi-eval run --model local/<bot>`. Token counts are the same cl100k counts as `local/`; the cost is 0.
"""

from __future__ import annotations

from typing import Any

import anyio
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage
from inspect_ai.tool import ToolChoice, ToolInfo

from harness.bots import bot_names
from harness.inspect.caller import SEAT_REQUEST
from harness.models.local import count_tokens
from harness.models.model_names import OFFLINE_REPLY_KEY, parse_local_model
from harness.schema.errors import Refused

API_NAME = "hanabi"
MAX_CONNECTIONS = 1000  # a bot answers at once: Inspect's connection limit would only queue games


class HanabiBotAPI(ModelAPI):
    """Serves `hanabi/<bot>[@<ms>ms]`: the bot's move for the seat's view, in the call's reply format."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (Inspect's ModelAPI signature)
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        try:
            self.offline_bot, self.delay_s = parse_local_model(model_name)
        except Refused as exc:
            raise ValueError(str(exc).replace("local/", f"{API_NAME}/")) from None
        if self.offline_bot not in bot_names():
            raise ValueError(
                f"no built-in player {model_name!r}; use one of: "
                + ", ".join(f"{API_NAME}/{name}" for name in bot_names())
            )

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        request = SEAT_REQUEST.get()
        if request is None or not isinstance(request.get(OFFLINE_REPLY_KEY), str):
            raise Refused(  # asked by something other than a seat of the hanabi task: no view to decide from
                f"{API_NAME}/{self.offline_bot} plays only the seats of the hanabi_eval/hanabi task (it decides from "
                "the seat's view, which only that task sends)"
            )
        if self.delay_s:
            await anyio.sleep(self.delay_s)
        text = request[OFFLINE_REPLY_KEY]
        # OpenAI's chat accounting, as local/ counts: each message's tokens plus 3, plus 3 to prime the reply
        prompt_tokens = sum(count_tokens(message.text) + 3 for message in input) + 3
        completion_tokens = count_tokens(text)
        output = ModelOutput.from_content(model=f"{API_NAME}/{self.offline_bot}", content=text, stop_reason="stop")
        output.usage = ModelUsage(
            input_tokens=prompt_tokens,
            output_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
            total_cost=0.0,
        )
        return output

    def max_tokens(self) -> int | None:
        return None  # a bot's reply is as long as its format needs

    def max_connections(self) -> int:
        return MAX_CONNECTIONS

    def should_retry(self, ex: BaseException) -> bool:
        return False  # nothing a bot raises is transient
