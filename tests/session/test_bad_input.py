"""Bad input gets one line naming the problem and the fix, exit code 2, and no model call."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli.main import main
from tests.fakeserver import FakeModelServer, careful_player


@pytest.fixture
def server():
    with FakeModelServer(careful_player) as running:
        yield running


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--scaffold", "nosuch"], "unknown scaffold 'nosuch'"),
        (["--players", "6"], "--players 6 is outside 2-5"),
        (["--players", "1"], "--players 1 is outside 2-5"),
        (["--players", "2", "2"], "repeats a player count"),
        (["--seeds", "nosuchset"], "is not a seed set"),
        (["--seeds", "1,1"], "repeats a seed"),
        (["--seeds", "1,²"], "--seeds '1,²' is not a seed set"),  # a digit to str.isdigit, not to int()
        (["--model", "gpt4"], "not a LiteLLM model string"),
        (["--model", "nosuchprovider/x"], "unknown provider 'nosuchprovider'"),
        (["--model", "local/nosuchbot"], "no built-in player 'nosuchbot'"),
        (["--temperature", "3"], "--temperature 3.0 is outside 0-2"),
        (["--concurrency", "0"], "--concurrency 0 must be"),
        (["--players", "x"], "invalid int value"),
    ],
)
def test_bad_input_is_one_line_with_exit_code_2(
    args: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], server: FakeModelServer
) -> None:
    argv = ["run", "--model", "openai/m", "--api-base", server.base_url, "--out", str(tmp_path), *args]
    with pytest.raises(SystemExit) if args[-1] == "x" else _no_raise():
        code = main(argv)
        assert code == 2
    err = capsys.readouterr().err
    assert named in err
    assert len(err.strip().splitlines()) == 1
    assert server.exchanges == []
    assert list(tmp_path.iterdir()) == []


def test_missing_api_key_names_the_variable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["run", "--model", "anthropic/claude-sonnet-4-5", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "ANTHROPIC_API_KEY" in err and "export it" in err
    assert len(err.strip().splitlines()) == 1
    # a server of the user's own takes the provider's key too, unless it is OpenAI-compatible (sent a placeholder)
    served = ["--api-base", "http://127.0.0.1:9", "--out", str(tmp_path)]
    assert main(["run", "--model", "anthropic/claude-sonnet-4-5", *served]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("anthropic/claude-sonnet-4-5 needs ANTHROPIC_API_KEY in the environment; export it")
    # LiteLLM's custom_openai route calls no server without OPENAI_API_KEY, which its own check does not say
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["run", "--model", "custom_openai/m", *served]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("custom_openai/m needs OPENAI_API_KEY in the environment; export it")
    assert list(tmp_path.iterdir()) == []


def test_unreadable_and_malformed_seed_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.jsonl"
    assert main(["run", "--seeds", str(missing), "--out", str(tmp_path / "o")]) == 2
    assert "cannot read seed file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"seed": 1, "deck": ["R1", "R1"]}\n')
    assert main(["run", "--seeds", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:1: malformed seed line" in err and "50 cards" in err


def test_out_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "file"
    target.write_text("keep me")
    assert main(["run", "--out", str(target)]) == 2
    assert "is a file" in capsys.readouterr().err
    assert target.read_text() == "keep me"


def test_a_named_run_directory_of_another_configuration_is_refused(tmp_path: Path, capsys) -> None:
    assert main(["run", "--seeds", "1", "--out", str(tmp_path), "--run-name", "r", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["run", "--seeds", "2", "--out", str(tmp_path), "--run-name", "r", "--no-progress"]) == 2
    assert "different configuration" in capsys.readouterr().err


class _no_raise:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def test_a_long_list_of_seeds_is_a_list_not_a_file_name(tmp_path: Path) -> None:
    from harness.engine.seeds import resolve_seeds

    seeds = resolve_seeds(",".join(str(s) for s in range(1, 301)))
    assert [s.seed for s in seeds] == list(range(1, 301))
    assert seeds[0].deck == resolve_seeds("standard")[0].deck  # seed 1 keeps its stored deck
