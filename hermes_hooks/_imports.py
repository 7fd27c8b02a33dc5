"""Import Python code that lives in a Hermes home (plugin packages, gateway handlers)."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

__all__ = ["import_file"]


def import_file(module_name: str, path: Path, *, package: bool = False) -> types.ModuleType:
    """Import ``path`` as ``module_name``, registered in ``sys.modules`` before it runs.

    Registering first lets dataclasses, typing introspection and (with ``package=True``,
    for an ``__init__.py``) relative imports inside the file resolve.  A file that
    fails to import leaves nothing behind in ``sys.modules``; its exception propagates,
    ``KeyboardInterrupt`` included, for the caller to isolate.  Raises ``ImportError``
    when no loader exists for the path.
    """
    parent, _, _ = module_name.rpartition(".")
    if parent and parent not in sys.modules:  # a namespace to hang private names on
        namespace = types.ModuleType(parent)
        namespace.__path__ = []
        sys.modules[parent] = namespace
    spec = importlib.util.spec_from_file_location(
        module_name, path, submodule_search_locations=[str(path.parent)] if package else None
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module
