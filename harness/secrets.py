"""Keeps secrets out of everything the harness writes: API keys, bearer tokens, credentials in URLs.

`redact` scrubs a text of the values of key-like environment variables and of key-shaped tokens. `safe_url` drops
user info and query strings from a URL before it is recorded.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from harness.records import SeatConfig

_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$", re.IGNORECASE)
_KEY_SHAPES = [
    re.compile(r"(?P<keep>[a-z][a-z0-9+.-]*://)[^/@\s]+@", re.IGNORECASE),  # user:password@ in a URL
    re.compile(
        r"(?P<keep>[?&](?:key|api_key|apikey|token|access_token|sig|signature)=)[^&#\s]+", re.IGNORECASE
    ),
    re.compile(r"\b(?:sk|pk|rk|xai|gsk|sk-ant|sk-proj)-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._\-]{8,}"),
    re.compile(
        r"(?i)(?P<keep>(?:api[_-]?key|access[_-]?token|x-api-key|authorization)\s*[=:]\s*['\"]?)[^\s'\",&]{6,}"
    ),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"),
]
REDACTED = "[REDACTED]"


def _secret_values() -> list[str]:
    values = [v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8]
    return sorted(set(values), key=len, reverse=True)


def redact(text: str) -> str:
    for value in _secret_values():
        text = text.replace(value, REDACTED)
    for pattern in _KEY_SHAPES:
        text = pattern.sub(lambda m: (m.groupdict().get("keep") or "") + REDACTED, text)
    return text


def public_seat(seat: SeatConfig) -> SeatConfig:
    """A seat as it may be written to disk: URLs without credentials or query strings."""
    deployments = tuple(d.model_copy(update={"api_base": safe_url(d.api_base)}) for d in seat.deployments)
    return seat.model_copy(update={"api_base": safe_url(seat.api_base), "deployments": deployments})


def public_command(argv: list[str]) -> list[str]:
    """A command line as it may be written to disk."""
    return [redact(arg) for arg in argv]


def safe_url(url: str | None) -> str | None:
    """The URL without credentials or query string (which can carry keys)."""
    if url is None:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
