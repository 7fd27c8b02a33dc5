"""Helpers shared by the tests of this folder (imported, not fixtures)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import hermes_hooks
from hermes_hooks.hooks import Hooks
from hermes_hooks.webhooks.source import OutboundSource
from tests.outbound.endpoint import Endpoint, Reply


class OutboundEnv:
    """Endpoints and loaded homes of one test, torn down in a safe order."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.endpoints: list[Endpoint] = []
        self.loaded: list[Hooks] = []

    def endpoint(self, *replies: Reply) -> Endpoint:
        """A new scripted endpoint on 127.0.0.1."""
        endpoint = Endpoint(*replies)
        self.endpoints.append(endpoint)
        return endpoint

    def write(self, yaml_text: str) -> Path:
        """Write ``config.yaml`` of the test home."""
        path = self.home / "config.yaml"
        path.write_text(textwrap.dedent(yaml_text), encoding="utf-8")
        return path

    def load(self, yaml_text: str | None = None, **kwargs: object) -> Hooks:
        """Write the config (if given) and load the home (no installed plugins)."""
        if yaml_text is not None:
            self.write(yaml_text)
        hooks = hermes_hooks.load(self.home, entry_points=False, **kwargs)  # type: ignore[arg-type]
        self.loaded.append(hooks)
        return hooks

    @staticmethod
    def source(hooks: Hooks) -> OutboundSource:
        """The outbound source of a loaded home."""
        source = hooks.sources["outbound"]
        assert isinstance(source, OutboundSource)
        return source

    def close(self) -> None:
        for endpoint in self.endpoints:
            endpoint.release()
        for hooks in self.loaded:
            hooks.close(3.0)
        for endpoint in self.endpoints:
            endpoint.close()
