"""Keep a worker process off the network: only loopback addresses may be reached.

Real plugins talk to their vendors' services when they load or fire.  The reference
run must never leave the machine, so every name lookup and connection to anything but
loopback fails at once with the error a closed network gives.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}
_real_getaddrinfo = socket.getaddrinfo
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if host is not None and not _is_loopback(host):
        raise socket.gaierror(socket.EAI_NONAME, f"offline reference run: {host!r} not resolved")
    return _real_getaddrinfo(host, *args, **kwargs)


def _checked(address: Any) -> None:
    if isinstance(address, tuple) and not _is_loopback(address[0]):
        raise ConnectionRefusedError(111, f"offline reference run: {address[0]!r} refused")


def _connect(self: socket.socket, address: Any) -> None:
    _checked(address)
    _real_connect(self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    _checked(address)
    return _real_connect_ex(self, address)


def install() -> None:
    """Patch the socket module of this process."""
    socket.getaddrinfo = _getaddrinfo  # type: ignore[assignment]
    socket.socket.connect = _connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign]
