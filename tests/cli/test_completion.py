"""``hermes-hooks completion`` without its extra: a clear message naming the fix (the
scripts themselves are tested in tests/tools/, where shtab is installed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# shtab made unimportable whether or not this environment has it
WITHOUT_SHTAB = (
    "import sys; sys.modules['shtab'] = None; from hermes_hooks.cli import main; "
    "sys.exit(main(['completion', 'bash']))"
)


def test_completion_without_shtab_says_which_extra_to_install() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_SHTAB],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "hermes-hooks: completion needs shtab, which is not installed. Fix: "
        "pip install 'hermes-hooks[completion]' (or pip install shtab)\n"
    )
