"""Renders the report's content through the Jinja templates prompts/report.html.j2 and prompts/report.md.j2.

Number formatting lives here as filters (one place, so HTML and Markdown print the same digits); the wording lives
in the templates. Templates receive only the computed ReportContent.
"""

from __future__ import annotations

import jinja2

from harness.paths import prompts_dir
from harness.report.content import ReportContent
from harness.report.stats import Interval

MISSING = "—"


def num(value: float | None, digits: int = 2) -> str:
    return MISSING if value is None else f"{value:.{digits}f}"


def pct(value: float | None, digits: int = 1) -> str:
    return MISSING if value is None else f"{100 * value:.{digits}f}%"


def interval(value: Interval | None, digits: int = 2) -> str:
    return MISSING if value is None else f"[{value.low:.{digits}f}, {value.high:.{digits}f}]"


def signed(value: float | None, digits: int = 2) -> str:
    return MISSING if value is None else f"{value:+.{digits}f}"


def usd(value: float | None) -> str:
    return MISSING if value is None else f"${value:.4f}"


def thousands(value: float | None) -> str:
    return MISSING if value is None else f"{value:,.0f}"


def md_cell(text: object) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _environment(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(prompts_dir())),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        num=num, pct=pct, interval=interval, signed=signed, usd=usd, thousands=thousands, md=md_cell
    )
    return env


def render_html(content: ReportContent) -> str:
    return _environment(autoescape=True).get_template("report.html.j2").render(r=content)


def render_markdown(content: ReportContent) -> str:
    return _environment(autoescape=False).get_template("report.md.j2").render(r=content)
