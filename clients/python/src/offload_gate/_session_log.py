"""@module _session_log: the opt-in session log, one JSON line per model call
in the shape replay reads (docs/replay.md § The session log,
src/replay/formats/offload-log.ts), as the TypeScript client's session-log.ts.

Each line's ``input`` is what the session knows of the call's input: the tool
outputs it was handed, in order, each as the history held it at that call (the
stub once stubbed), with a content hash that is replay's own ``hashText``
(pinned by clients/constants.json's ``log_hash_vectors``). The system prompt,
user and assistant turns never pass through the session: replay fits them as
its constant and the usage's growth. ``usage`` is the call's, in the trace's
shape; usage reported later for the same call (``observe(turn=False)``) is
added to its line, so a line is written when the next call is observed or the
session ends.

>>> hash_text("abc")
'348fd2178bc7e'
"""

from __future__ import annotations

import json
import logging
import os
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Mapping, Optional

log = logging.getLogger("offload_gate")

#: The marker every line carries.
LOG_MARKER = "offload-gate/1"


def hash_text(text: str) -> str:
    """replay's ``hashText`` (src/replay/formats/trace.ts) in hex: two 32-bit FNV-style
    lanes over the UTF-16 code units, as JavaScript's ``charCodeAt`` sees them."""
    a, b = 0x811C9DC5, 0x01000193 ^ 0x5BD1E995
    for c in memoryview(text.encode("utf-16-le")).cast("H"):
        a = ((a ^ c) * 0x01000193) & 0xFFFFFFFF
        b = ((b ^ c) * 0x5BD1E995) & 0xFFFFFFFF
    return format(a * 0x200000 + (b & 0x1FFFFF), "x")


def _writer(sink: Any) -> Callable[[str], None]:
    """A path (appended to, one line a call) or anything with ``write``."""
    if isinstance(sink, (str, os.PathLike)):

        def append(line: str) -> None:
            with open(sink, "a", encoding="utf-8") as f:
                f.write(line)

        return append
    return sink.write


class SessionLog:
    """One session's log: the tool outputs seen, and the call waiting to be written."""

    def __init__(self, sink: Any, session_id: str, model: str) -> None:
        self._write = _writer(sink)
        self._session = session_id
        self._model = model
        self._parts: Dict[str, Dict[str, Any]] = {}
        self._pending: Optional[Dict[str, Any]] = None

    def seen(self, call_id: str) -> bool:
        return call_id in self._parts

    def output(self, call_id: str, tool: str, text: str) -> None:
        """A tool output as the history holds it from now on (again, with its stub, once stubbed)."""
        self._parts[call_id] = {"kind": "tool_output", "tool": tool, "call_id": call_id, "chars": len(text), "hash": hash_text(text)}

    def call(self, usage: Mapping[str, int], written_1h: int) -> None:
        """A model call: the one before it is written, this one waits for late usage."""
        self.flush()
        self._pending = {
            "trace": LOG_MARKER,
            "session": self._session,
            "model": self._model,
            "timestamp": datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "input": [dict(part) for part in self._parts.values()],
            "usage": dict.fromkeys(("input", "cache_read", "cache_write_5m", "cache_write_1h", "output"), 0),
        }
        self.late(usage, written_1h)

    def late(self, usage: Mapping[str, int], written_1h: int) -> None:
        """Usage the last call did not report at the time, added to its line."""
        if self._pending is None:
            return
        u = self._pending["usage"]
        u["input"] += usage["input_tokens"]
        u["cache_read"] += usage["cache_read_input_tokens"]
        u["cache_write_5m"] += usage["cache_creation_input_tokens"] - written_1h
        u["cache_write_1h"] += written_1h
        u["output"] += usage["output_tokens"]

    def flush(self) -> None:
        """Writes the waiting line; a fault is logged, never raised into the loop."""
        line, self._pending = self._pending, None
        if line is None:
            return
        try:
            self._write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
        except Exception:
            log.warning("offload-gate: the session log could not be written", exc_info=True)
