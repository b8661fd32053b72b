"""A pydantic model built from values the code computed itself, without validating them again.

Rollouts build an observation and a view at every step of a play-out, and a game builds a view at every move;
validating them again was a large share of a play-out's step. `trusted(Model, fields)` gives the instance that
`Model(**fields)` would give for values already of the fields' types: equal to it, dumped alike, with the same fields
set. tests/engine/test_rollout_game.py and tests/view/test_seat_view.py compare views with themselves validated
in many states.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
_set = object.__setattr__  # a frozen model refuses its own __setattr__


def trusted(cls: type[M], fields: dict[str, Any]) -> M:
    """An instance of `cls` holding `fields` (every field of the model, each value of its type) without validation:
    `fields` itself becomes the instance's `__dict__` and no value is copied: pass a fresh dict, whose values the
    caller never changes afterwards (they may be shared with other instances, as a view's cards share candidates)."""
    model = cls.__new__(cls)
    _set(model, "__dict__", fields)
    _set(model, "__pydantic_fields_set__", set(fields))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model
