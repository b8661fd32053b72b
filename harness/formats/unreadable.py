"""Unreadable: why a reply cannot be used, raised by the reader and turned into feedback by the reply format."""

from __future__ import annotations

from typing import Any


class Unreadable(Exception):
    """Why a reply cannot be used: an error kind, a finer reason for the feedback, and the facts to name."""

    def __init__(self, kind: str, why: str, **facts: Any) -> None:
        super().__init__(f"{kind}: {why}")
        self.kind = kind
        self.why = why
        self.facts = facts
