"""No API key ever reaches a file: recognisable fake keys are set in the environment, games are played through a
local OpenAI-compatible server (which receives the OpenAI key, as a real provider would, and in one game echoes it
back in an authentication error), every export format is written, and then every byte on disk is searched."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.export import FORMATS
from tests.fakeserver import FakeModelServer, Reply, careful_player

FAKE_KEYS = {
    "OPENAI_API_KEY": "sk-test-FAKEopenai-0123456789abcdef",
    "ANTHROPIC_API_KEY": "sk-ant-test-FAKEanthropic-0123456789",
    "XAI_API_KEY": "xai-test-FAKExai-0123456789abcdef",
    "GEMINI_API_KEY": "AIzaFAKEgemini0123456789abcdefghijk",
    "DEEPSEEK_API_KEY": "sk-test-FAKEdeepseek-0123456789",
}
MARKERS = [*FAKE_KEYS.values(), "FAKEopenai", "FAKEanthropic", "FAKExai", "FAKEgemini", "FAKEdeepseek"]


def leaks(folder: Path) -> list[str]:
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.relative_to(folder)}: {m}" for m in MARKERS if m.encode() in data]
    return found


def rejects_the_key(request: dict) -> Reply:
    """An authentication error that quotes the key it was sent, as some providers do."""
    message = f"Incorrect API key provided: {FAKE_KEYS['OPENAI_API_KEY']}. Check your key."
    body = {"error": {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}}
    return Reply(status=401, raw_body=json.dumps(body).encode())


def test_no_key_reaches_a_log_a_manifest_or_any_export(
    tmp_path: Path, client: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    runs = tmp_path / "runs"
    with FakeModelServer(careful_player) as server:
        argv = [
            "run",
            "--model",
            "openai/x",
            "--api-base",
            server.base_url,
            "--seeds",
            "1",
            "--scaffold",
            "sherlock",
        ]
        assert main([*argv, *client, "--out", str(runs), "--no-progress"]) == 0
        sent = {e.headers.get("authorization") for e in server.exchanges}
    assert sent == {f"Bearer {FAKE_KEYS['OPENAI_API_KEY']}"}  # the key was really in play
    with FakeModelServer(rejects_the_key) as server:
        argv = ["run", "--model", "openai/y", "--api-base", server.base_url, "--seeds", "2"]
        assert main([*argv, *client, "--out", str(runs), "--no-progress"]) == 1
        assert server.exchanges
    run_dirs = sorted(str(p) for p in runs.iterdir())
    assert len(run_dirs) == 2
    exports = tmp_path / "exports"
    for fmt in FORMATS:
        assert main(["export", *run_dirs, "--format", fmt, "--out", str(exports / fmt)]) == 0
    assert {p.name for p in exports.iterdir()} == set(FORMATS)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) > 15
    interrupted = next(runs.glob("openai-y-*/games/*.jsonl")).read_text()
    assert "Incorrect API key provided" in interrupted  # the error was logged, with the key redacted
    assert leaks(tmp_path) == []


def test_no_credential_in_an_api_base_url_reaches_a_file(
    tmp_path: Path, client: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEYS["OPENAI_API_KEY"])
    with FakeModelServer(careful_player) as server:
        base = server.base_url.replace("http://", f"http://user:{FAKE_KEYS['OPENAI_API_KEY']}@")
        argv = ["run", "--model", "openai/x", "--api-base", base, "--seeds", "1", "--provider-retries", "0"]
        main([*argv, *client, "--out", str(tmp_path), "--no-progress"])  # the client may refuse such a URL: no matter
    assert leaks(tmp_path) == []
    manifest = next(tmp_path.glob("*/manifest.json")).read_text()
    assert "user:" not in manifest and server.base_url in manifest  # the URL is kept, without its credentials


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not ipv6_loopback(), reason="this machine has no IPv6 loopback (::1)")
def test_a_key_in_an_ipv6_api_base_is_sent_and_the_url_kept_with_its_brackets(
    tmp_path: Path, client: list[str]
) -> None:
    with FakeModelServer(careful_player, host="::1") as server:
        assert server.base_url.startswith("http://[::1]:")
        base = server.base_url.replace("http://", f"http://{FAKE_KEYS['OPENAI_API_KEY']}@")
        argv = ["run", "--model", "openai/x", "--api-base", base, "--seeds", "1", "--out", str(tmp_path)]
        assert main([*argv, *client, "--no-progress"]) == 0
        sent = {e.headers.get("authorization") for e in server.exchanges}
    assert sent == {f"Bearer {FAKE_KEYS['OPENAI_API_KEY']}"}
    assert leaks(tmp_path) == []
    manifest = next(tmp_path.glob("*/manifest.json")).read_text()
    assert server.base_url in manifest
