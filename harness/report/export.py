"""Writes report tables as CSV and JSON with the same flat rows (nested figures become columns joined with
"_"); a figure that does not exist is an empty CSV cell and null in JSON, never nan."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, f"{name}_"))
        elif isinstance(value, list | tuple):
            flat[name] = "; ".join(" vs ".join(v) if isinstance(v, list | tuple) else str(v) for v in value)
        elif isinstance(value, float) and not math.isfinite(value):
            flat[name] = None  # never a nan or inf in a table: an empty cell, null in JSON
        else:
            flat[name] = value
    return flat


def write_table(folder: Path, name: str, rows: Sequence[BaseModel | dict[str, Any]]) -> list[Path]:
    """Write `name`.csv and `name`.json; columns are the union of the rows' keys, in first-seen order."""
    flat = [flatten(r.model_dump(mode="json") if isinstance(r, BaseModel) else r) for r in rows]
    columns: dict[str, None] = {}
    for row in flat:
        columns.update(dict.fromkeys(row))
    csv_path, json_path = folder / f"{name}.csv", folder / f"{name}.json"
    with csv_path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns))
        writer.writeheader()
        for row in flat:
            writer.writerow({k: "" if row.get(k) is None else row.get(k) for k in columns})
    json_path.write_text(json.dumps(flat, indent=1) + "\n", encoding="utf-8")
    return [csv_path, json_path]
