"""An outbound target's matcher runs in bounded time (D-77): a name its expression
cannot finish on is not delivered, with one WARNING, and the firing returns."""

from __future__ import annotations

import json
import logging
import threading

import pytest

from tests.helpers import tool_payload
from tests.outbound.helpers import OutboundEnv

LONG_NAME = "a" * 34


def test_d77_a_matcher_that_cannot_finish_delivers_nothing_and_warns_once(
    env: OutboundEnv, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = env.endpoint()
    hooks = env.load(
        f"""
        hooks:
          outbound:
            - name: tool-monitor
              url: {endpoint.url}
              events: [pre_tool_call]
              matcher: "(?=\\\\w)(\\\\w+)+_danger|terminal"
        """
    )

    def fire() -> None:
        for tool in (LONG_NAME, LONG_NAME, "terminal", "read_file"):
            hooks.pre_tool_call(**tool_payload(tool_name=tool))

    thread = threading.Thread(target=fire, daemon=True)
    thread.start()
    thread.join(120.0)
    assert not thread.is_alive(), "a firing did not return: the matcher hangs"
    hooks.close()
    assert [json.loads(r.body)["tool_name"] for r in endpoint.requests] == ["terminal"]
    found = [r for r in caplog.records if "could not be matched against" in r.getMessage()]
    [record] = found
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(
        "outbound webhook tool-monitor: matcher '(?=\\\\w)(\\\\w+)+_danger|terminal' "
        f"could not be matched against {LONG_NAME!r} within 1s"
    )
    assert "the hook is skipped for such names" in record.getMessage()
