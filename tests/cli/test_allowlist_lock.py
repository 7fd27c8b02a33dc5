"""``approve`` and ``revoke`` leave nothing in the home but the allowlist: the lock
that serialises their writes is removed by its holder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hermes_hooks", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_approve_and_revoke_leave_no_lock_file(home: Path) -> None:
    script = home / "gate.sh"
    script.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    script.chmod(0o755)
    approved = cli("--home", str(home), "approve", "pre_tool_call", "./gate.sh")
    assert approved.returncode == 0, approved.stderr
    assert sorted(p.name for p in home.iterdir()) == ["gate.sh", "shell-hooks-allowlist.json"]
    revoked = cli("--home", str(home), "revoke", "./gate.sh")
    assert revoked.returncode == 0, revoked.stderr
    assert sorted(p.name for p in home.iterdir()) == ["gate.sh", "shell-hooks-allowlist.json"]
