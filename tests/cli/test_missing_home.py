"""``--home`` at a folder that does not exist is a usage error, not an empty home."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_hooks.cli import main


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", ["doctor", "list", "outbox"])
def test_a_missing_home_is_an_error(tmp_path: Path, capsys: Any, command: str) -> None:
    missing = tmp_path / "no-such-home"
    code, out, err = run(capsys, "--home", str(missing), command)
    assert (code, out) == (2, "")
    assert err == (
        f"hermes-hooks: --home {missing}: no such folder; create it, or point --home at "
        "an existing Hermes home\n"
    )
    assert not missing.exists()  # and nothing was created there


def test_a_file_given_as_home_is_an_error(tmp_path: Path, capsys: Any) -> None:
    not_a_folder = tmp_path / "config.yaml"
    not_a_folder.write_text("hooks: {}\n", encoding="utf-8")
    code, _, err = run(capsys, "doctor", "--home", str(not_a_folder))
    assert code == 2
    assert err == (
        f"hermes-hooks: --home {not_a_folder}: not a folder; point --home at a Hermes home folder\n"
    )


def test_an_existing_empty_home_is_still_fine(home: Path, capsys: Any) -> None:
    code, out, _ = run(capsys, "--home", str(home), "--no-entry-points", "doctor")
    assert code == 0 and out.endswith("no problems found (2 checks)\n")


def test_hermes_home_at_a_missing_folder_is_an_error_too(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "no-such-home"
    monkeypatch.setenv("HERMES_HOME", str(missing))
    code, out, err = run(capsys, "doctor")
    assert (code, out) == (2, "")
    assert err == (
        f"hermes-hooks: HERMES_HOME {missing}: no such folder; create it, or point "
        "HERMES_HOME at an existing Hermes home\n"
    )
    assert not missing.exists()
    # --home wins over the environment, as everywhere.
    existing = tmp_path / "home"
    existing.mkdir()
    code, out, _ = run(capsys, "--home", str(existing), "--no-entry-points", "list")
    assert code == 0
    assert out.startswith(f"Hermes home: {existing}\n")
