"""Scaffolds by name: read and check the files in scaffolds/ (or one file by its path).

A scaffold combines context switches, a strategy (harness.strategies.registry), an output contract and its
Jinja templates in prompts/: adding one needs a TOML file (and templates if the wording is new), no Python.
"""

from __future__ import annotations

import difflib
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.formats import FORMAT_NAMES
from harness.schema.errors import Refused
from harness.schema.paths import prompts_dir, scaffolds_dir
from harness.strategies import best_of_k, memory, mixture, single
from harness.strategies.definition import MAX_K, ScaffoldDef
from harness.strategies.registry import get_strategy, strategy_names

BUILT_IN_STRATEGIES = (single, memory, best_of_k, mixture)  # importing a strategy's module registers it


def calls_per_move(scaffold: ScaffoldDef, players: int) -> int:
    """Model calls one move of the scaffold makes when nothing is re-asked (its strategy's count)."""
    return get_strategy(scaffold.strategy).calls_per_move(scaffold, players)


def calls_text(scaffold: ScaffoldDef) -> str:
    """Calls per move as `hanabi-eval scaffolds` lists them: "6 (5 for 2 players)", "k + 1 (6 at k = 5)"."""
    return get_strategy(scaffold.strategy).calls_text(scaffold)


def scaffold_names() -> list[str]:
    return sorted(p.stem for p in scaffolds_dir().glob("*.toml"))


def close_to(name: str) -> str:
    """" (did you mean NAME?)" for a near miss of a scaffold's name, else ""."""
    close = difflib.get_close_matches(name.lower(), scaffold_names(), n=1, cutoff=0.75)
    return f" (did you mean {close[0]}?)" if close else ""


BUILT_IN_PLAYERS = ("local/", "hanabi/")  # the built-in players' model strings, here and under Inspect


def model_and_scaffold(head: str, default: str, where: str) -> tuple[str, str]:
    """`MODEL[:SCAFFOLD]` as a seat names it. A model string may hold a colon itself (ollama/llama3:8b): the part
    after the last colon is the scaffold only when it names one; a near miss of a scaffold's name, or any other name
    after a built-in player, is refused as a typo (`where` names the seat as the user gave it)."""
    if ":" not in head:
        return head, default
    left, right = head.rsplit(":", 1)
    if right in scaffold_names():
        return left, right
    hint = close_to(right)
    if hint or left.startswith(BUILT_IN_PLAYERS):  # a built-in player's name has no tag: this was meant as a scaffold
        raise Refused(f"{where}: unknown scaffold {right!r}{hint}; see `hanabi-eval scaffolds`")
    return head, default


def parse_k(text: str, where: str) -> int:
    """A best-of-k sample count as written by a user ("k=3" in a seat or sweep spec)."""
    prefix = f"{where}: " if where else ""
    try:
        k = int(text)
    except ValueError:
        raise Refused(f"{prefix}k={text!r} is not a whole number; give k from 1 to {MAX_K}") from None
    if not 1 <= k <= MAX_K:
        raise Refused(f"{prefix}k={k} is out of range; give k from 1 to {MAX_K}")
    return k


def parse_scaffold_spec(spec: str) -> tuple[str, int | None]:
    """A sweep's scaffold entry: "NAME" or "NAME,k=N" (best-of-k with N samples); checked against the scaffold."""
    name, _, rest = spec.partition(",")
    k = None
    if rest:
        key, sep, value = rest.partition("=")
        if key.strip() != "k" or not sep:
            raise Refused(f"scaffold {spec!r}: the only setting a scaffold takes is k=N (best-of-k)")
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
    if Path(name).name != name or name.startswith(".") or not path.is_file():  # a name, never a path elsewhere
        raise Refused(f"unknown scaffold {name!r}{close_to(name)}; choose one of: {', '.join(scaffold_names())}")
    scaffold = read_scaffold(path)
    if k is None:
        return scaffold
    if not get_strategy(scaffold.strategy).takes_k:
        raise Refused(
            f"k={k} is for best-of-k scaffolds; {name!r} is not one: drop k or use e.g. best-of-k-watson"
        )
    if not 1 <= k <= MAX_K:
        raise Refused(f"k={k} is out of range; best-of-k takes k from 1 to {MAX_K}")
    return scaffold.model_copy(update={"k": k})


def _raw(path: Path, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """A scaffold file's TOML, with the file it `extends` (if any) underneath: its tables merged key by key."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    base_name = raw.pop("extends", None)
    if base_name is None:
        return raw
    base_path = scaffolds_dir() / f"{base_name}.toml"
    if base_name in seen or not base_path.is_file():
        raise Refused(f"scaffold file {path} extends {base_name!r}, which is missing or circular")
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


def read_scaffold(path: Path) -> ScaffoldDef:
    """A scaffold file, checked: its keys, its strategy's needs, its reply formats and templates. Any file: a file
    in scaffolds/ is read by name with load_scaffold; `extends` names a file in scaffolds/."""
    try:
        raw = _raw(path)
        scaffold = ScaffoldDef.model_validate(raw)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise Refused(f"scaffold file {path} is invalid: {str(exc).splitlines()[0]}") from exc
    except ValidationError as exc:
        raise Refused(f"scaffold file {path} is invalid: {_first_problem(exc)}") from exc
    if scaffold.name != path.stem:
        raise Refused(
            f"scaffold file {path} names itself {scaffold.name!r}; make name match the file name"
        )
    if scaffold.strategy not in strategy_names():
        known = ", ".join(strategy_names())
        raise Refused(f"scaffold {scaffold.name!r} names strategy {scaffold.strategy!r}; use one of: {known}")
    problem = get_strategy(scaffold.strategy).check(scaffold)
    if problem is not None:
        raise Refused(f"scaffold file {path} is invalid: {problem}")
    for call in (scaffold.base, *scaffold.roles, scaffold.decider):
        if call is not None and call.format is not None and call.format not in FORMAT_NAMES:
            raise Refused(
                f"scaffold {scaffold.name!r} names reply format {call.format!r}; use one of: {', '.join(FORMAT_NAMES)}"
            )
    for template in scaffold.templates():
        if not (prompts_dir() / template).is_file():
            raise Refused(f"scaffold {scaffold.name!r} uses missing template prompts/{template}")
    return scaffold


def _first_problem(exc: ValidationError) -> str:
    """A validation error as one line: where in the file, and what is wrong."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    if where == "context.working_memory":  # a switch of earlier versions, now a strategy of its own
        message += '; working memory is now a strategy: write strategy = "memory" instead'
    return f"{where}: {message}" if where else message
