"""``list`` and ``doctor`` read one set of findings: an entry doctor fails on is marked
✗ in ``list``, and each problem is printed once (not again as a log line on stderr);
every finding about ``config.yaml`` names its line."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hermes_hooks.shell.consent import Allowlist
from tests.helpers import write_plugin

ROOT = Path(__file__).resolve().parents[2]


def cli(home: Path, *argv: str, cwd: Path | None = None, **env: str) -> tuple[int, str, str]:
    """The real command in a child process, so that its stderr log lines are real too."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    result = subprocess.run(
        [sys.executable, "-m", "hermes_hooks", "--home", str(home), "--no-entry-points", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8", **env},
        check=False,
    )
    return result.returncode, result.stdout, result.stderr


def gate(home: Path) -> str:
    script = home / "gate.sh"
    script.write_text("#!/bin/sh\ncat >/dev/null\necho '{}'\n", encoding="utf-8")
    script.chmod(0o755)
    return str(script)


def test_a_misspelt_fail_closed_marks_the_approved_entry_in_list(home: Path) -> None:
    command = gate(home)
    (home / "config.yaml").write_text(
        f"hooks:\n  pre_tool_call:\n    - command: {command}\n      fail_close: true\n",
        encoding="utf-8",
    )
    Allowlist(home).approve("pre_tool_call", command)
    config = home / "config.yaml"
    message = (
        "hooks.pre_tool_call[0].fail_close: unknown key 'fail_close' — did you mean "
        "'fail_closed'? As written, this hook fails open: a crash or a timeout lets the tool "
        "call through; the value is ignored. Fix: rename it to 'fail_closed'"
    )
    code, out, err = cli(home, "doctor")
    assert code == 1
    assert f"✗ {config}:4:7: {message}" in out.splitlines()
    assert err == ""  # said once, in the report: not again as a log line
    code, out, err = cli(home, "list")
    assert code == 0
    lines = out.splitlines()
    at = lines.index("  [pre_tool_call]")
    # Registered and approved, yet not as written: marked as doctor judges it.
    assert lines[at + 1] == f"    ✗ {command}  timeout=60s  (registered)"
    assert lines[at + 2].startswith("        approved 20")
    assert lines[at + 3] == f"        ✗ {config}:4:7: {message}"
    assert not any(line.startswith("Problems") for line in lines)
    assert (out + err).count("unknown key 'fail_close'") == 1


def test_a_plugin_key_found_twice_is_marked_and_printed_once(home: Path, tmp_path: Path) -> None:
    body = "def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: None)\n"
    write_plugin(home / "plugins", "dup", body)
    project = tmp_path / "project"
    write_plugin(project / ".hermes" / "plugins", "dup", body)
    message = (
        f"Plugin 'dup' found twice (directory at {home / 'plugins' / 'dup'}, and project at "
        f"{project / '.hermes' / 'plugins' / 'dup'}); the second is skipped and never runs. "
        "Fix: remove one, or rename one (its plugin.yaml name or its entry point)"
    )
    enable = {"HERMES_ENABLE_PROJECT_PLUGINS": "1"}
    code, out, err = cli(home, "doctor", cwd=project, **enable)
    assert code == 1
    assert f"✗ plugin dup: {message}" in out.splitlines()
    assert (out + err).count("found twice") == 1
    code, out, err = cli(home, "list", cwd=project, **enable)
    assert code == 0
    lines = out.splitlines()
    at = lines.index(f"  ✗ dup  [directory]  0.1 ({home / 'plugins' / 'dup'})")
    assert lines[at + 1 : at + 3] == ["      hooks: pre_tool_call", f"      problem: {message}"]
    assert (out + err).count("found twice") == 1


def test_ascii_marks_for_an_entry_with_an_error(home: Path) -> None:
    command = gate(home)
    (home / "config.yaml").write_text(
        f"hooks:\n  pre_tool_call:\n    - command: {command}\n      fail_close: true\n",
        encoding="utf-8",
    )
    Allowlist(home).approve("pre_tool_call", command)
    code, out, err = cli(home, "list", PYTHONIOENCODING="ascii")
    assert (code, err) == (0, "")
    assert f"    X {command}  timeout=60s  (registered)" in out.splitlines()
    config = home / "config.yaml"
    assert f"        X {config}:4:7: hooks.pre_tool_call[0].fail_close: unknown key" in out


CONFIG = textwrap.dedent(
    """\
    hooks:
      pre_tool_cal:
        - command: /bin/true
      post_tool_call:
        - matcher: terminal
      on_session_start:
        - command: /bin/true
          matcher: Bash
      pre_llm_call:
      - command: /bin/true
      matcher: terminal
    """
)


def test_every_config_finding_names_its_line(home: Path) -> None:
    (home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    config = home / "config.yaml"
    code, out, err = cli(home, "doctor")
    assert code == 1
    assert err == ""
    assert [line for line in out.splitlines() if str(config) in line] == [
        f"✗ {config}:2:3: hooks.pre_tool_cal: unknown hook event 'pre_tool_cal' in hooks: "
        "config — did you mean 'pre_tool_call'?",
        f"⚠ {config}:5:7: hooks.post_tool_call[0]: has no non-empty 'command' string; "
        "skipped (set command to the program to run)",
        f"⚠ {config}:8:7: hooks.on_session_start[0]: matcher 'Bash' is dropped — the matcher "
        "field is only honored for pre_tool_call / post_tool_call. The hook will fire on "
        "every on_session_start event.",
        # A line dedented out of its list item: where it belongs, not 37 event names.
        f"⚠ {config}:11:3: hooks.matcher: unknown hook event 'matcher' in hooks: config — "
        "'matcher' is a key of an entry, written at the level of the events (a dedented "
        "line?); skipped. Fix: indent it under its list item ('- command: ...')",
    ]
    assert "api_request_error" not in out
    # list shows the same problems, with the same places, once.
    code, out, err = cli(home, "list")
    assert code == 0
    assert err == ""
    lines = out.splitlines()
    # The problem of a listed entry is shown under it ...
    at = lines.index("  [on_session_start]")
    assert lines[at + 1 : at + 4] == [
        "    ✗ /bin/true  timeout=60s  (not allowlisted)",
        "        approve it with: hermes-hooks approve on_session_start /bin/true",
        f"        ⚠ {config}:8:7: matcher 'Bash' is dropped — the matcher field is only "
        "honored for pre_tool_call / post_tool_call. The hook will fire on every "
        "on_session_start event.",
    ]
    # ... the others in a block of their own.
    at = lines.index("  Config problems (3):")
    assert lines[at + 1 : at + 4] == [
        f"    ✗ {config}:2:3: hooks.pre_tool_cal: unknown hook event 'pre_tool_cal' in "
        "hooks: config — did you mean 'pre_tool_call'?",
        f"    ⚠ {config}:5:7: hooks.post_tool_call[0]: has no non-empty 'command' string; "
        "skipped (set command to the program to run)",
        f"    ⚠ {config}:11:3: hooks.matcher: unknown hook event 'matcher' in hooks: config "
        "— 'matcher' is a key of an entry, written at the level of the events (a dedented "
        "line?); skipped. Fix: indent it under its list item ('- command: ...')",
    ]


def test_a_gate_matcher_in_claude_code_names_is_marked_where_it_is(home: Path) -> None:
    # matcher: Bash on a Hermes entry never fires for terminal: a gate that is off.
    command = gate(home)
    (home / "config.yaml").write_text(
        f"hooks:\n  pre_tool_call:\n    - command: {command}\n      matcher: Bash\n",
        encoding="utf-8",
    )
    Allowlist(home).approve("pre_tool_call", command)
    config = home / "config.yaml"
    message = (
        "matcher 'Bash' matches Claude Code's tool names (Bash), never ours (terminal), so "
        "the hook never fires for them. Fix: write matcher: terminal, or set dialect: "
        "claude-code to use Claude Code's names"
    )
    code, out, err = cli(home, "doctor")
    assert (code, err) == (1, "")
    assert f"✗ {config}:4:7: hooks.pre_tool_call[0]: {message}" in out.splitlines()
    code, out, err = cli(home, "list")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    at = lines.index("  [pre_tool_call]")
    assert lines[at + 1] == f"    ✗ {command}  matcher='Bash' timeout=60s  (registered)"
    assert lines[at + 3 :][:2] == [
        f"        ✗ {config}:4:7: {message}",
        f"  Allowlist: {home / 'shell-hooks-allowlist.json'} (1 approval(s))",
    ]
    assert out.count("matches Claude Code's tool names") == 1


def test_a_load_logs_the_place_too_once(home: Path) -> None:
    # Outside list and doctor (here: test, which loads the home as an agent does), the
    # log line names the place as well, once.
    (home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    code, out, err = cli(home, "test", "on_interim_message")
    config = home / "config.yaml"
    assert code == 0
    assert out.startswith("No callbacks for on_interim_message")
    assert err.splitlines()[0] == (
        f"ERROR hermes_hooks.shell: {config}:2:3: hooks.pre_tool_cal: unknown hook event "
        "'pre_tool_cal' in hooks: config — did you mean 'pre_tool_call'?"
    )
    assert len(err.splitlines()) == 4  # one line per problem of the hooks: block


def test_the_home_s_own_plugins_folder_as_project_folder_is_read_once(tmp_path: Path) -> None:
    # Run from the home's parent with project plugins on, <cwd>/.hermes/plugins and
    # <home>/plugins are one folder: its plugins are not each "found twice".
    project_home = tmp_path / "project" / ".hermes"
    project_home.mkdir(parents=True)
    body = "def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: None)\n"
    write_plugin(project_home / "plugins", "solo", body)
    enable = {"HERMES_ENABLE_PROJECT_PLUGINS": "1"}
    code, out, err = cli(project_home, "doctor", cwd=tmp_path / "project", **enable)
    assert (code, err) == (0, "")
    assert "✓ plugin solo: loaded (pre_tool_call)" in out.splitlines()
    assert "found twice" not in out


def test_a_bad_plugins_setting_is_a_doctor_finding_at_its_line(home: Path) -> None:
    (home / "config.yaml").write_text(
        "plugins:\n  hook_callback_timeout: soon\n  enabled: 5\n", encoding="utf-8"
    )
    config = home / "config.yaml"
    code, out, err = cli(home, "doctor")
    assert (code, err) == (0, "")  # said once, in the report
    assert out.splitlines()[:2] == [
        f"⚠ {config}:2:3: plugins.hook_callback_timeout is 'soon', not a number of seconds; "
        "using 30. Fix: a number such as 30 (0 disables the limit).",
        f"⚠ {config}:3:3: plugins.enabled must be a list of plugin names; ignored",
    ]
    # A load (here: list, which shows no warnings) logs each once, at its line.
    code, out, err = cli(home, "list")
    assert code == 0
    assert err.splitlines() == [
        f"WARNING hermes_hooks.config: {config}:2:3: plugins.hook_callback_timeout is 'soon', "
        "not a number of seconds; using 30. Fix: a number such as 30 (0 disables the limit).",
        f"WARNING hermes_hooks.config: {config}:3:3: plugins.enabled must be a list of plugin "
        "names; ignored",
    ]
