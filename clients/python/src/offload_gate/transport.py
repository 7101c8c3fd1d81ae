"""The wire: a small keep-alive HTTP/1.1 transport on the standard library
(``http.client``), and the ``Transport`` protocol the clients call, so tests
(and callers with their own HTTP stack) can put anything behind it."""

from __future__ import annotations

import http.client
import ssl
import threading
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Protocol, Tuple, Union
from urllib.parse import urlsplit

Connection = Union[http.client.HTTPConnection, http.client.HTTPSConnection]

# What a keep-alive connection the server has closed meanwhile raises on its
# next request: the request never reached a handler, so sending it again on a
# fresh connection is safe.
_STALE_CONNECTION = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)


@dataclass(frozen=True)
class Response:
    """An HTTP answer: status, headers (names in lower case) and the raw body."""

    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)


class Transport(Protocol):
    """Sends one request and returns the answer. Raises ``OSError`` (a timeout
    is ``TimeoutError``) or ``http.client.HTTPException`` when there is none.

    ``path`` is relative to the gate's base URL (``/v1/gate``); ``timeout`` is
    the seconds left for this attempt.
    """

    def request(self, method: str, path: str, body: Optional[bytes], headers: Mapping[str, str], timeout: float) -> Response: ...

    def close(self) -> None: ...


class HTTPTransport:
    """Keep-alive HTTP(S) to one base URL, with a small pool of idle
    connections so concurrent callers (threads, the async client's workers)
    each reuse their own.

    Example::

        transport = HTTPTransport("http://127.0.0.1:8787", max_idle=4)
        transport.request("GET", "/healthz", None, {}, timeout=1.0).status  # 200
    """

    def __init__(self, base_url: str, *, max_idle: int = 8, ssl_context: Optional[ssl.SSLContext] = None) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http:// or https:// URL, got {base_url!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._ssl = ssl_context
        self._max_idle = max_idle
        self._idle: List[Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def request(self, method: str, path: str, body: Optional[bytes], headers: Mapping[str, str], timeout: float) -> Response:
        conn, reused = self._acquire(timeout)
        try:
            try:
                answer, reusable = self._send(conn, method, path, body, headers, timeout)
            except _STALE_CONNECTION:
                if not reused:
                    raise
                conn.close()
                conn = self._connect(timeout)
                answer, reusable = self._send(conn, method, path, body, headers, timeout)
        except BaseException:
            conn.close()
            raise
        if reusable:
            self._release(conn)
        else:
            conn.close()
        return answer

    def close(self) -> None:
        """Closes every idle connection; requests in flight finish on theirs."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def _send(
        self, conn: Connection, method: str, path: str, body: Optional[bytes], headers: Mapping[str, str], timeout: float
    ) -> Tuple[Response, bool]:
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        conn.request(method, self._prefix + path, body=body, headers=dict(headers))
        raw = conn.getresponse()
        data = raw.read()
        answer = Response(status=raw.status, body=data, headers={k.lower(): v for k, v in raw.getheaders()})
        return answer, not raw.will_close

    def _acquire(self, timeout: float) -> Tuple[Connection, bool]:
        with self._lock:
            if self._idle:
                return self._idle.pop(), True
        return self._connect(timeout), False

    def _release(self, conn: Connection) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < self._max_idle:
                self._idle.append(conn)
                return
        conn.close()

    def _connect(self, timeout: float) -> Connection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout, context=self._ssl or ssl.create_default_context())
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds a ``Retry-After`` header asks to wait (delta-seconds or an HTTP
    date), or None when absent or unreadable.

    >>> parse_retry_after("2")
    2.0
    """
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    from email.utils import parsedate_to_datetime
    import time

    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def headers_of(api_key: Optional[str], user_agent: str) -> Dict[str, str]:
    headers = {"content-type": "application/json", "accept": "application/json", "user-agent": user_agent}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    return headers
