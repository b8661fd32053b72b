"""LiteLLM is imported lazily and offline: commands that call no model never load it, and loading it opens no
network connection. The report's libraries (scipy, matplotlib) are loaded only by the commands that draw a report,
so that every other command starts in well under a second."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

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


def start_probe(body: str) -> subprocess.Popen[str]:
    """The probe of `body`, started; `probe_output` waits for it. Probes started together wait out their second
    side by side."""
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}
    return subprocess.Popen(
        [sys.executable, "-c", PROBE.format(body=body)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def probe_output(process: subprocess.Popen[str]) -> str:
    try:
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err[-2000:]
    return out


def probe(body: str) -> str:
    return probe_output(start_probe(body))


LITELLM = "from harness.models.client import litellm\nlitellm()\nimport harness.models.local"
SCAFFOLDS = (
    "from harness.cli.main import main\nmain(['scaffolds'])\n"
    "print('LOADED', [m for m in ('litellm', 'scipy', 'matplotlib') if m in sys.modules])"
)


@pytest.fixture(scope="module")
def probes() -> Iterator[dict[str, subprocess.Popen[str]]]:
    """Both tests' probes, started at once: each in a process of its own, as if run alone."""
    started = {"litellm": start_probe(LITELLM), "scaffolds": start_probe(SCAFFOLDS)}
    yield started
    for process in started.values():
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_importing_litellm_through_the_harness_opens_no_connection(
    probes: dict[str, subprocess.Popen[str]],
) -> None:
    out = probe_output(probes["litellm"])
    assert "ATTEMPTS 0 " in out


def test_a_command_that_calls_no_model_and_draws_no_report_loads_neither_litellm_nor_scipy(
    probes: dict[str, subprocess.Popen[str]],
) -> None:
    out = probe_output(probes["scaffolds"])
    assert "LOADED []" in out and "ATTEMPTS 0 " in out
