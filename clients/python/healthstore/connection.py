"""Where to connect and with what: server addresses, the token, and TLS.

The environment variables are the ones the Swift tools read:

- `HEALTHSTORE_SERVER`: `HOST:PORT`, `[IPv6]:PORT`, `tcp:HOST:PORT` or `unix:PATH`; a
  comma-separated list names several nodes of one store, tried in order (see `ServerList`).
- `HEALTHSTORE_TOKEN_FILE`: a file whose first line is the token.
- `HEALTHSTORE_TOKEN`: the token itself.
"""

from __future__ import annotations

import os
import socket
import ssl
from dataclasses import dataclass
from typing import Callable, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from . import errors

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7420
DEFAULT_OWNER_TOKEN_FILE = "data/owner.token"
SERVER_VARIABLE = "HEALTHSTORE_SERVER"
TOKEN_FILE_VARIABLE = "HEALTHSTORE_TOKEN_FILE"
TOKEN_VARIABLE = "HEALTHSTORE_TOKEN"

T = TypeVar("T")


@dataclass(frozen=True)
class Address:
    """A server address: a TCP host and port, or a Unix-domain socket path."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    unix_path: Optional[str] = None

    def __str__(self) -> str:
        if self.unix_path is not None:
            return f"unix:{self.unix_path}"
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_address(text: str) -> Address:
    """One address: "HOST:PORT", "[IPv6]:PORT", "HOST" (default port), "tcp:HOST:PORT" or "unix:PATH"."""
    text = text.strip()
    if text.startswith("tcp:"):
        text = text[4:]
    if text.startswith("unix:"):
        if not text[5:]:
            raise ValueError(f"server address {text!r} has no socket path")
        return Address(unix_path=text[5:])
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
        if rest and not rest.startswith(":"):
            raise ValueError(f"server address {text!r} is not [IPv6]:PORT")
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    if not host:
        raise ValueError(f"server address {text!r} has no host")
    if not port_text:
        return Address(host, DEFAULT_PORT)
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"server address {text!r} has an invalid port {port_text!r}")
    return Address(host, int(port_text))


Servers = Union[str, Sequence[str]]


def parse_servers(servers: Servers) -> List[Address]:
    """The addresses of one or several nodes of a store, in the order to try them: a comma-separated
    string, or a list whose items may each be comma-separated lists too."""
    texts = [servers] if isinstance(servers, str) else list(servers)
    addresses = [parse_address(part) for text in texts for part in text.split(",") if part.strip()]
    if not addresses:
        raise ValueError(f"no server address in {servers!r}")
    return addresses


class ServerList:
    """The order a client dials the nodes of one store in: from the node that last worked; once its
    connection is lost, from the node after it, the lost node last (it may be back by then)."""

    def __init__(self, addresses: Sequence[Address], start: int = 0) -> None:
        if not addresses:
            raise ValueError("a server list needs at least one address")
        self.addresses = list(addresses)
        self._start = start % len(self.addresses)
        self._current: Optional[int] = None

    def dial_order(self) -> List[Address]:
        """The order of the next dial; dialing again after a connection was made means it was lost."""
        if self._current is not None:
            self._start = (self._current + 1) % len(self.addresses)
            self._current = None
        n = len(self.addresses)
        return [self.addresses[(self._start + i) % n] for i in range(n)]

    def connected(self, address: Address) -> None:
        """Records the node a dial reached: the next dial after a loss starts past it."""
        n = len(self.addresses)
        for index in ((self._start + i) % n for i in range(n)):
            if self.addresses[index] == address:
                self._current = self._start = index
                return

    def dial(self, connect: Callable[[Address], T]) -> Tuple[T, Address]:
        """`connect` applied in the list's order until one accepts; the result and the node it reached."""
        reached: List[Address] = []

        def attempt(address: Address) -> T:
            result = connect(address)
            reached.append(address)
            return result

        result = first_reachable(self.dial_order(), attempt)
        self.connected(reached[0])
        return result, reached[0]


def resolve_servers(server: Optional[Servers] = None, host: Optional[str] = None, port: Optional[int] = None,
                    unix_path: Optional[str] = None, environ: Optional[Mapping[str, str]] = None) -> List[Address]:
    """The addresses to try: `unix_path`, else `host`/`port`, else `server` (one address, a
    comma-separated list or a list of them), else $HEALTHSTORE_SERVER, else 127.0.0.1:7420."""
    if unix_path:
        return [Address(unix_path=unix_path)]
    if host is not None or port is not None:
        return [Address(host or DEFAULT_HOST, DEFAULT_PORT if port is None else port)]
    given = server if server is not None else (os.environ if environ is None else environ).get(SERVER_VARIABLE, "")
    texts = [given] if isinstance(given, str) else list(given)
    return parse_servers(texts) if any(text.strip() for text in texts) else [Address()]


def read_token_file(path: str) -> str:
    """The first line of a token file, without surrounding whitespace (Unauthenticated when unreadable or empty)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise errors.Unauthenticated(f"cannot read token file {path!r}: {exc.strerror}", field="token_file") from None
    token = lines[0].strip() if lines else ""
    if not token:
        raise errors.Unauthenticated(f"token file {path!r} is empty", field="token_file")
    return token


def resolve_token(token: Optional[str] = None, token_file: Optional[str] = None,
                  environ: Optional[Mapping[str, str]] = None, default_file: str = DEFAULT_OWNER_TOKEN_FILE) -> str:
    """The token: `token`, else `token_file`, else $HEALTHSTORE_TOKEN_FILE, else $HEALTHSTORE_TOKEN,
    else `default_file` (the owner token the server writes on first start)."""
    if token:
        return token
    env = os.environ if environ is None else environ
    path = token_file or env.get(TOKEN_FILE_VARIABLE, "").strip()
    if path:
        return read_token_file(path)
    from_env = env.get(TOKEN_VARIABLE, "").strip()
    if from_env:
        return from_env
    if os.path.isfile(default_file):
        return read_token_file(default_file)
    raise errors.Unauthenticated(f"no token: pass one, set {TOKEN_FILE_VARIABLE} or {TOKEN_VARIABLE}, "
                                 f"or run where {default_file} exists", field="token")


def tls_context(ca: Optional[str] = None, cert: Optional[str] = None, key: Optional[str] = None) -> ssl.SSLContext:
    """A client TLS context that verifies the server's certificate and host name: against `ca` (a PEM
    file) or the system's trust store; `cert`/`key` add a client certificate for servers that ask."""
    try:
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=ca)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        if cert:
            context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise errors.TLSError(f"cannot load TLS files: {exc}") from None
    return context


def connect_socket(address: Address, timeout: Optional[float], context: Optional[ssl.SSLContext],
                   server_hostname: Optional[str] = None) -> socket.socket:
    """A connected (and, with a context, TLS-wrapped) blocking socket; raises Unavailable or TLSError."""
    try:
        if address.unix_path is not None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(address.unix_path)
            except BaseException:
                sock.close()
                raise
        else:
            sock = socket.create_connection((address.host, address.port), timeout=timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if context is not None:
            sock = context.wrap_socket(sock, server_hostname=server_hostname or address.host)
    except OSError as exc:
        raise errors.connect_failed(str(address), exc) from None
    sock.settimeout(None)
    return sock


def unreachable(failures: Sequence[errors.Unavailable]) -> errors.Unavailable:
    """The error when no address accepted: each address's failure, in the order tried."""
    if len(failures) == 1:
        return failures[0]
    return errors.Unavailable("no server reachable: " + "; ".join(f.message for f in failures))


#: Calls that must not be sent twice: a lost answer would lose the credential they mint (or they
#: belong to one connection). Every other call is safe to repeat on another node: saves carry their
#: UUIDs, so a save that did reach the store is answered "already stored" the second time.
NOT_REPEATABLE = frozenset({"hello", "cancel", "ack_observer_event", "register_app", "rotate_app_token", "add_owner"})


def first_reachable(addresses: Sequence[Address], connect: Callable[[Address], T]) -> T:
    """`connect` applied to the first address that accepts. A TLS failure is raised at once, not
    retried elsewhere: it is a configuration problem, not an outage."""
    failures: List[errors.Unavailable] = []
    for address in addresses:
        try:
            return connect(address)
        except errors.TLSError:
            raise
        except errors.Unavailable as exc:
            failures.append(exc)
    raise unreachable(failures)
