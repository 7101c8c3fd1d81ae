"""docs/integrating/end-to-end.md's example, run as the guide says: against
a running gate it prints exactly what the guide shows; with no gate it still
finishes, keeping every output."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Dict, Tuple

import pytest

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "integrating" / "end-to-end.md"
SOURCE = Path(__file__).resolve().parents[1] / "src"
URL = os.environ.get("OFFLOAD_GATE_TEST_URL")


def example() -> Tuple[str, str]:
    text = GUIDE.read_text(encoding="utf-8")
    code = re.search(r"<!-- example: agent_loop -->\n```python\n(.*?)```", text, re.S)
    printed = re.search(r"It prints:\n\n```text\n(.*?)```", text, re.S)
    assert code is not None and printed is not None, "the guide's example or its output is missing"
    return code.group(1), printed.group(1)


def run_example(env: Dict[str, str]) -> subprocess.CompletedProcess[str]:
    code, _ = example()
    if not os.environ.get("OFFLOAD_GATE_TEST_INSTALLED"):
        env = {**env, "PYTHONPATH": str(SOURCE)}
    return subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True, timeout=60)


@pytest.mark.integration
@pytest.mark.skipif(URL is None, reason="no running gate (set OFFLOAD_GATE_TEST_URL)")
def test_the_guides_example_prints_what_the_guide_shows() -> None:
    env = {"OFFLOAD_GATE_URL": URL or ""}
    if os.environ.get("OFFLOAD_GATE_TEST_API_KEY"):
        env["OFFLOAD_GATE_API_KEY"] = os.environ["OFFLOAD_GATE_TEST_API_KEY"]
    result = run_example(env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == example()[1]


def test_the_guides_example_finishes_without_a_gate_and_keeps_every_output() -> None:
    with socket.socket() as probe:  # a loopback port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = run_example({"OFFLOAD_GATE_URL": f"http://127.0.0.1:{port}"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [("fire=False" in line and "gate_unreachable" in line) for line in lines[:3]] == [True] * 3
    assert lines[3:] == ["y" * 100 + "… (120,000 chars)", "plan: stub [] (gate_unreachable, net=$+0.0000)", "outcomes: []", "session: []"]
    # What an example prints fits a terminal: no output is dumped whole.
    assert max(len(line) for line in lines) <= 200
    assert result.stderr.count("gate_unreachable") == 5  # three decisions, the plan and the session's bill
