"""What a seat's request carries besides its messages, for the built-in players only: the seat's view and the reply
format. The Inspect caller sets it around one `generate`; the `hanabi/` model API reads it. Inspect's generate runs in
the caller's task (its retries and limits included), so a context variable reaches the model API unchanged, and no
other provider ever sees it."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

SEAT_REQUEST: ContextVar[dict[str, Any] | None] = ContextVar("hanabi_seat_request", default=None)
