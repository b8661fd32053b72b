"""The declared schema of every export, derived from the row models, and its version. A nullable field is
refused: Arrow types an all-null column `null`, and files typed differently do not combine."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

from pydantic import BaseModel

from harness.export.rows import HanabLiveGame, LogRow, PreferenceRow, RewardRow

# 1: exports before the schema was declared (nullable columns, every preference pair); 2: the declared schema;
# 3: HanabiRewards gains engine_values, engine_value_se and engine_rollouts.
SCHEMA_VERSION = 3

ROW_MODELS: dict[str, type[BaseModel]] = {
    "hanabilogs": LogRow,
    "hanabirewards": RewardRow,
    "preferences": PreferenceRow,
    "hanablive": HanabLiveGame,
}

_SCALARS: dict[Any, str] = {str: "string", int: "int64", float: "float64", bool: "bool"}


def _dtype(annotation: Any) -> Any:
    """The `datasets` YAML form of one field's type: a dtype name, {"list": ...} or {"struct": [...]}."""
    origin = typing.get_origin(annotation)
    if origin in (types.UnionType, typing.Union):
        raise TypeError(f"{annotation} may be null; exported columns never are")
    if origin is Literal:
        kinds = {type(v) for v in typing.get_args(annotation)}
        if len(kinds) != 1:
            raise TypeError(f"{annotation} mixes types")
        return _dtype(kinds.pop())
    if origin is list:
        item = _dtype(typing.get_args(annotation)[0])
        # datasets writes a list of structs as the bare list of the struct's fields
        return {"list": item["struct"] if isinstance(item, dict) and "struct" in item else item}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {"struct": features(annotation)}
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    raise TypeError(f"{annotation} has no declared Arrow type")


def features(model: type[BaseModel]) -> list[dict[str, Any]]:
    """The model's columns as `datasets` writes features in a card (`Features._to_yaml_list()`), in field order."""
    out: list[dict[str, Any]] = []
    hints = typing.get_type_hints(model)
    for name, field in model.model_fields.items():
        dtype = _dtype(hints[name])
        entry: dict[str, Any] = {"name": field.alias or name}
        if isinstance(dtype, dict):
            entry.update(dtype)
        else:
            entry["dtype"] = dtype
        out.append(entry)
    return out


def type_words(model: type[BaseModel], name: str) -> str:
    """A column's type in words for the card: 'list of {role, content, weight}', 'float64', ..."""
    return _words(typing.get_type_hints(model)[name])


def _words(annotation: Any) -> str:
    dtype = _dtype(annotation)
    if isinstance(dtype, str):
        return dtype
    if "list" in dtype and typing.get_origin(annotation) is list:
        return "list of " + _words(typing.get_args(annotation)[0])
    return "{" + ", ".join(f["name"] for f in dtype["struct"]) + "}"
