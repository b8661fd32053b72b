"""Waiting on processes by condition, never by a fixed sleep."""

from __future__ import annotations

import time
from pathlib import Path


def group_alive(group: int) -> bool:
    """Whether any live (not zombie) process is in process group `group` (Linux: read from /proc)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended while we looked
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state not in ("Z", "X"):
            return True
    return False


def wait_until_group_gone(group: int, limit_s: float = 30) -> None:
    """Wait until every process of `group` has exited; fail if one is still running after `limit_s`."""
    deadline = time.monotonic() + limit_s
    while group_alive(group):
        assert time.monotonic() < deadline, f"a process of group {group} still runs after {limit_s:g} s"
        time.sleep(0.02)
