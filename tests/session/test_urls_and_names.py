"""Server URLs and names, wherever a user gives them: one URL check for every place a URL enters, name lengths the
file system cannot hold refused up front, and a resume hint only where there is something to resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli.main import main
from tests.helpers import one_line

BAD_URLS = [
    ("http://127.0.0.1:99999/v1", "has a port outside 1-65535"),
    ("ftp://x/v1", "is not an http(s) URL"),
    ("notaurl", "is not an http(s) URL"),
    ("http://", "names no host"),
]


@pytest.mark.parametrize(("url", "problem"), BAD_URLS)
def test_a_bad_url_is_refused_up_front_wherever_it_enters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str, problem: str
) -> None:
    out = tmp_path / "out"
    runs = [
        ["run", "--model", "openai/m", "--api-base", url],
        ["run", "--seat", f"openai/m,api_base={url}", "--seat", "local/smart"],
    ]
    for argv in runs:
        assert main([*argv, "--seeds", "1", "--out", str(out), "--no-progress"]) == 2
        assert problem in one_line(capsys.readouterr().err)
        assert not out.exists()  # not even a folder holding only .lock
    for entry in (f"api_base = '{url}'", f"deployments = [{{api_base = '{url}'}}]"):
        sweep = tmp_path / "grid.toml"
        sweep.write_text(
            'name = "grid"\nplayers = [2]\nseeds = ["1"]\nscaffolds = ["watson"]\n'
            f'[[models]]\nmodel = "openai/m"\n{entry}\n'
        )
        assert main(["run", "--config", str(sweep), "--out", str(out)]) == 2
        assert problem in one_line(capsys.readouterr().err)
        assert not out.exists()
    assert main(["judge", str(tmp_path), "--model", "openai/judge", "--api-base", url]) == 2
    assert problem in one_line(capsys.readouterr().err)


def test_a_url_with_a_key_is_not_shown_in_the_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "--model", "openai/m", "--api-base", "http://sk-secret@127.0.0.1:70000/v1?key=sk-other"]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    line = one_line(capsys.readouterr().err)
    assert "sk-secret" not in line and "sk-other" not in line and "port outside" in line


def test_names_too_long_for_the_file_system_are_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["run", "--seeds", "1", "--out", str(out), "--no-progress"]
    assert main([*argv, "--run-name", "r" * 300]) == 2
    line = one_line(capsys.readouterr().err)
    assert "is 300 bytes long, more than the 255 a file system takes; give a shorter --run-name" in line
    assert "resume" not in line
    assert main([*argv, "--model", f"local/smart@{'0' * 250}ms"]) == 2  # a model name makes the folder's name
    assert "a file system takes" in one_line(capsys.readouterr().err)
    assert not out.exists()
