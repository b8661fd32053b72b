"""Reading a model's reply into a validated decision, tolerating what models really write.

Accepted: a JSON object (bare, in a code fence, or wrapped in prose; keys in any order; reason texts with braces),
or the text form "Reasoning: ... Move Ratings: Move 0: 0.5, ... Chosen Move Number: **7**". The chosen action must
be a legal move index. Ratings the reply leaves out are recorded as missing (None), never invented; out-of-range
or unreadable ratings are recorded as invalid. A reply that cannot be used raises ReplyProblem, whose message is
sent back to the model and names the specific problem.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from harness.cards import COLOR_NAMES, COLORS, RANKS
from harness.records import ErrorKind

_COLOR_LETTER = {name.lower(): letter for letter, name in COLOR_NAMES.items()}


class ReplyProblem(ValueError):
    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind


class MoveReply(BaseModel):
    """The output contract shared by every scaffold: an action, a rating per legal move, a reason."""

    model_config = ConfigDict(extra="allow")

    action: int
    move_ratings: list[tuple[str, Any]] | None = None  # (move key as written, rating as written)
    reason: str = ""


class CardDeduction(BaseModel):
    """What a player could still consider possible for one card of their hand."""

    card: int
    colors: list[str]
    ranks: list[int]

    @field_validator("colors", mode="before")
    @classmethod
    def _color_letters(cls, value: Any) -> list[str]:
        if not isinstance(value, list):
            raise ValueError("colors must be a list of colour letters")
        letters = []
        for item in value:
            text = str(item).strip()
            letter = text.upper() if text.upper() in COLORS else _COLOR_LETTER.get(text.lower())
            if letter is None:
                raise ValueError(f"{text!r} is not a colour (use R, Y, G, W, B)")
            letters.append(letter)
        return letters

    @field_validator("ranks")
    @classmethod
    def _valid_ranks(cls, value: list[int]) -> list[int]:
        if any(r not in RANKS for r in value):
            raise ValueError("ranks must be numbers from 1 to 5")
        return value


class MemoryReply(MoveReply):
    """Mycroft's contract adds a deduction block: for every player, what each of their cards could be."""

    deductions: dict[str, list[CardDeduction]]


CONTRACTS: dict[str, type[MoveReply]] = {"move": MoveReply, "memory": MemoryReply}


class ParsedReply(BaseModel):
    model_config = ConfigDict(frozen=True)

    action: int
    ratings: list[float | None]
    invalid_ratings: dict[str, str]
    reason: str
    extras: dict[str, Any]


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_CHOSEN = re.compile(
    r"chosen[\s_]*(?:move|action)[\s_]*(?:number|index|no\.?)?\s*[:=\-]?\s*[*_`\s]*[\[(#]?\s*(-?\d+)",
    re.IGNORECASE,
)
_TEXT_RATING = re.compile(
    r"move\s*#?\s*(\d+)\s*(?:\([^)\n]*\)\s*)?[:=]\s*[*_`]*\s*([+\-]?(?:\d+(?:\.\d*)?|\.\d+))", re.IGNORECASE
)
_REASONING = re.compile(
    r"reason(?:ing)?\s*[:=]\s*(.*?)(?=move\s+ratings\s*[:=]|chosen\s+move|\Z)", re.IGNORECASE | re.DOTALL
)


def parse_reply(
    text: str, n_legal: int, contract: str = "move", required: tuple[str, ...] = ()
) -> ParsedReply:
    """Parse and validate one reply against the scaffold's contract and the number of legal moves."""
    if not text or not text.strip():
        raise ReplyProblem("empty_reply", "Your reply was empty. " + _ask(n_legal))
    data = _json_object(text)
    if data is None:
        data = _text_form(text)
    if data is None:
        raise ReplyProblem(
            "unparseable",
            'I could not find your chosen move in the reply: there was no JSON object with an "action" key and no '
            "'Chosen Move Number: N' line. " + _ask(n_legal),
        )
    action = _as_int(data.get("action"))
    if action is None:
        raise ReplyProblem(
            "unparseable",
            f"The chosen action {data.get('action')!r} is not a move number. " + _ask(n_legal),
        )
    if not 0 <= action < n_legal:
        raise ReplyProblem(
            "illegal_move",
            f"Move {action} is not a legal move: the legal moves are numbered 0 to {n_legal - 1}. "
            "Choose one of the listed move numbers.",
        )
    data["action"] = action
    for name in required:
        if name == "action":
            continue
        value = data.get(name)
        if value is None or value == "" or value == []:
            raise ReplyProblem(
                "missing_field", f'Your reply has no "{name}" field, which is required. ' + _ask(n_legal)
            )
    try:
        reply = CONTRACTS[contract].model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(p) for p in error["loc"])
        raise ReplyProblem(
            "missing_field", f'The "{field}" field is invalid: {error["msg"]}. ' + _ask(n_legal)
        ) from None
    ratings, invalid = _align_ratings(reply.move_ratings or [], n_legal)
    extras = {k: v for k, v in reply.model_dump().items() if k not in ("action", "move_ratings", "reason")}
    return ParsedReply(
        action=action, ratings=ratings, invalid_ratings=invalid, reason=reply.reason.strip(), extras=extras
    )


def _ask(n_legal: int) -> str:
    return f"Answer again in the required output format, choosing one move number from 0 to {n_legal - 1}."


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(?:move\s*)?#?\s*(-?\d+)\s*(?:\(.*\))?\s*", value, re.IGNORECASE)
        if match:
            return int(match.group(1))
    if isinstance(value, dict):
        for key in ("action", "index", "move", "id"):
            if key in value:
                return _as_int(value[key])
    return None


# ---- JSON form -------------------------------------------------------------------------------------------------


def _json_object(text: str) -> dict[str, Any] | None:
    """The last JSON object in the text that names an action, normalised; None if there is none."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + _balanced_objects(text)
    found = None
    for candidate in candidates:
        obj = _loads(candidate)
        if isinstance(obj, dict):
            normalised = _normalise(obj)
            if normalised.get("action") is not None:
                found = normalised
    return found


def _balanced_objects(text: str) -> list[str]:
    """Top-level {...} spans, skipping braces inside JSON strings."""
    spans: list[str] = []
    first = text.find("{")
    if first < 0:  # the common text-form reply: no need to walk it character by character
        return spans
    depth, start, in_string, escaped = 0, -1, False, False
    for i, ch in enumerate(text[first:], start=first):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"' and depth > 0:
            in_string = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def _loads(candidate: str) -> Any:
    candidate = candidate.strip()
    for attempt in (candidate, _repair(candidate)):
        try:
            return json.loads(attempt)
        except (json.JSONDecodeError, ValueError):
            continue
    return None


def _repair(candidate: str) -> str:
    """Mend the common slips: smart quotes, trailing commas, unquoted keys."""
    fixed = candidate.replace("\u201c", '"').replace("\u201d", '"').replace("\u2019", "'")
    fixed = re.sub(r",\s*([}\]])", r"\1", fixed)
    fixed = re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:", r'\1"\2":', fixed)
    return fixed


_ACTION_KEYS = ("action", "chosen_move", "chosen_move_number", "move", "chosen_action", "move_index")
_RATING_KEYS = ("move_ratings", "ratings", "move_rating")
_REASON_KEYS = ("reason", "reasoning", "rationale", "explanation")


def _normalise(obj: dict[str, Any]) -> dict[str, Any]:
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    out: dict[str, Any] = {
        k: v for k, v in lowered.items() if k not in (*_ACTION_KEYS, *_RATING_KEYS, *_REASON_KEYS)
    }
    out["action"] = next((lowered[k] for k in _ACTION_KEYS if k in lowered), None)
    raw_ratings = next((lowered[k] for k in _RATING_KEYS if k in lowered), None)
    out["move_ratings"] = None if raw_ratings is None else _rating_pairs(raw_ratings)
    reason = next((lowered[k] for k in _REASON_KEYS if k in lowered), "")
    out["reason"] = reason if isinstance(reason, str) else json.dumps(reason)
    return out


def _rating_pairs(raw: Any) -> list[tuple[str, Any]]:
    """Ratings as (move key, value) pairs, from a list of objects, a dict keyed by move, or a plain list."""
    pairs: list[tuple[str, Any]] = []
    if isinstance(raw, dict):
        return [(str(k), v) for k, v in raw.items()]
    if isinstance(raw, list):
        for position, item in enumerate(raw):
            if isinstance(item, dict):
                lowered = {str(k).lower(): v for k, v in item.items()}
                key = next((lowered[k] for k in ("action", "move", "index", "id") if k in lowered), None)
                value = next((lowered[k] for k in ("rating", "score", "value") if k in lowered), None)
                pairs.append((str(key), value))
            elif isinstance(item, int | float | str):
                pairs.append((str(position), item))
    return pairs


# ---- text form -------------------------------------------------------------------------------------------------


def _text_form(text: str) -> dict[str, Any] | None:
    chosen = list(_CHOSEN.finditer(text))
    if not chosen:
        return None
    ratings_text = text[: chosen[-1].start()]
    pairs = [(m.group(1), m.group(2)) for m in _TEXT_RATING.finditer(ratings_text)]
    reasoning = _REASONING.search(text)
    return {
        "action": int(chosen[-1].group(1)),
        "move_ratings": pairs or None,
        "reason": reasoning.group(1).strip() if reasoning else "",
    }


# ---- ratings ---------------------------------------------------------------------------------------------------


def _align_ratings(pairs: list[tuple[str, Any]], n_legal: int) -> tuple[list[float | None], dict[str, str]]:
    ratings: list[float | None] = [None] * n_legal
    invalid: dict[str, str] = {}
    for key, value in pairs:
        index = _as_int(key)
        if index is None or not 0 <= index < n_legal:
            invalid[str(key)] = f"{value} (no such move)"
            continue
        number = _as_float(value)
        if number is None or not -1.0 <= number <= 1.0:
            invalid[str(index)] = str(value)
            continue
        if ratings[index] is None:
            ratings[index] = number
    return ratings, invalid


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip().strip("*"))
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None
