"""Prompts from templates: a scaffold's calls rendered for one seat's SeatView (prompts/*.j2).

Templates receive only the SeatView, the context switches, the call, the seat's working memory and, for a decider,
the earlier calls' replies; they print facts the view computed and never count cards themselves.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

import jinja2

from harness.engine.game import MAX_INFO_TOKENS, MAX_LIFE_TOKENS
from harness.schema.cards import COLOR_NAMES, MAX_SCORE
from harness.schema.paths import prompts_dir
from harness.schema.records import Message
from harness.strategies.definition import CallDef, ScaffoldDef
from harness.view.seat_view import SeatView

_BLANK_RUNS = re.compile(r"\n{3,}")


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(prompts_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
        auto_reload=False,  # templates do not change during a run; checking their mtimes cost a stat per render
    )
    env.globals["COLOR_NAMES"] = COLOR_NAMES
    env.globals.update(MAX_SCORE=MAX_SCORE, MAX_INFO_TOKENS=MAX_INFO_TOKENS, MAX_LIFE_TOKENS=MAX_LIFE_TOKENS)
    env.filters["color_name_of"] = COLOR_NAMES.__getitem__
    return env


def render_template(name: str, **context: Any) -> str:
    """Render a template; runs of blank lines collapse to one, so templates can separate sections freely."""
    text = _environment().get_template(name).render(**context)
    if "\n\n\n" in text:  # most prompts have no such run: the search is far cheaper than the substitution
        text = _BLANK_RUNS.sub("\n\n", text)
    return text.strip() + "\n"


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
    user = Message(role="user", content=render_template(call.user_template, **context))
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
