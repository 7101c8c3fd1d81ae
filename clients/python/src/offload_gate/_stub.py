"""@module _stub: the stub text and the tool name as the gate takes it, byte-identical
to the TypeScript client's stub.ts (the template is clients/constants.json's)."""

from __future__ import annotations

import json
import re

from ._constants import STUB_TEMPLATE


def default_stub(id: str, tool_name: str, chars: int, recall_tool_name: str) -> str:
    """The default stub, byte-identical to the TypeScript client's.

    >>> default_stub("call_1", "web_fetch", 160000, "recall_tool_output")
    '[offloaded: the output of web_fetch call call_1 (160,000 chars) is not shown; call recall_tool_output with {"id":"call_1"} to read it]'
    """
    shown = json.dumps({"id": id}, separators=(",", ":"), ensure_ascii=False)
    values = {"tool_name": tool_name, "id": id, "chars": f"{chars:,}", "recall_tool_name": recall_tool_name, "id_json": shown}
    # One pass over the template: a value that looks like a placeholder stays as it is.
    return re.sub(r"\{([a-z_]+)\}", lambda m: values.get(m.group(1), m.group(0)), STUB_TEMPLATE)


def tool_name_for_gate(name: str) -> str:
    """A framework's tool name as the gate takes it: ``[A-Za-z0-9._:/-]{1,64}``.

    >>> tool_name_for_gate("web fetch")
    'web_fetch'
    """
    return re.sub(r"[^A-Za-z0-9._:/-]", "_", name)[:64] or "tool"
