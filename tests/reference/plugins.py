"""The plugins compared: real distributions from the package registry (pinned in
tox.ini's ``reference`` environment) and the fixtures of ``tests/fixtures/reference-plugins``.

Each name is the entry-point name the distribution declares in ``hermes_agent.plugins``.
"""

from __future__ import annotations

#: entry-point name → distribution, for every real plugin (guards, observability,
#: tool + hook mixes, a middleware user, and ones that load but stay idle offline).
REAL = {
    "acp": "acp-hermes",
    "agentguard-spend": "agentguard-spend-hermes",
    "agentmetrics": "agentmetrics-hermes",
    "agentsfence": "agentsfence",
    "axiorank": "hermes-axiorank",
    "blackwall": "blackwall-hermes-plugin",
    "capsule": "capsule-hermes",
    "caspase": "caspase-hermes",
    "chat_recorder": "hermes-chat-recorder",
    "creedspace": "creedspace-hermes",
    "hermes-tenuo": "hermes-tenuo",
    "hermesguardian": "hermesguardian",
    "intaris": "hermes-intaris",
    "latitude": "latitude-telemetry-hermes",
    "multi-user-rbac": "multi-user-rbac",
    "noisegate": "noisegate-hermes",
    "psy": "psy-core-hermes",
    "rtk-rewrite": "rtk-hermes",
    "vaibot": "vaibot-hermes-circuitbreaker",
    "vinctor": "vinctor-hermes-plugin",
}

#: Fixture plugins written here: every ctx member, every entry-point form, every failure.
FIXTURES = (
    "ref-every-member",
    "ref-guard-tool",
    "ref-middleware",
    "ref-base-exception",
    "ref-registers-nothing",
    "ref-bad-skill",
    "ref-raising-guard",
    "ref-object-style",
    "ref-function-style",
)
