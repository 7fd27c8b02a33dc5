"""The exception tree of hermes-hooks.

Hooks themselves never raise into the host: a broken plugin, script, manifest or
endpoint is isolated and logged.  These exceptions are for the *embedding* code and the
command-line tool, where refusing bad input loudly is the right answer::

    HermesHooksError            base class; catch this to catch everything below
    ├── ConfigError             a config file or key is unusable (names file, key, fix)
    ├── UnknownHookError        a hook name outside the catalogue was fired or asked for
    ├── PluginLoadError         one plugin failed to load (recorded, shown by ``list``)
    ├── ConsentError            a shell hook is not allowlisted where consent is required
    └── RecordingError          a session recording is malformed (names the line)

``KeyboardInterrupt`` is never swallowed anywhere in the package.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "ConsentError",
    "HermesHooksError",
    "PluginLoadError",
    "RecordingError",
    "UnknownHookError",
]


class HermesHooksError(Exception):
    """Base class of every error hermes-hooks raises on purpose."""


class ConfigError(HermesHooksError):
    """A configuration file or one of its keys cannot be used.

    The message names the file, the key and the fix.
    """


class UnknownHookError(HermesHooksError, KeyError):
    """A hook name that is not in ``VALID_HOOKS``; the message suggests the closest one."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class PluginLoadError(HermesHooksError):
    """A plugin could not be loaded; the runtime records it instead of raising."""


class ConsentError(HermesHooksError):
    """A shell hook needs approval before it may run."""


class RecordingError(HermesHooksError):
    """A session recording cannot be read; the message names the line and the reason."""
