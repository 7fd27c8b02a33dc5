"""Redaction from the very first log line, without importing ``logging`` up front.

:mod:`hermes_hooks._log` attaches the redacting filter to every logger in
``REDACTED_LOGGERS`` when it is imported.  ``import hermes_hooks`` used to import it,
and with it ``logging`` (a third of the start-up of ``hermes-hooks --help``, which logs
nothing).  :func:`arm` keeps the guarantee without that cost:

* when ``logging`` is already imported (any host application, any test run), it
  imports ``_log`` at once, as before;
* otherwise nothing can log yet, so it puts a finder first on ``sys.meta_path`` that
  finds nothing itself: when ``logging`` is imported, by anyone, it wraps the loader
  that loads it so that ``_log`` is imported (and the filter attached) right after
  logging's own code has run, before the importer gets the module.  No logger exists
  before that point, so no record can reach one of our loggers unredacted.

If attaching fails, the import of ``logging`` fails with it (fail closed): a process
must not log through our loggers without the filter.  The finder stays on
``sys.meta_path`` once spent (answering None to every name): removing it could make
another thread's import, iterating that list at the same moment, skip a finder.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__all__ = ["arm"]


def arm() -> None:
    """Make sure the redacting filter is on our loggers before any record reaches them."""
    if "logging" in sys.modules:
        import hermes_hooks._log  # noqa: F401  (attaches the filter)

        return
    if not any(isinstance(finder, _AttachOnLoggingImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AttachOnLoggingImport())


def _attach() -> None:
    import hermes_hooks._log  # noqa: F401  (attaches the filter)


class _AttachOnLoggingImport:
    """A meta-path finder that wraps the loader of ``logging`` (see the module doc)."""

    def __init__(self) -> None:
        self.spent = False

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The spec the other finders give ``logging``, its loader wrapped; None for
        every other name (and for ``logging`` once the filter is attached)."""
        if name != "logging" or self.spent:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec: ModuleSpec | None = find(name, path, target)
            if spec is not None:
                break
        else:
            return None  # the import fails as it would without us
        if spec.loader is not None:
            spec.loader = _AttachAfterExec(spec.loader, self)  # type: ignore[assignment]
        return spec


class _AttachAfterExec:
    """Runs the real loader of ``logging``, then attaches the filter."""

    def __init__(self, loader: object, finder: _AttachOnLoggingImport) -> None:
        self.loader = loader
        self.finder = finder

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        """What the real loader creates (None: the default module)."""
        create = getattr(self.loader, "create_module", None)
        return None if create is None else create(spec)

    def exec_module(self, module: ModuleType) -> None:
        """Run logging's code with its real loader, then attach the filter."""
        # The module and its spec name the real loader, as if we were not there.
        if getattr(module, "__loader__", None) is self:
            module.__loader__ = self.loader
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is self:
            spec.loader = self.loader
        self.loader.exec_module(module)  # type: ignore[attr-defined]
        _attach()
        self.finder.spent = True

    def __getattr__(self, name: str) -> object:
        # get_source, is_package, get_resource_reader... all come from the real loader.
        return getattr(self.loader, name)
