"""The exception tree of hermes-hooks.

Hooks themselves never raise into the host: a broken plugin, script, manifest or
endpoint is isolated and logged.  These exceptions are for the *embedding* code, the
webhook receivers and the command-line tool, where refusing bad input loudly is the
right answer::

    HermesHooksError            base class; catch this to catch everything below
    ├── ConfigError             a config file or key is unusable (names file, key, fix)
    │   ├── ConfigEditError     config.yaml cannot be edited safely (also a ValueError)
    │   └── BootConfigError     the BOOT.md agent cannot be built (also a RuntimeError)
    ├── UnknownHookError        a hook name outside the catalogue (also a KeyError)
    ├── PluginLoadError         one plugin or callback was refused (.plugin, .hook,
    │                           .signature); recorded and shown by ``list``
    ├── PluginToolOverrideError a plugin replaced a tool without the operator's opt-in
    │                           (also a PermissionError, as hermes-agent raises)
    ├── RecordingError          a session recording is malformed (names the line)
    └── VerificationError       a webhook delivery must be rejected (also a ValueError)

Each error that also derives from a built-in keeps that built-in for the callers that
caught it before the tree existed (``except ValueError`` around a verification, for
example).

Outside the tree, on purpose: the internal ``TimedOut`` family
(``hermes_hooks._workers``, and the gateway lanes' ``Overran``) signals a callback that
ran past its limit between private modules, and the MCP proxy's ``Cancelled``
(``integrations.mcp.inflight``) a call its client gave up on; neither reaches a caller.
``KeyboardInterrupt`` is never swallowed anywhere in the package.
"""

from __future__ import annotations

__all__ = [
    "BootConfigError",
    "ConfigEditError",
    "ConfigError",
    "HermesHooksError",
    "PluginLoadError",
    "PluginToolOverrideError",
    "RecordingError",
    "UnknownHookError",
    "VerificationError",
]


class HermesHooksError(Exception):
    """Base class of every error hermes-hooks raises on purpose."""


class ConfigError(HermesHooksError):
    """A configuration file or one of its keys cannot be used.

    The message names the file, the key and the fix.
    """


class ConfigEditError(ConfigError, ValueError):
    """``config.yaml`` cannot be edited safely (not YAML, not a mapping, ``hooks:`` not a
    mapping); the message says what to fix."""


class BootConfigError(ConfigError, RuntimeError):
    """The default BOOT.md agent cannot be built: a required environment variable is
    missing."""


class UnknownHookError(HermesHooksError, KeyError):
    """A hook name that is not in ``VALID_HOOKS``; the message suggests the closest one."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class PluginLoadError(HermesHooksError):
    """A plugin, or one of its callbacks, could not be loaded; the runtime records it
    instead of raising.

    Like pluggy's errors it says what it is about: :attr:`plugin` (the plugin or owner
    name), :attr:`hook` (the hook it was registering for) and :attr:`signature` (the
    refused callback's signature as text), each ``None`` when it does not apply.
    """

    def __init__(
        self,
        message: str,
        *,
        plugin: str | None = None,
        hook: str | None = None,
        signature: str | None = None,
    ) -> None:
        super().__init__(message)
        self.plugin = plugin
        self.hook = hook
        self.signature = signature


class RecordingError(HermesHooksError):
    """A session recording cannot be read; the message names the line and the reason."""


class VerificationError(HermesHooksError, ValueError):
    """A webhook delivery must be rejected; the message says why (never echo it to
    callers you do not trust: it only helps you debug your own configuration)."""


class PluginToolOverrideError(HermesHooksError, PermissionError):
    """``ctx.register_tool(..., override=True)`` without the operator's opt-in
    (``plugins.entries.<plugin>.allow_tool_override: true``).  Also a
    ``PermissionError``, which is what plugins written for hermes-agent catch."""
