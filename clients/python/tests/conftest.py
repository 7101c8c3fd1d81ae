from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

# Run from a checkout without installing: the package's source comes first
# unless the CI script installed it (then OFFLOAD_GATE_TEST_INSTALLED is set
# and the installed copy is the one under test).
if not os.environ.get("OFFLOAD_GATE_TEST_INSTALLED"):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from live import KEY, URL  # noqa: E402  (needs the path above)

from offload_gate import GateClient  # noqa: E402


@pytest.fixture(autouse=True)
def _no_gate_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts with no gate URL or key in the environment; a test
    that wants one sets it (the integration tests, from OFFLOAD_GATE_TEST_*)."""
    monkeypatch.delenv("OFFLOAD_GATE_API_KEY", raising=False)
    monkeypatch.delenv("OFFLOAD_GATE_URL", raising=False)


@pytest.fixture()
def live_gate() -> Iterator[GateClient]:
    """A client of the running gate, with its key."""
    with GateClient(URL, api_key=KEY, timeout=10) as client:
        yield client
