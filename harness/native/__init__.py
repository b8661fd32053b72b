"""Compiled builds (mypyc) of the modules a rollout spends most of its time in, used in place of their Python source
only while they were built from exactly the source on disk.

`python -m harness.native.build` (setup.sh runs it) compiles paths.COMPILED into harness/native/compiled/ with a
record of the sha256 of every harness file they were compiled against (record.py). `activate()`, called when harness
is imported, puts a finder first on sys.meta_path. On the first import of a compiled module it checks the record:
another Python, a missing file or any source changed since the build, and the Python source is imported as always.
The compiled code is the same program, so it makes the same moves and values (tests/test_native.py compares the
two), only faster. HANABI_EVAL_NATIVE=0 (or false, off, no) turns it off. Importing harness needs only the standard
library: the record (pydantic) is read on the first import of a compiled module.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from harness.native.paths import COMPILED, FOLDER, ROOT

if TYPE_CHECKING:
    from harness.native.record import NativeStatus


class _CompiledFinder(importlib.abc.MetaPathFinder):
    """Serves the compiled modules (and mypyc's shared library they load) from the build, once it checks out, to this
    harness package only: another copy imported in the same process (bench/bot_paired.py's `rev=`) gets its own."""

    def __init__(self) -> None:
        self._checked: tuple[dict[str, Path], NativeStatus] | None = None

    def checked(self) -> tuple[dict[str, Path], NativeStatus]:
        if self._checked is None:
            from harness.native.record import check_record  # pydantic, only when a compiled module is wanted

            self._checked = check_record()
        return self._checked

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname in COMPILED:
            package = ROOT.joinpath(*fullname.split(".")[:-1])
            if not path or Path(path[0]).resolve() != package:
                return None
        elif not fullname.endswith("__mypyc"):
            return None
        file = self.checked()[0].get(fullname)
        if file is None or not file.is_file():  # (a build under way since the check replaces the files)
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


_FINDER = _CompiledFinder()


def activate() -> None:
    """Put the finder first on sys.meta_path (once): compiled modules imported from now on come from the build."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def status() -> NativeStatus:
    """Whether this process runs the compiled modules: the record's verdict, and that they were imported so."""
    from harness.native.record import NativeStatus

    checked = _FINDER.checked()[1]
    for name in COMPILED:
        module = sys.modules.get(name)
        if checked.active and module is not None and not str(module.__file__).startswith(str(FOLDER)):
            return NativeStatus(active=False, reason=f"{name} was imported from its source before the build was found")
    return checked
