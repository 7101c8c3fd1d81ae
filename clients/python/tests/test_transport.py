"""HTTPTransport against a real loopback HTTP/1.1 server (the standard library's)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator, List

import pytest

from offload_gate import GATE_UNREACHABLE, GateClient, HTTPTransport
from offload_gate.transport import parse_retry_after


class Gate(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    connections: List[int] = []
    paths: List[str] = []
    hang = threading.Event()

    def setup(self) -> None:
        super().setup()
        Gate.connections.append(self.client_address[1])  # one entry per connection

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        Gate.paths.append(self.path)
        if self.path.startswith("/hang"):
            Gate.hang.wait(5)
        answer = json.dumps({"fire": False, "reason_code": "below_threshold", "echo": json.loads(body),
                             "auth": self.headers.get("authorization")}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        if self.path.endswith("/close"):
            self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(answer)
        if self.path.endswith("/drop"):
            self.close_connection = True  # says keep-alive, then hangs up: the pooled connection goes stale

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    Gate.connections, Gate.paths = [], []
    Gate.hang.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Gate)  # an ephemeral loopback port
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        Gate.hang.set()
        httpd.shutdown()
        httpd.server_close()


def test_requests_reuse_one_keep_alive_connection(server: str) -> None:
    with GateClient(server, api_key="k-0123456789abcdef") as gate:
        answers = [gate.decide(model_name="gpt-5", output_tokens=i) for i in range(5)]
    assert [a.extra["echo"]["output_tokens"] for a in answers] == [0, 1, 2, 3, 4]
    assert answers[0].extra["auth"] == "Bearer k-0123456789abcdef"
    assert len(Gate.connections) == 1


def test_a_base_url_path_prefixes_every_route(server: str) -> None:
    GateClient(server + "/gate/").decide(model_name="gpt-5", output_tokens=1)
    assert Gate.paths == ["/gate/v1/gate"]


def test_a_connection_the_server_closed_is_replaced_without_failing_the_call(server: str) -> None:
    transport = HTTPTransport(server)
    headers = {"content-type": "application/json"}
    first = transport.request("POST", "/close", b"{}", headers, 2.0)
    second = transport.request("POST", "/v1/gate", b"{}", headers, 2.0)
    assert (first.status, second.status) == (200, 200)
    assert len(Gate.connections) == 2


def test_a_stale_pooled_connection_is_retried_once_on_a_fresh_one(server: str) -> None:
    transport = HTTPTransport(server)
    headers = {"content-type": "application/json"}
    transport.request("POST", "/drop", b"{}", headers, 2.0)
    assert transport.request("POST", "/v1/gate", b"{}", headers, 2.0).status == 200
    assert len(Gate.connections) == 2


def test_a_server_that_does_not_answer_in_time_is_gate_unreachable(server: str) -> None:
    decision = GateClient(server + "/hang", timeout=0.2).decide(model_name="gpt-5", output_tokens=1)
    assert (decision.fire, decision.reason_code) == (False, GATE_UNREACHABLE)
    assert "timeout" in decision.reason


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
