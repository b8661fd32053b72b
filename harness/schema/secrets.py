"""Keeps secrets out of everything the harness writes: API keys, bearer tokens, credentials in URLs.

`redact` scrubs a text of the values of key-like environment variables, of the secrets the run registered and
of key-shaped tokens; its patterns never match a double quote or a backslash, so a redacted JSON line stays
valid JSON. `safe_url` drops user info and query strings from a URL before it is recorded.
"""

from __future__ import annotations

import base64
import os
import re
from typing import NamedTuple
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from harness.schema.records import SeatConfig

_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$", re.IGNORECASE)


class _KeyShape(NamedTuple):
    """A key-shaped token's pattern and what a text must hold for the pattern to be tried: one character of each of
    `needs` (found at memchr speed) and one of the lowercase `fragments` (each a substring search of the whole text).
    These cheap checks keep redaction fast on long texts (a game log line holds whole prompts)."""

    pattern: re.Pattern[str]
    needs: tuple[str, ...]
    fragments: tuple[str, ...]


_KEY_SHAPES = [
    # user:password@ in a URL (found from its "://", a literal the regex engine scans for quickly)
    _KeyShape(re.compile(r"(?P<keep>://)[^/@\s\"'\\]{1,400}@"), ("@",), ("://",)),
    _KeyShape(
        re.compile(
            r"(?P<keep>[?&](?:key|api_key|apikey|token|access_token|sig|signature)=)[^&#\s\"'\\]+",
            re.IGNORECASE,
        ),
        ("=", "?&"),
        ("key=", "token=", "sig=", "signature="),
    ),
    # "k-" is in each of sk-, pk-, rk-, gsk-, sk-ant- and sk-proj-
    _KeyShape(re.compile(r"\b(?:sk|pk|rk|xai|gsk|sk-ant|sk-proj)-[A-Za-z0-9_\-]{8,}"), ("-",), ("k-", "xai-")),
    # an Authorization value: a token with a digit in it ("a basic strategy" is prose, not a credential)
    _KeyShape(
        re.compile(r"(?i)\b(?:bearer|basic)\s+(?=[A-Za-z._\-+/=]{0,200}\d)[A-Za-z0-9._\-+/=]{8,}"),
        (),
        ("bearer", "basic"),
    ),
    _KeyShape(
        re.compile(
            r"(?i)(?P<keep>(?:api[_-]?key|access[_-]?token|x-api-key|authorization)['\"]?\s{0,5}[=:]\s{0,5}['\"]?)"
            r"[^\s'\",&\\]{6,}"
        ),
        ("=:",),
        ("api_key", "api-key", "apikey", "access_token", "access-token", "authorization"),
    ),
    _KeyShape(re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"), (), ("aiza",)),
]
REDACTED = "[REDACTED]"
_REGISTERED: set[str] = set()
MIN_SECRET_CHARS = 6  # shorter values would match ordinary words


def register_secret(value: str | None) -> None:
    """Redact this value from now on wherever it appears (a key or password the run sends)."""
    if value and len(value) >= MIN_SECRET_CHARS:
        _REGISTERED.add(value)


# (the environment as last read, how many secrets were registered then, the values to redact): read again
# only when the environment's raw mapping or the secrets registered change (reading costs more than redacting)
_VALUES_CACHE: tuple[dict[bytes, bytes], int, list[str]] | None = None


def _secret_values() -> list[str]:
    global _VALUES_CACHE
    raw = getattr(os.environ, "_data", None)  # CPython's undecoded environment; without it, read every time
    cached = _VALUES_CACHE
    if raw is not None and cached is not None and cached[1] == len(_REGISTERED) and cached[0] == raw:
        return cached[2]
    values = {v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8}
    ordered = sorted(values | _REGISTERED, key=len, reverse=True)
    if raw is not None:
        _VALUES_CACHE = (dict(raw), len(_REGISTERED), ordered)
    return ordered


def redact(text: str) -> str:
    for value in _secret_values():
        if value in text:
            text = text.replace(value, REDACTED)
    lowered: str | None = None  # the text as it came, lowercased once a shape's characters are all there
    for pattern, needs, fragments in _KEY_SHAPES:
        if not all(any(char in text for char in chars) for chars in needs):
            continue
        if lowered is None:
            lowered = text.lower()
        if any(fragment in lowered for fragment in fragments):
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
    return urlunsplit((parts.scheme, _host(parts), parts.path, "", ""))


def _host(parts: SplitResult) -> str:
    """A URL's host and port, without its user info (an IPv6 host keeps its brackets)."""
    host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else parts.hostname or ""
    return f"{host}:{parts.port}" if parts.port else host


def split_credentials(url: str) -> tuple[str, str | None, dict[str, str]]:
    """An --api-base URL without its user info, and that user info as a provider expects it: `key@host` gives the
    API key `key` (sent as a bearer token); `user:password@host` gives an HTTP Basic Authorization header. Both are
    registered for redaction. The query string is kept: some servers take parameters there."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None, {}
    clean = urlunsplit((parts.scheme, _host(parts), parts.path, parts.query, parts.fragment))
    user = unquote(parts.username or "")
    password = unquote(parts.password) if parts.password is not None else None
    if password is None or (not user and password):
        key = password if password else user
        register_secret(key)
        return clean, key, {}
    register_secret(password)
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    register_secret(token)
    return clean, None, {"Authorization": f"Basic {token}"}
