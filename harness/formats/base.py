"""The ReplyFormat: one shape of reply, with its instructions, strict reader, feedback wording and writer.

Move formats share one reader (harness.formats.reading) and differ in layout ("text" or "json"), in the fields they
carry and in their wording. The report format reads free text. Wording lives in prompts/formats/.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import cache
from typing import Any, Literal

import jinja2
from pydantic import BaseModel, ConfigDict

from harness.formats import doubt, reading
from harness.formats.reading import Unreadable
from harness.schema.moves import Move
from harness.schema.paths import prompts_dir, template_environment


class ReplyProblem(ValueError):
    """A reply that cannot be used. `kind` is the logged error kind; the message is the feedback for the model."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class ParsedReply(BaseModel):
    """A reply read into a decision: the chosen legal move, a rating per legal move, the reason, other fields."""

    model_config = ConfigDict(frozen=True)

    action: int
    ratings: list[float | None]  # one per legal move; None where the reply gave none or an invalid one
    invalid_ratings: dict[str, str]  # move key as written -> the value that could not be used
    reason: str
    extras: dict[str, Any]  # other fields of the reply (Mycroft's deductions)


@cache
def _environment() -> jinja2.Environment:
    return template_environment(prompts_dir(), auto_reload=False)


def render(template: str, **context: Any) -> str:
    text = _environment().get_template(template).render(**context)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def moves_text(allowed: Collection[int]) -> str:
    """Move numbers as a sentence names them: "0 to 5", "2, 4 or 7"."""
    ordered = sorted(set(allowed))
    if not ordered:
        return "none"
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]} to {ordered[-1]}"
    if len(ordered) == 1:
        return str(ordered[0])
    return ", ".join(str(n) for n in ordered[:-1]) + f" or {ordered[-1]}"


@dataclass(frozen=True)
class ReplyFormat:
    """One reply format. Instances are immutable; `with_required` gives the same format with other required fields."""

    name: str
    layout: Literal["text", "json", "free"]
    template: str  # the instructions block, a partial in prompts/
    reminder: str  # the short restatement of the format that ends every feedback message
    fields: tuple[str, ...]  # the fields a reply in this format carries, in the order it writes them
    required: tuple[str, ...] = ("action",)

    def with_required(self, required: Collection[str]) -> ReplyFormat:
        return replace(self, required=tuple(required))

    # ---- feedback ----

    def feedback(self, kind: str, allowed: Collection[int] = (), **facts: Any) -> str:
        """The message that tells the model what was wrong, in plain words and in this format's terms."""
        context = {
            "fmt": self,
            "kind": kind,
            "why": facts.pop("why", ""),
            "moves": moves_text(allowed),
            **facts,
        }
        return render("formats/feedback.j2", **context) + "\n\n" + render(self.reminder, **context)

    # ---- reading ----

    def read(
        self,
        text: str,
        n_legal: int,
        allowed: Collection[int] | None = None,
        moves: Sequence[Move] | None = None,
    ) -> ParsedReply | str:
        """The decision in `text`, or ReplyProblem with feedback. `allowed`: the move indices the reply may choose
        (default: every legal move, 0 to n_legal - 1). `moves`: the legal moves, when known; a reply that describes
        its move as another ("10 (Discard 0)" where move 10 is a clue, "2 (Play 3)" where it is Play 2) is then
        ambiguous."""
        allowed_moves = range(n_legal) if allowed is None else allowed
        try:
            return self._read(text, n_legal, allowed_moves, moves)
        except Unreadable as problem:
            raise ReplyProblem(
                problem.kind, self.feedback(problem.kind, allowed_moves, why=problem.why, **problem.facts)
            ) from None

    def _read(
        self, text: str, n_legal: int, allowed: Collection[int], moves: Sequence[Move] | None
    ) -> ParsedReply | str:
        if not text or not text.strip():
            raise Unreadable("empty_reply", "empty")
        clean = reading.normalise(text)
        if not clean.strip():
            raise Unreadable("empty_reply", "only_thinking")
        if self.layout == "free":
            return clean.strip()
        return self._read_move(clean, n_legal, allowed, moves)

    def _read_move(
        self, text: str, n_legal: int, allowed: Collection[int], moves: Sequence[Move] | None
    ) -> ParsedReply:
        spans = reading.json_spans(text)
        outside = reading.strip_markup(reading.blank_spans(text, reading.unread_spans(text, spans)))
        labels = reading.chosen_labels(outside)
        claims = [
            _Claim(n, "the Chosen Move Number line", said)
            for n, said in zip(labels.numbers, labels.described, strict=True)
        ]
        described = list(claims)  # every place that names the move, with what it says of it
        described.extend(_Claim(-1, "the Chosen Move line", said) for said in labels.unnumbered)
        chosen_object: dict[str, Any] | None = None
        elsewhere: list[tuple[str, Any]] = []  # move-like fields of objects without an action field
        objects_without_action = 0
        for span in spans:
            if not isinstance(span.value, dict):
                continue
            obj = reading.normalised_keys(span.value)
            keys = [k for k in reading.ACTION_KEYS if k in obj and obj[k] is not None]
            if not keys:
                objects_without_action += 1
                nested = reading.nested_move_field(span.value)
                if nested is not None:
                    elsewhere.append(nested)
                continue
            found = _object_claims(span.value, obj, keys[0])
            if len({c.move for c in found}) > 1:
                raise Unreadable("ambiguous", "several", claims=_first_claims(found))
            claims.append(_Claim(found[0].move, "a JSON object"))
            described.extend(found)
            chosen_object = obj
        if not claims:
            if elsewhere:
                raise Unreadable("ambiguous", "nested", field=elsewhere[0][0])
            if any(not s.readable for s in spans):
                raise Unreadable("unparseable", "bad_json")
            if objects_without_action:
                raise Unreadable("unparseable", "no_action_key")
            if labels.unnumbered:
                raise Unreadable("unparseable", "label_without_number")
            raise Unreadable("unparseable", "no_move")
        claims.extend(_Claim(n, where) for n, where in reading.other_mentions(text, spans, outside))
        for path, value in elsewhere:  # "move": 6 in another object beside {"action": 5}
            try:
                claims.append(_Claim(reading.move_value(value, path), f"{path} of another JSON object"))
            except Unreadable:
                continue
        distinct = sorted({c.move for c in claims})
        if len(distinct) > 1:
            raise Unreadable("ambiguous", "several", claims=_first_claims(claims))
        action = distinct[0]
        if action not in allowed:
            raise Unreadable("illegal_move", "not_allowed", move=action, legal=action in range(n_legal))
        if moves is not None and 0 <= action < len(moves):
            _check_description(described, chosen_object or {}, action, moves[action])
        if chosen_object is not None and chosen_object in _examples(self.template):
            raise Unreadable("unparseable", "copied_example")
        # the fields come from where the move came from: the JSON object, or the text layout's lines
        data = reading.text_fields(outside, labels) if chosen_object is None else _json_fields(chosen_object)
        self._check_required(data)
        extras = self._extras(chosen_object or {})
        ratings, invalid = _align_ratings(data.get("move_ratings") or [], n_legal)
        return ParsedReply(
            action=action,
            ratings=ratings,
            invalid_ratings=invalid,
            reason=data.get("reason") or "",
            extras=extras,
        )

    def _check_required(self, data: dict[str, Any]) -> None:
        for name in self.required:
            if name in ("action", "deductions"):
                continue
            value = data.get(name)
            if value is None:
                raise Unreadable("missing_field", "missing", field=name)
            if value in ("", []):
                raise Unreadable("missing_field", "empty", field=name)

    def _extras(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Fields beyond action, ratings and reason (checked by formats that define them)."""
        known = (*reading.ACTION_KEYS, *reading.RATING_KEYS, *reading.REASON_KEYS)
        return {k: v for k, v in obj.items() if k not in known}

    # ---- writing ----

    def write(
        self, action: int, ratings: list[tuple[int, float]], reason: str, extras: dict[str, Any] | None = None
    ) -> str:
        """A well-formed reply in this format choosing `action`, with (move, rating) pairs and a reason."""
        if self.layout == "free":
            return reason
        if self.layout == "text":
            listed = ", ".join(f"Move {i}: {_plain(r)}" for i, r in ratings)
            return f"Reasoning: {reason}\nMove Ratings: {listed}\nChosen Move Number: {action}"
        payload: dict[str, Any] = dict(extras or {})
        if "move_ratings" in self.fields:
            payload["move_ratings"] = [{"action": i, "rating": r} for i, r in ratings]
        payload["reason"] = reason
        payload["action"] = action
        return json.dumps(payload)


@cache
def _examples(template: str) -> list[dict[str, Any]]:
    """The JSON objects the instructions show as examples: a reply that is one of them copied the instructions."""
    shown = render(template, players=2)
    return [reading.normalised_keys(s.value) for s in reading.json_spans(shown) if isinstance(s.value, dict)]


def _plain(number: float) -> str:
    """A rating written positionally (never 1e-05), with the digits that read back to the same float."""
    return format(Decimal(repr(number)), "f")


@dataclass(frozen=True)
class _Claim:
    """A move a reply names, where it names it, and what it says of the move there ("(Play 0)"), if anything."""

    move: int
    where: str
    said: str = ""


def _object_claims(raw: dict[str, Any], obj: dict[str, Any], main: str) -> list[_Claim]:
    """The moves a JSON object with an action field names: the action (in every spelling and every repetition of
    its key), any move-like field beside it ("move": 11, "move": [11]) and any move key inside another field
    ("reason": {"choice": 11}). Words in a move-like field ("move": "(Play 1)", "chosen_move": "Discard card 0") or
    in a describing field ("type": "discard") describe the move, and are checked against it. `main`: the action
    field, which must hold a move number."""
    found = [_Claim(reading.move_value(obj[main], f'"{main}"'), f'the "{main}" field', reading.described(obj[main]))]
    for k in reading.NESTED_MOVE_KEYS:
        values = reading.repeated_values(raw, k) or ([obj[k]] if k in obj and k != main else [])
        for value in values:
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, dict | list):  # a structured move: its words describe it, its index names it
                    found.append(_Claim(found[0].move, f'the "{k}" field', _words(item)))
                    named = item if isinstance(item, dict) else {}
                    for inner in ("move", "move_index", "move_number", "move_id", "action", "number"):
                        if reading.looks_like_number(named.get(inner)):
                            found.append(_Claim(reading.move_value(named[inner], f'"{k}.{inner}"'), f'"{k}.{inner}"'))
                    continue
                where = f'the "{k}" field'
                try:
                    found.append(_Claim(reading.move_value(item, f'"{k}"'), where, reading.described(item)))
                except Unreadable as problem:
                    if problem.kind != "unparseable" or k == main:
                        raise
                    found.append(_Claim(found[0].move, where, reading.described(item)))  # words: a description
    for k in reading.DESCRIPTION_KEYS:
        if isinstance(obj.get(k), str):
            found.append(_Claim(found[0].move, f'the "{k}" field', obj[k][: reading.LINE_READ]))
    for path, value in reading.moves_below(raw):
        found.append(_Claim(reading.move_value(value, f'"{path}"'), f'"{path}"'))
    return found


def _words(value: dict[str, Any] | list[Any]) -> str:
    """The words of a structured description ({"type": "discard", "card": 0}): its short string values."""
    items = value.values() if isinstance(value, dict) else value
    return " ".join(v for v in itertools.islice(items, 16) if isinstance(v, str))[: reading.LINE_READ]


def _check_description(claims: list[_Claim], fields: dict[str, Any], action: int, move: Move) -> None:
    """Refuse a move described as another: "10 (Discard 0)" where move 10 is a clue, "2 (Play 3)" where it is
    Play 2, or a JSON object's "color": "B" beside a clue of green."""
    by_fields = doubt.field_contradiction(fields, move)
    described = [(c.where, c.said.strip()[:80], doubt.contradiction(c.said, move)) for c in claims]
    for where, said, named in [*described, ("a JSON object", by_fields or "", by_fields)]:
        if named is not None:
            raise Unreadable(
                "ambiguous",
                "contradicts",
                move=action,
                actual=move.description.strip("()"),
                named=named,
                said=said,
                where=where,
            )


def _first_claims(claims: list[_Claim]) -> list[tuple[int, str]]:
    """One claim per distinct move, in the order the reply made them, at most four."""
    seen: dict[int, str] = {}
    for claim in claims:
        seen.setdefault(claim.move, claim.where)
    return list(seen.items())[:4]


def _json_fields(obj: dict[str, Any]) -> dict[str, Any]:
    raw_ratings = next((obj[k] for k in reading.RATING_KEYS if k in obj), None)
    reason = next((obj[k] for k in reading.REASON_KEYS if k in obj), None)
    if reason is not None and not isinstance(reason, str):
        reason = json.dumps(reason)
    return {
        "move_ratings": None if raw_ratings is None else _rating_pairs(raw_ratings),
        "reason": (reason or "").strip() if reason is not None else None,
    }


def _rating_pairs(raw: Any) -> list[tuple[str, Any]]:
    """Ratings as (move key, value) pairs, from a list of objects, a dict keyed by move, or a plain list."""
    if isinstance(raw, dict):
        return [(str(k), v) for k, v in itertools.islice(raw.items(), reading.MAX_RATINGS_READ)]
    pairs: list[tuple[str, Any]] = []
    if isinstance(raw, list):
        for position, item in enumerate(raw[: reading.MAX_RATINGS_READ]):
            if isinstance(item, dict):
                lowered = reading.normalised_keys(item)
                key = next((lowered[k] for k in ("action", "move", "index", "id") if k in lowered), None)
                value = next((lowered[k] for k in ("rating", "score", "value") if k in lowered), None)
                pairs.append((str(key), value))
            elif isinstance(item, int | float | str):
                pairs.append((str(position), item))
    return pairs


def _align_ratings(pairs: list[tuple[str, Any]], n_legal: int) -> tuple[list[float | None], dict[str, str]]:
    """A rating per legal move; missing ones None (never invented), unusable ones recorded as invalid."""
    ratings: list[float | None] = [None] * n_legal
    invalid: dict[str, str] = {}
    limit = MAX_RATINGS_PER_MOVE * n_legal
    if len(pairs) > limit:
        invalid["(more)"] = f"{len(pairs) - limit} ratings beyond {limit} left unread"
    for key, value in pairs[:limit]:
        index = _index(key)
        if index is None or not 0 <= index < n_legal:
            invalid[str(key)[:40]] = f"{str(value)[:40]} (no such move)"
            continue
        number = _as_float(value)
        if number is None or not -1.0 <= number <= 1.0:
            invalid[str(index)] = str(value)[:40]
            continue
        if ratings[index] is None:
            ratings[index] = number
        elif ratings[index] != number:  # a second, different rating of one move: the first stands, the other is kept
            invalid.setdefault(f"{index} (again)", str(value)[:40])
    return ratings, invalid


_INDEX = re.compile(r"[ \t]{0,4}(?:move[ \t]{0,3})?#?[ \t]{0,3}(\d{1,6})[ \t]{0,4}", re.IGNORECASE)
MAX_RATINGS_PER_MOVE = 4  # a reply rating far more moves than there are is not read past this many per move


def _index(key: str) -> int | None:
    match = _INDEX.fullmatch(key)
    return int(match.group(1)) if match else None


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and len(value) <= 40:
        try:
            number = float(value.strip().strip("*"))
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None
