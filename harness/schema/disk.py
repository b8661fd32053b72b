"""Disk faults (a read-only or full --out, a folder removed mid-run) said in one line: the path and the fix.

Writes are ordered so that a fault never damages what is already on disk (harness.schema.log_file,
harness.run.store.write_json_atomic).
"""

from __future__ import annotations

import errno

FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}
GONE = {errno.ENOENT, errno.ENOTDIR, errno.ESTALE}


class DiskFault(RuntimeError):
    """A write the run needs failed; the message is one line naming the path and the fix."""


def explain(exc: OSError, resume_hint: str = "") -> str:
    """One line for an OSError from writing a run: what failed, where, and what to do."""
    where = exc.filename or "the run folder"
    what = exc.strerror or str(exc)
    then = f"; then {resume_hint}" if resume_hint else ""
    if exc.errno == errno.ENAMETOOLONG:
        return f"cannot write {where}: {what}; choose shorter names (--out, --run-name)"
    if exc.errno in FULL:
        fix = f"free some space on that disk (or raise the file size limit){then}"
    elif exc.errno in READ_ONLY:
        fix = f"make that folder writable or choose another --out{then}"
    elif exc.errno in GONE and resume_hint:
        fix = (
            "the folder was removed or unmounted while the run wrote to it; "
            f"restore it, then {resume_hint} (or run the same command again to start afresh)"
        )
    elif exc.errno in GONE:  # before the run wrote its record: the folder could not be made
        fix = "no folder can be made there; choose another --out"
    else:
        fix = f"check that disk{then}"
    return f"cannot write {where}: {what}; {fix}"


def with_path(exc: OSError, path: object) -> OSError:
    """The same error naming `path` (a failed flush or fsync names no file)."""
    if exc.filename:
        return exc
    named = OSError(exc.errno, exc.strerror or str(exc), str(path))
    named.__cause__ = exc
    return named
