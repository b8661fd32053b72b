"""Prompts from templates: a scaffold's calls rendered for one seat's SeatView (prompts/*.j2).

Templates print facts the view computed and never count cards themselves. A template may mark with `{{
cache_break() }}` where the text above it stops being the same on every turn: the mark prints nothing, and the
message records where it was (Message.cache_breaks) for a provider's prompt cache
(harness.models.prompt_cache).
"""

from __future__ import annotations

import re
import uuid
from functools import cache, lru_cache
from typing import Any

import jinja2

from harness.engine.game import MAX_INFO_TOKENS, MAX_LIFE_TOKENS
from harness.models.prompt_cache import common_length
from harness.schema.cards import COLOR_NAMES, MAX_SCORE
from harness.schema.paths import prompts_dir, template_environment
from harness.schema.records import CacheBreak, Message
from harness.strategies.definition import CallDef, ScaffoldDef
from harness.view.seat_view import SeatView

_BLANK_RUNS = re.compile(r"\n{3,}")
# What `cache_break()` prints while a template renders, taken out before anyone reads the text: no template, game state
# or reply holds it (a NUL and this process's random nonce).
_BREAK = f"\x00cache-break-{uuid.uuid4().hex}\x00"


@cache
def _environment() -> jinja2.Environment:
    # templates do not change during a run; checking their mtimes cost a stat per render
    env = template_environment(prompts_dir(), auto_reload=False)
    env.globals["COLOR_NAMES"] = COLOR_NAMES
    env.globals.update(MAX_SCORE=MAX_SCORE, MAX_INFO_TOKENS=MAX_INFO_TOKENS, MAX_LIFE_TOKENS=MAX_LIFE_TOKENS)
    env.filters["color_name_of"] = COLOR_NAMES.__getitem__
    env.globals["cache_break"] = lambda: _BREAK
    return env


def render_template(name: str, **context: Any) -> str:
    """Render a template; runs of blank lines collapse to one, so templates can separate sections freely."""
    return render_with_breaks(name, **context)[0]


def render_with_breaks(name: str, **context: Any) -> tuple[str, tuple[CacheBreak, ...]]:
    """A template's text (as render_template gives it) and where its `cache_break()` marks fell in that text: each
    after the text its template printed above it, as the blank-line runs collapse and the ends are stripped."""
    parts = _environment().get_template(name).render(**context).split(_BREAK)
    text = _collapsed("".join(parts)).strip() + "\n"
    breaks: list[CacheBreak] = []
    for end in range(1, len(parts)):
        head = _collapsed("".join(parts[:end])).lstrip()
        chars = len(head) if text.startswith(head) else common_length(head, text)
        if 0 < chars < len(text) and chars not in (b.chars for b in breaks):
            breaks.append(CacheBreak(chars, "turn"))
    return text, tuple(breaks)


def _collapsed(text: str) -> str:
    """`text` with each run of blank lines made one; most prompts have none, and the search is far cheaper."""
    return _BLANK_RUNS.sub("\n\n", text) if "\n\n\n" in text else text


def render_messages(
    scaffold: ScaffoldDef, view: SeatView, memory: dict[str, Any] | None = None
) -> list[Message]:
    """The system and user messages of the scaffold's base call for one seat's move."""
    return render_call(scaffold, scaffold.base, view, memory)


def render_call(
    scaffold: ScaffoldDef,
    call: CallDef,
    view: SeatView,
    memory: dict[str, Any] | None = None,
    reports: list[dict[str, Any]] | None = None,
    sampled: tuple[int, ...] | None = None,
) -> list[Message]:
    """The messages of one call. `reports` are the earlier calls' replies, for a decider; `sampled` the moves a
    best-of-k final agent may choose from."""
    context = {
        "sampled": sampled or (),
        "view": view,
        "ctx": scaffold.context,
        "memory": memory,
        "scaffold": scaffold,
        "call": call,
        "reports": reports or [],
    }
    text, breaks = render_with_breaks(call.user_template, **context)
    user = Message(role="user", content=text, cache_breaks=breaks)
    if (call.system_template or scaffold.system_template) is None:
        return [user]
    return [Message(role="system", content=system_prompt(scaffold, call, view.num_players)), user]


@lru_cache(maxsize=512)
def system_prompt(scaffold: ScaffoldDef, call: CallDef, players: int) -> str:
    """A call's system message. It never sees the game state (only the game's constants, the scaffold, the call and
    the player count), so it is the same on every turn: rendered once, and a stable prefix for prompt caching."""
    context = {"ctx": scaffold.context, "scaffold": scaffold, "call": call, "players": players}
    template = call.system_template or scaffold.system_template
    assert template is not None
    return render_template(template, **context)


def render_memory_state(scaffold: ScaffoldDef, view: SeatView) -> str:
    """The game state as a working-memory seat keeps it in its notes for its next turn."""
    assert scaffold.memory_template is not None
    return render_template(scaffold.memory_template, view=view, ctx=scaffold.context).strip()
