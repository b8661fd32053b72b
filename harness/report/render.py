"""Renders the report's content through the Jinja templates under templates/.

Number formatting lives here as filters, so HTML and Markdown print the same digits: a missing figure is "—",
an unknown price "unpriced", never nan or $0.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2

from harness.report.site_links import SiteLinks
from harness.schema.paths import template_environment

if TYPE_CHECKING:  # the viewer and the table format numbers here without loading the report's statistics
    from harness.report.content import ReportContent
    from harness.report.costs import Spend
    from harness.report.stats import Estimate, Interval

MISSING = "—"
UNPRICED = "unpriced"


def _absent(value: float | None) -> bool:
    """No figure to print: None, or a nan/inf that must never reach a table."""
    return value is None or not math.isfinite(value)


def num(value: float | None, digits: int = 2) -> str:
    return MISSING if _absent(value) else f"{value:.{digits}f}"


def pct(value: float | None, digits: int = 1) -> str:
    return MISSING if _absent(value) else f"{100 * value:.{digits}f}%"  # type: ignore[operator]


def interval(value: Interval | None, digits: int = 2) -> str:
    if value is None or _absent(value.low) or _absent(value.high):
        return MISSING
    return f"[{value.low:.{digits}f}, {value.high:.{digits}f}]"


def signed(value: float | None, digits: int = 2) -> str:
    return MISSING if _absent(value) else f"{value:+.{digits}f}"


def usd(value: float | None) -> str:
    return MISSING if _absent(value) else f"${value:.4f}"


def cost(value: float | None) -> str:
    """A cost, or "unpriced" when no price was reported (never $0 for an unknown price)."""
    return UNPRICED if _absent(value) else f"${value:.4f}"


def per_point(spend: Spend) -> str:
    """Cost per fireworks point: "unpriced" without a price, "—" without a complete game's point to divide by."""
    return cost(spend.cost_per_point) if spend.points or spend.cost_usd is None else MISSING


def thousands(value: float | None) -> str:
    return MISSING if _absent(value) else f"{value:,.0f}"


def mean_se(mean: float | None, se: float | None, games: int) -> str:
    """A wide-table cell: "mean ± s.e. (n)", the mean alone for one game, "—" for none."""
    if games == 0 or _absent(mean):
        return MISSING
    if _absent(se):
        return f"{mean:.2f} (n={games})"
    return f"{mean:.2f} ± {se:.2f} (n={games})"


def estimate(value: Estimate | None, digits: int = 2, percent: bool = False) -> str:
    """A mean over decisions: "mean ± s.e. [low, high]" (a share in percent with `percent`), "—" for none."""
    if value is None or _absent(value.mean):
        return MISSING
    scale, unit = (100.0, "%") if percent else (1.0, "")
    text = f"{scale * value.mean:.{digits}f}{unit}"  # type: ignore[operator]
    if not _absent(value.se):
        text += f" ± {scale * value.se:.{digits}f}{unit}"  # type: ignore[operator]
    if value.ci is not None and not (_absent(value.ci.low) or _absent(value.ci.high)):
        text += f" [{scale * value.ci.low:.{digits}f}{unit}, {scale * value.ci.high:.{digits}f}{unit}]"
    return text


TEMPLATES = Path(__file__).with_name("templates")  # the report's own templates, beside its code


def md_cell(text: object) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _environment(autoescape: bool) -> jinja2.Environment:
    env = template_environment(TEMPLATES, autoescape, keep_trailing_newline=True)
    env.filters.update(num=num, pct=pct, interval=interval, signed=signed, usd=usd, cost=cost, per_point=per_point,
                       thousands=thousands, estimate=estimate, md=md_cell)
    env.globals["mean_se"] = mean_se
    return env


def _render(template: str, content: ReportContent, autoescape: bool, links: SiteLinks) -> str:
    from harness.report.crossplay import matrix

    grid = matrix(content.crossplay) if content.crossplay else []
    return _environment(autoescape).get_template(template).render(r=content, crossplay_grid=grid, links=links)


def render_html(content: ReportContent, links: SiteLinks | None = None) -> str:
    """The HTML report; with `links`, its runs and games link to their pages in a game viewer site."""
    return _render("report.html.j2", content, autoescape=True, links=links or SiteLinks())


def render_markdown(content: ReportContent) -> str:
    return _render("report.md.j2", content, autoescape=False, links=SiteLinks())
