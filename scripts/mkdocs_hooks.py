"""MkDocs hooks (mkdocs.yml `hooks:`): the site's home page takes its sections from README.md.

A page may hold `<!-- README:NAME -->`: it is replaced by the text between `<!-- docs:start NAME -->` and
`<!-- docs:end NAME -->` in README.md, its links to `docs/...` made relative to the docs folder. So the front page
and the site's home say the same thing from one source, and the strict build checks the README's links as well.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parent.parent / "README.md"
PLACE = re.compile(r"<!-- README:([\w-]+) -->")


def readme_section(name: str) -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"<!-- docs:start {name} -->\n(.*?)<!-- docs:end {name} -->", text, re.DOTALL)
    if match is None:
        raise ValueError(f"README.md has no section {name!r} (<!-- docs:start {name} --> ... <!-- docs:end {name} -->)")
    return re.sub(r"\]\(docs/", "](", match.group(1))


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    return PLACE.sub(lambda m: readme_section(m.group(1)), markdown)
