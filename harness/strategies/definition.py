"""What a scaffold file holds: its context switches, its calls and their reply formats, and the name of its
strategy. What a strategy requires of the file (k, roles, a decider, a memory template) the strategy checks.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.formats import ReplyFormat, format_for

MAX_K = 7  # the paper's Figure 20 samples k = 1..7


class ContextOptions(BaseModel):
    """What a prompt shows beyond the basic state. Each switch is read by the templates."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    deductions: bool = False  # HLE's could-be colours and ranks for every card (Sherlock)
    others_knowledge: bool = True  # what other players know about their own cards
    discard_pile: bool = True
    recent_moves: bool = True
    probability_guide: bool = False  # card distribution and step-by-step probability instructions
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
    """A scaffold: its own call (templates, output contract), context switches, and the strategy that decides a move
    with them (`strategy`, a registered name: single, memory, best_of_k, mixture, ...)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str
    paper_label: str | None = None  # the paper's name for this exact setting; None: not one of the paper's
    ladder_rung: int | None = None  # position in the paper's Figure 2 ladder (1 = Watson ... 5 = Sherlock)
    strategy: str = "single"
    output: Literal["text", "json"]
    contract: Literal["move", "memory"] = "move"
    required_fields: tuple[str, ...] = ("action",)
    format: str | None = None  # a reply format by name (harness.formats); default: from output and contract
    system_template: str | None = None  # None: the prompt is one user message (the paper's Sherlock, Mycroft)
    user_template: str
    memory_template: str | None = None  # renders the state a working-memory seat keeps for its next turn
    state_template: str | None = None  # the state part of the base prompt, which roles and deciders reuse
    context: ContextOptions = ContextOptions()
    k: int = Field(default=1, ge=1, le=MAX_K)  # best_of_k: samples of the base call (a seat may override it)
    roles: tuple[CallDef, ...] = ()  # mixture: specialists beside the baseline
    decider: CallDef | None = None  # best_of_k: the selector; mixture: the aggregator

    @model_validator(mode="after")
    def _consistent(self) -> ScaffoldDef:
        if (self.roles or self.decider) and self.state_template is None:
            raise ValueError("roles and deciders show the game state: set state_template")
        if self.decider is not None and self.decider.contract != "move":
            raise ValueError('the decider must answer with a move (contract = "move")')
        return self

    @property
    def base(self) -> CallDef:
        """The scaffold's own call, as the role "player"; a strategy that makes it under another role renames it
        (best-of-k's "sample-3", mixture's "baseline")."""
        return CallDef(
            role="player",
            system_template=self.system_template,
            user_template=self.user_template,
            output=self.output,
            contract=self.contract,
            required_fields=self.required_fields,
            format=self.format,
        )

    def templates(self) -> list[str]:
        names = [self.system_template, self.user_template, self.memory_template, self.state_template]
        for call in (*self.roles, self.decider):
            if call is not None:
                names += [call.system_template, call.user_template]
        if self.context.conventions:
            names += [f"conventions/{self.context.conventions}{end}" for end in (".j2", "_state.j2")]
        return [n for n in names if n is not None]
