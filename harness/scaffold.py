"""Scaffold definitions (data in scaffolds/*.toml) and prompt rendering from a SeatView.

A scaffold combines context switches (deductions, others' knowledge, discard pile, ...), a strategy, an output
contract and its Jinja templates in prompts/. Adding a scaffold needs a TOML file (and templates if the wording is
new), no Python. Templates receive only the SeatView, the context switches and the seat's working memory.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any, Literal

import jinja2
from pydantic import BaseModel, ConfigDict, ValidationError

from harness.cards import COLOR_NAMES
from harness.paths import prompts_dir, scaffolds_dir
from harness.records import Message
from harness.view import SeatView


class ScaffoldError(ValueError):
    """A scaffold name or definition that cannot be used; the message names the problem and the fix."""


class ContextOptions(BaseModel):
    """What a prompt shows beyond the basic state. Each switch is read by the templates."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    deductions: bool = False  # HLE's could-be colours and ranks for every card (Sherlock)
    others_knowledge: bool = True  # what other players know about their own cards
    discard_pile: bool = True
    recent_moves: bool = True
    probability_guide: bool = False  # card distribution and step-by-step probability instructions
    working_memory: bool = False  # carry the seat's previous turn (Mycroft)


class ScaffoldDef(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str
    strategy: Literal["single"] = "single"
    output: Literal["text", "json"]
    contract: Literal["move", "memory"] = "move"
    required_fields: tuple[str, ...] = ("action",)
    system_template: str
    user_template: str
    memory_template: str | None = None  # renders the state a working-memory seat keeps for its next turn
    context: ContextOptions = ContextOptions()

    @property
    def calls_per_move(self) -> int:
        return 1


def scaffold_names() -> list[str]:
    return sorted(p.stem for p in scaffolds_dir().glob("*.toml"))


@cache
def load_scaffold(name: str) -> ScaffoldDef:
    path = scaffolds_dir() / f"{name}.toml"
    if not path.is_file():
        raise ScaffoldError(f"unknown scaffold {name!r}; choose one of: {', '.join(scaffold_names())}")
    return _read(path)


def _read(path: Path) -> ScaffoldDef:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        scaffold = ScaffoldDef.model_validate(raw)
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        raise ScaffoldError(f"scaffold file {path} is invalid: {str(exc).splitlines()[0]}") from exc
    if scaffold.name != path.stem:
        raise ScaffoldError(
            f"scaffold file {path} names itself {scaffold.name!r}; make name match the file name"
        )
    if scaffold.context.working_memory and (scaffold.contract != "memory" or not scaffold.memory_template):
        raise ScaffoldError(
            f'scaffold {scaffold.name!r} keeps working memory: set contract = "memory" and a memory_template'
        )
    for template in (scaffold.system_template, scaffold.user_template, scaffold.memory_template):
        if template is not None and not (prompts_dir() / template).is_file():
            raise ScaffoldError(f"scaffold {scaffold.name!r} uses missing template prompts/{template}")
    return scaffold


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(prompts_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )
    env.globals["COLOR_NAMES"] = COLOR_NAMES
    env.filters["color_name_of"] = COLOR_NAMES.__getitem__
    return env


def render_template(name: str, **context: Any) -> str:
    return _environment().get_template(name).render(**context).strip() + "\n"


def render_messages(
    scaffold: ScaffoldDef, view: SeatView, memory: dict[str, Any] | None = None
) -> list[Message]:
    """The system and user messages for one seat's move."""
    context = {"view": view, "ctx": scaffold.context, "memory": memory, "scaffold": scaffold}
    return [
        Message(role="system", content=render_template(scaffold.system_template, **context)),
        Message(role="user", content=render_template(scaffold.user_template, **context)),
    ]


def render_memory_state(scaffold: ScaffoldDef, view: SeatView) -> str:
    """The game state as a working-memory seat keeps it in its notes for its next turn."""
    assert scaffold.memory_template is not None
    return render_template(scaffold.memory_template, view=view, ctx=scaffold.context).strip()
