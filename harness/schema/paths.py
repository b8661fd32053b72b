"""Where the shipped data folders (prompts/, scaffolds/, seeds/) live: at the repository root, packaged as
`harness.data`, so the same lookup works for a checkout, an editable install and a wheel. Never written at run
time. template_environment sets Jinja up for a folder of templates.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2


def data_root() -> Path:
    """The folder holding prompts/, scaffolds/ and seeds/."""
    package = Path(__file__).resolve().parent.parent  # harness/
    installed = package / "data"  # where a wheel puts them
    if (installed / "scaffolds").is_dir():
        return installed
    return package.parent  # a checkout or an editable install


def prompts_dir() -> Path:
    return data_root() / "prompts"


def scaffolds_dir() -> Path:
    return data_root() / "scaffolds"


def seeds_dir() -> Path:
    return data_root() / "seeds"


def template_environment(folder: Path, autoescape: bool = False, **options: Any) -> jinja2.Environment:
    """Jinja for the templates in `folder`, as the prompts, reply formats, report, viewer pages and dataset card are
    written: a name the template is not given is an error, and a block tag's own line break and indentation are left
    out. `options` add Jinja's own. (Inspect's turn summaries, inspect/transcript.py, keep Jinja's defaults.)"""
    import jinja2  # loaded by the commands that render templates only

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=autoescape,
        **options,
    )
