"""Prompt caching: which providers cache what, where a request's cache breakpoints go, and how they are sent.

Anthropic's models (and Claude on Bedrock and Vertex AI) cache a prompt's prefix up to a `cache_control`
breakpoint, at most four per request and only a prefix of at least the model's minimum: the system message,
and the stable parts a scaffold's templates marked (harness.strategies.rendering). A marked message is sent as
text blocks split at its marks, which join to exactly its text; the log keeps one text with the marks beside
it (Attempt.cache_marks). OpenAI takes a `prompt_cache_key` that keeps a game-seat's calls on one cache; other
providers LiteLLM lists as caching do it by themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from harness.models.model_names import provider_of
from harness.models.pricing import entry_of
from harness.schema.records import CacheBreak, CacheMark, Message

# anthropic: cache_control marks; openai: a prompt_cache_key per game and seat; automatic: the provider alone
CacheStyle = Literal["cache_control", "prompt_cache_key", "automatic"]
PROMPT_CACHE_KEY = "prompt_cache_key"  # the request metadata key of a game-seat's cache key (harness.strategies)
MAX_MARKS = 4  # Anthropic takes at most four cache_control breakpoints per request
DEFAULT_MINIMUM = 1_024
# The shortest prefix Anthropic caches, by model name, where it is not DEFAULT_MINIMUM (Anthropic's prompt-caching
# documentation); the first name part found in a model string decides.
MINIMUM_TOKENS = (
    ("haiku-4-5", 4_096),
    ("opus-4-5", 4_096),
    ("opus-4-6", 4_096),
    ("sonnet-4-6", 2_048),
    ("3-5-haiku", 2_048),
    ("3-haiku", 2_048),
)
_CLAUDE_HOSTS = ("bedrock", "bedrock_converse", "vertex_ai", "vertex_ai_beta")


def cache_style(model: str, price_list: Mapping[str, Mapping[str, Any]]) -> CacheStyle | None:
    """How the provider of `model` caches prompts, as far as the harness steers it; None where it does not."""
    provider = provider_of(model)
    name = model.split("/", 1)[-1].lower()
    if provider == "anthropic" or (provider in _CLAUDE_HOSTS and ("claude" in name or "anthropic." in name)):
        return "cache_control"
    if not entry_of(model, price_list).get("supports_prompt_caching"):
        return None
    return "prompt_cache_key" if provider == "openai" else "automatic"


def minimum_tokens(model: str) -> int:
    """The shortest prefix a Claude model caches."""
    name = model.lower().replace(".", "-")
    return next((tokens for part, tokens in MINIMUM_TOKENS if part in name), DEFAULT_MINIMUM)


def place_marks(messages: Sequence[Message], minimum: int, count: Callable[[str], int]) -> list[CacheMark]:
    """Where a request's breakpoints go: the end of each system message and each break its templates marked, where
    the prefix up to there (every message before included, as `count` counts tokens) reaches `minimum`; at most
    MAX_MARKS (the first, which the next turn reads, and the last ones). A break is moved to the end of its message
    when only whitespace follows it (a text block of whitespace alone is refused)."""
    candidates: dict[tuple[int, int], None] = {}
    for index, message in enumerate(messages):
        ends = [len(message.content)] if message.role == "system" else []
        for chars in sorted({*ends, *(b.chars for b in message.cache_breaks)}):
            if 0 < chars <= len(message.content):
                candidates[(index, _snapped(message.content, chars))] = None
    marks: list[CacheMark] = []
    before = 0  # tokens of the whole messages before the current one
    counted = -1
    for index, chars in candidates:
        while counted < index - 1:
            counted += 1
            before += count(messages[counted].content)
        tokens = before + count(messages[index].content[:chars])
        if tokens >= minimum:
            marks.append(CacheMark(message=index, chars=chars, tokens=tokens))
    if len(marks) > MAX_MARKS:
        marks = [marks[0], *marks[-(MAX_MARKS - 1) :]]
    return marks


def _snapped(text: str, chars: int) -> int:
    return len(text) if not text[chars:].strip() else chars


def wire_messages(messages: Sequence[Message], marks: Sequence[CacheMark]) -> list[dict[str, Any]]:
    """The messages as sent: plain text, or, for a message with marks, text blocks split at them with a
    `cache_control` on each block a mark ends. The blocks of a message join to exactly its text."""
    cuts: dict[int, list[int]] = {}
    for mark in marks:
        cuts.setdefault(mark.message, []).append(mark.chars)
    sent: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if index not in cuts:
            sent.append({"role": message.role, "content": message.content})
            continue
        blocks: list[dict[str, Any]] = []
        start = 0
        for end in sorted(set(cuts[index])):
            blocks.append({"type": "text", "text": message.content[start:end], "cache_control": {"type": "ephemeral"}})
            start = end
        if start < len(message.content):
            blocks.append({"type": "text", "text": message.content[start:]})
        sent.append({"role": message.role, "content": blocks})
    return sent


# Calls of one move that share a prompt prefix at least this long (in characters, about 500 tokens: below the shortest
# prefix any provider caches, so that none is missed) are sent one first, the rest once it has returned.
SHARED_CHARS = 2_048

Prefix = tuple[int, int]  # (message index, characters of that message): a prompt prefix, every message before included


def shared_prefix(prompts: Sequence[Sequence[Message]]) -> Prefix | None:
    """The longest prefix every prompt starts with (None if they share none): the messages they agree on, and as much
    of the next one as they agree on (its role too). Identical prompts share all of their last message."""
    first = prompts[0]
    for index, message in enumerate(first):
        others = [p[index] if index < len(p) else None for p in prompts[1:]]
        if all(o is not None and o.role == message.role and o.content == message.content for o in others):
            if index == len(first) - 1 or any(index == len(p) - 1 for p in prompts[1:]):
                return index, len(message.content)
            continue
        if all(o is not None and o.role == message.role for o in others):
            chars = min(common_length(message.content, o.content) for o in others if o is not None)
            if chars:
                return index, chars
        return (index - 1, len(first[index - 1].content)) if index else None
    return None


def common_length(a: Sequence[object], b: Sequence[object]) -> int:
    """How many items (characters of two texts, tokens of two prompts) two sequences share at their start."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def prefix_chars(messages: Sequence[Message], prefix: Prefix) -> int:
    """How many characters of prompt a prefix holds."""
    index, chars = prefix
    return sum(len(m.content) for m in messages[:index]) + chars


def starts_with(messages: Sequence[Message], prompt: Sequence[Message], prefix: Prefix) -> bool:
    """Whether `messages` start with `prompt`'s `prefix`."""
    index, chars = prefix
    if len(messages) <= index:
        return False
    before = zip(messages[:index], prompt[:index], strict=True)
    same = all(a.role == b.role and a.content == b.content for a, b in before)
    head = prompt[index]
    return same and messages[index].role == head.role and messages[index].content.startswith(head.content[:chars])


def with_break(messages: Sequence[Message], prefix: Prefix) -> list[Message]:
    """The messages with a `move` break at the end of `prefix` (a prefix the move's calls share)."""
    index, chars = prefix
    marked = list(messages)
    message = marked[index]
    if chars not in (b.chars for b in message.cache_breaks):
        breaks = tuple(sorted((*message.cache_breaks, CacheBreak(chars, "move"))))
        marked[index] = message.model_copy(update={"cache_breaks": breaks})
    return marked
