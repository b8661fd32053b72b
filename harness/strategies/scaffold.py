"""Scaffold definitions (data in scaffolds/*.toml) and prompt rendering from a SeatView.

A scaffold combines context switches (deductions, others' knowledge, discard pile, ...), a strategy, an output
contract and its Jinja templates in prompts/. Adding a scaffold needs a TOML file (and templates if the wording is
new), no Python. Templates receive only the SeatView, the context switches and the seat's working memory.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

import jinja2
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from harness.engine.game import MAX_INFO_TOKENS, MAX_LIFE_TOKENS
from harness.formats import FORMAT_NAMES, ReplyFormat, format_for
from harness.schema.cards import COLOR_NAMES, MAX_SCORE
from harness.schema.paths import prompts_dir, scaffolds_dir
from harness.schema.records import Message
from harness.view.seat_view import SeatView

MAX_K = 7  # the paper's Figure 20 samples k = 1..7


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
    conventions: Literal["hgroup"] | None = None  # teach a convention set (prompts/conventions/<name>.j2)
    final_round: bool = True  # the final-round line once the deck is empty (SPIN-Bench has none)
    history_turns: int = Field(default=0, ge=0)  # the last N moves in the state (the paper's Watson MoA: 10)


class CallDef(BaseModel):
    """One model call of a move: its templates and the contract its reply must meet."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    system_template: str | None = None  # None: the scaffold's own system template (if it has one)
    user_template: str
    output: Literal["text", "json"] = "json"
    contract: Literal["move", "memory", "report"] = "move"  # report: free text, read by the decider
    required_fields: tuple[str, ...] = ("action",)
    format: str | None = None  # a reply format by name (harness.formats); default: from output and contract
    min_players: int = 2  # the role is left out of games with fewer players

    @property
    def reply_format(self) -> ReplyFormat:
        """The format this call's reply must have: its instructions, reader, feedback and schema."""
        return format_for(self.output, self.contract, self.required_fields, self.format)


class ScaffoldDef(BaseModel):
    """A scaffold. `single`: one call. `best_of_k`: the base call sampled k times, then a selector call.
    `mixture`: the base call (as the baseline role) and the specialist roles in parallel, then an aggregator."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str
    paper_label: str | None = None  # the paper's name for this exact setting; None: not one of the paper's
    ladder_rung: int | None = None  # position in the paper's Figure 2 ladder (1 = Watson ... 5 = Sherlock)
    strategy: Literal["single", "best_of_k", "mixture"] = "single"
    output: Literal["text", "json"]
    contract: Literal["move", "memory"] = "move"
    required_fields: tuple[str, ...] = ("action",)
    format: str | None = None  # a reply format by name (harness.formats); default: from output and contract
    system_template: str | None = None  # None: the prompt is one user message (the paper's Sherlock, Mycroft)
    user_template: str
    memory_template: str | None = None  # renders the state a working-memory seat keeps for its next turn
    state_template: str | None = (
        None  # the state part of the base prompt, which role and decider prompts reuse
    )
    context: ContextOptions = ContextOptions()
    k: int = Field(default=1, ge=1, le=MAX_K)  # best_of_k: samples of the base call (a seat may override it)
    roles: tuple[CallDef, ...] = ()  # mixture: specialists beside the baseline
    decider: CallDef | None = None  # best_of_k: the selector; mixture: the aggregator

    @model_validator(mode="after")
    def _consistent(self) -> ScaffoldDef:
        if self.strategy == "single" and (self.roles or self.decider or self.k != 1):
            raise ValueError("a single-call scaffold has no roles, decider or k")
        if self.strategy == "best_of_k" and (self.decider is None or self.roles):
            raise ValueError("best_of_k needs a decider (the final agent) and no roles")
        if self.strategy == "mixture" and (not self.roles or self.decider is None):
            raise ValueError("mixture needs roles and a decider (the aggregator)")
        if (self.roles or self.decider) and self.state_template is None:
            raise ValueError("roles and deciders show the game state: set state_template")
        if self.decider is not None and self.decider.contract != "move":
            raise ValueError('the decider must answer with a move (contract = "move")')
        if self.context.working_memory and self.strategy != "single":
            raise ValueError("working memory is kept by single-call scaffolds only")
        return self

    @property
    def base(self) -> CallDef:
        """The scaffold's own call: the player (single), each sample (best_of_k) or the baseline (mixture)."""
        role = {"single": "player", "best_of_k": "sample", "mixture": "baseline"}[self.strategy]
        return CallDef(
            role=role,
            system_template=self.system_template,
            user_template=self.user_template,
            output=self.output,
            contract=self.contract,
            required_fields=self.required_fields,
            format=self.format,
        )

    @property
    def final_call(self) -> CallDef | None:
        """The call that decides after the parallel ones; best-of-1 has none (its one sample is the move)."""
        if self.strategy == "best_of_k" and self.k == 1:
            return None
        return self.decider

    def parallel_calls(self, players: int) -> list[CallDef]:
        """The calls made at once at the start of a move, before any decider."""
        if self.strategy == "best_of_k":
            return [self.base.model_copy(update={"role": f"sample-{i + 1}"}) for i in range(self.k)]
        if self.strategy == "mixture":
            return [self.base, *(r for r in self.roles if players >= r.min_players)]
        return [self.base]

    def calls_per_move(self, players: int) -> int:
        return len(self.parallel_calls(players)) + (1 if self.final_call else 0)

    def calls_text(self) -> str:
        """Calls per move as people read it: "6 (5 for 2 players)"."""
        counts = {p: self.calls_per_move(p) for p in range(2, 6)}
        if self.strategy == "best_of_k":  # the listing shows the default k; --k changes it
            return f"k + 1 ({counts[2]} at k = {self.k})" if self.k > 1 else "1 (k = 1)"
        if len(set(counts.values())) == 1:
            return str(counts[2])
        exceptions = ", ".join(f"{n} for {p} players" for p, n in counts.items() if n != counts[5])
        return f"{counts[5]} ({exceptions})"

    def templates(self) -> list[str]:
        names = [self.system_template, self.user_template, self.memory_template, self.state_template]
        for call in (*self.roles, self.decider):
            if call is not None:
                names += [call.system_template, call.user_template]
        if self.context.conventions:
            names += [
                f"conventions/{self.context.conventions}.j2",
                f"conventions/{self.context.conventions}_state.j2",
            ]
        return [n for n in names if n is not None]


def scaffold_names() -> list[str]:
    return sorted(p.stem for p in scaffolds_dir().glob("*.toml"))


def parse_k(text: str, where: str) -> int:
    """A best-of-k sample count as written by a user ("k=3" in a seat or sweep spec)."""
    prefix = f"{where}: " if where else ""
    try:
        k = int(text)
    except ValueError:
        raise ScaffoldError(f"{prefix}k={text!r} is not a whole number; give k from 1 to {MAX_K}") from None
    if not 1 <= k <= MAX_K:
        raise ScaffoldError(f"{prefix}k={k} is out of range; give k from 1 to {MAX_K}")
    return k


def parse_scaffold_spec(spec: str) -> tuple[str, int | None]:
    """A sweep's scaffold entry: "NAME" or "NAME,k=N" (best-of-k with N samples); checked against the scaffold."""
    name, _, rest = spec.partition(",")
    k = None
    if rest:
        key, sep, value = rest.partition("=")
        if key.strip() != "k" or not sep:
            raise ScaffoldError(f"scaffold {spec!r}: the only setting a scaffold takes is k=N (best-of-k)")
        k = parse_k(value.strip(), f"scaffold {spec!r}")
    load_scaffold(name.strip(), k)
    return name.strip(), k


def figure2_ladder() -> list[ScaffoldDef]:
    """The paper's Figure 2 ladder, rung by rung: Watson, SPIN-Bench, its two ablations, Sherlock."""
    rungs = [s for s in map(load_scaffold, scaffold_names()) if s.ladder_rung is not None]
    return sorted(rungs, key=lambda s: s.ladder_rung or 0)


@cache
def load_scaffold(name: str, k: int | None = None) -> ScaffoldDef:
    """A scaffold by name; `k` (a seat's best-of-k sample count, 1-7) replaces the scaffold's default k."""
    path = scaffolds_dir() / f"{name}.toml"
    if not path.is_file():
        raise ScaffoldError(f"unknown scaffold {name!r}; choose one of: {', '.join(scaffold_names())}")
    scaffold = _read(path)
    if k is None:
        return scaffold
    if scaffold.strategy != "best_of_k":
        raise ScaffoldError(
            f"k={k} is for best-of-k scaffolds; {name!r} is not one: drop k or use e.g. best-of-k-watson"
        )
    if not 1 <= k <= MAX_K:
        raise ScaffoldError(f"k={k} is out of range; best-of-k takes k from 1 to {MAX_K}")
    return scaffold.model_copy(update={"k": k})


def _raw(path: Path, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """A scaffold file's TOML, with the file it `extends` (if any) underneath: its tables merged key by key."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    base_name = raw.pop("extends", None)
    if base_name is None:
        return raw
    base_path = scaffolds_dir() / f"{base_name}.toml"
    if base_name in seen or not base_path.is_file():
        raise ScaffoldError(f"scaffold file {path} extends {base_name!r}, which is missing or circular")
    base = _raw(base_path, (*seen, path.stem))
    for own in ("paper_label", "ladder_rung"):  # a variant of a paper setting is not that setting
        base.pop(own, None)
    return _merge(base, raw)


def _merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _read(path: Path) -> ScaffoldDef:
    try:
        raw = _raw(path)
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
    for call in (scaffold.base, *scaffold.roles, scaffold.decider):
        if call is not None and call.format is not None and call.format not in FORMAT_NAMES:
            raise ScaffoldError(
                f"scaffold {scaffold.name!r} names reply format {call.format!r}; use one of: {', '.join(FORMAT_NAMES)}"
            )
    for template in scaffold.templates():
        if not (prompts_dir() / template).is_file():
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
        auto_reload=False,  # templates do not change during a run; checking their mtimes cost a stat per render
    )
    env.globals["COLOR_NAMES"] = COLOR_NAMES
    env.globals.update(MAX_SCORE=MAX_SCORE, MAX_INFO_TOKENS=MAX_INFO_TOKENS, MAX_LIFE_TOKENS=MAX_LIFE_TOKENS)
    env.filters["color_name_of"] = COLOR_NAMES.__getitem__
    return env


def render_template(name: str, **context: Any) -> str:
    """Render a template; runs of blank lines collapse to one, so templates can separate sections freely."""
    text = _environment().get_template(name).render(**context)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


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
