"""Differential conformance against hermes-agent itself (``tox -e reference``)."""
