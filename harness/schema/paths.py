"""Where the shipped data folders (prompts/, scaffolds/, seeds/) live, in a checkout and in an installed wheel.

The folders sit at the repository root and are packaged as `harness.data`, so the same lookup works for an
editable install, a wheel, and a plain checkout on sys.path. Never write into these folders at run time.
"""

from __future__ import annotations

from pathlib import Path


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
