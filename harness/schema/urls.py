"""The one check of a server's base URL, wherever one enters: --api-base (run, resume, judge), a seat's api_base, a
sweep model's api_base and each of its deployments'. A URL is refused before anything is written or called."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from harness.schema.errors import Refused

EXAMPLE = "http://127.0.0.1:8000/v1"
_USERINFO = re.compile(r"//[^/@]*@")


def shown(url: str) -> str:
    """The URL as an error message may show it: without credentials or a query string (they can carry keys)."""
    return _USERINFO.sub("//", url).split("?", 1)[0]


def url_problem(url: str) -> str | None:
    """What keeps `url` from being a server's base URL, or None: an http(s) URL with a host and a port in range."""
    if not url or any(c.isspace() for c in url):
        return "is not a URL (empty, or holding a space)"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return "is not an http(s) URL"
    try:
        port = parts.port
    except ValueError:
        return "has a port outside 1-65535"
    if not parts.hostname:
        return "names no host"
    if port == 0:
        return "has a port outside 1-65535"
    return None


def check_url(url: str, what: str) -> None:
    """Refuse (one line naming `what`, e.g. "--api-base", and the fix) a `url` that is not usable."""
    problem = url_problem(url)
    if problem is not None:
        raise Refused(f"{what} {shown(url)!r} {problem}; write e.g. {EXAMPLE}")
