"""Inspect's registry entries for hanabi-eval, loaded through the `inspect_ai` entry point: the task `hanabi`
(`inspect eval hanabi_eval/hanabi`) and the model API `hanabi` (`--model hanabi/smart`). Inspect names a task by the
package that defines it, so the task is defined here; its work is harness.inspect."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError  # Inspect prints one as one line, no traceback
from inspect_ai.model import ModelAPI, modelapi

from harness.inspect.options import OptionValue, check_names, parse_options
from harness.inspect.task import hanabi_task
from harness.schema.errors import Refused


@task
def hanabi(
    scaffold: str = "watson",
    players: OptionValue = None,
    seeds: OptionValue = "standard",
    repeats: OptionValue = 1,
    seats: OptionValue = None,
    rotation: str | None = None,
    max_retries: OptionValue = None,
    k: OptionValue = None,
    **unknown: object,
) -> Task:
    """Hanabi games played by the eval's model (or a mixed team, `seats`) through a hanabi-eval scaffold.

    Args:
        scaffold: the prompt scaffold (`hanabi-eval scaffolds` lists them), e.g. watson, sherlock, mycroft.
        players: player counts, 2-5 (`players=2,3`); default 2, or the team's size.
        seeds: a seed set name (standard, heldout, ...), comma-separated seeds, or a seed file.
        repeats: plays of each seed (the same deal again, a separate game).
        seats: a mixed team, one `MODEL[:SCAFFOLD]` per seat (`seats=openai/gpt-4.1:sherlock,hanabi/smart`).
        rotation: mixed teams: seed (rotate by one per seed, the default), all (every rotation), off.
        max_retries: re-asks after an invalid reply before the game stops (default 3).
        k: samples per move for best-of-k scaffolds.
    """
    try:  # a refusal is shown as Inspect shows its own input errors: the message alone, before any model is called
        check_names(unknown)  # a misspelt option is refused, not dropped with a warning
        return hanabi_task(*parse_options(scaffold, players, seeds, repeats, seats, rotation, max_retries, k))
    except Refused as exc:
        raise PrerequisiteError(str(exc)) from None


@modelapi(name="hanabi")
def hanabi_bots() -> type[ModelAPI]:
    """The built-in rule-based players: hanabi/smart, hanabi/cautious."""
    from harness.inspect.bots import HanabiBotAPI

    return HanabiBotAPI
