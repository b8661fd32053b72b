"""LiteLLM is imported lazily and offline: commands that call no model never load it, and loading it opens no
network connection."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import socket, sys, time
attempts = []
def refuse(self, address, *rest):
    attempts.append(address)
    raise OSError("network is off in this test")
socket.socket.connect = refuse
socket.create_connection = lambda address, *a, **k: refuse(None, address)
{body}
time.sleep(1.0)  # give any background fetch time to try
print("ATTEMPTS", len(attempts), attempts)
"""


def probe(body: str) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(body=body)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_importing_litellm_through_the_harness_opens_no_connection() -> None:
    out = probe("from harness.models.client import litellm\nlitellm()\nimport harness.models.local")
    assert "ATTEMPTS 0 " in out


def test_a_command_that_calls_no_model_does_not_load_litellm() -> None:
    out = probe(
        "from harness.cli.main import main\nmain(['scaffolds'])\nprint('LOADED', 'litellm' in sys.modules)"
    )
    assert "LOADED False" in out and "ATTEMPTS 0 " in out
