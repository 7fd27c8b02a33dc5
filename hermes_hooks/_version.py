"""The package version and its pluggy project name, in a module of its own so that any
module can read them without importing the package's public surface (and everything
that pulls in)."""

__version__ = "0.1.0"

#: The pluggy project name shared by the hookspecs and ``hermes_hooks.hookimpl``.
PROJECT_NAME = "hermes"
