"""What the tests against a running gate share: ``npm run test:clients`` starts
one (wrangler dev, seeded local KV, a gate key) and sets OFFLOAD_GATE_TEST_URL
and OFFLOAD_GATE_TEST_API_KEY. Without them those tests skip, unless
OFFLOAD_GATE_REQUIRE_INTEGRATION is set (as CI does): then they fail."""

from __future__ import annotations

import os
import time
from typing import Callable, TypeVar

import pytest

URL = os.environ.get("OFFLOAD_GATE_TEST_URL")
KEY = os.environ.get("OFFLOAD_GATE_TEST_API_KEY")

if URL is None and os.environ.get("OFFLOAD_GATE_REQUIRE_INTEGRATION"):
    raise RuntimeError("OFFLOAD_GATE_REQUIRE_INTEGRATION is set but OFFLOAD_GATE_TEST_URL is not: no gate to test against")

#: The marks of a module that needs the gate.
NEEDS_GATE = [pytest.mark.integration, pytest.mark.skipif(URL is None, reason="no running gate (set OFFLOAD_GATE_TEST_URL)")]

T = TypeVar("T")


def eventually(attempt: Callable[[], T], done: Callable[[T], bool], tries: int = 20, pause: float = 0.1) -> T:
    """``attempt()`` until ``done`` says so (bounded): the gate hands a decision to
    the ledger after it answers, so a report sent at once may find it not there yet."""
    result = attempt()
    for _ in range(tries - 1):
        if done(result):
            break
        time.sleep(pause)
        result = attempt()
    return result
