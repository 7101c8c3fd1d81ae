"""offload-gate for the Claude Agent SDK for Python (``claude-agent-sdk``): a
PostToolUse hook that stands a stub in for a large tool output (keeping a
built-in tool's output shape), the recall tool as an in-process SDK MCP server
(paged), and ``observe`` for the query's messages, which ends the session on
the result message.

Written against the SDK's documented interfaces (hook callables returning
the documented dicts, ``create_sdk_mcp_server`` and ``@tool``) and tested at
those interfaces only: this package's CI cannot install the SDK. The SDK
import is optional: ``offload_hooks`` and ``observe`` work without it.

Example::

    from claude_agent_sdk import ClaudeAgentOptions, query
    from offload_gate import GateClient, OffloadSession
    from offload_gate.claude_agent_sdk import offload_hooks, recall_server, observe

    session = OffloadSession(GateClient(), "claude-opus-4-6", recall_tool_name="mcp__offload__recall_tool_output")
    options = ClaudeAgentOptions(hooks=offload_hooks(session), mcp_servers={"offload": recall_server(session)})
    async for message in query(prompt=prompt, options=options):
        await observe(session, message)   # ends the session on the result message
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Dict, List, Mapping, Optional

from ._usage import USAGE_KEYS, read_usage
from .session import OffloadSession

#: The recall server's name in ``mcp_servers``: its tool is then ``mcp__offload__<tool>``.
RECALL_SERVER_NAME = "offload"
#: Characters one recall answers at most: under Claude Code's persistence of large MCP results.
RECALL_PAGE_CHARS = 40_000


def _bash_text(out: Mapping[str, Any]) -> Optional[str]:
    if not isinstance(out.get("stdout"), str):
        return None
    return out["stdout"] + (f"\n{out['stderr']}" if isinstance(out.get("stderr"), str) and out["stderr"] else "")


def _read_text(out: Mapping[str, Any]) -> Optional[str]:
    file = out.get("file")
    return file["content"] if out.get("type") == "text" and isinstance(file, Mapping) and isinstance(file.get("content"), str) else None


# How each built-in tool's output is read as text and rebuilt around a stub, keeping its shape.
_BUILT_IN: Dict[str, tuple[Callable[[Mapping[str, Any]], Optional[str]], Callable[[Mapping[str, Any], str], Dict[str, Any]]]] = {
    "Bash": (_bash_text, lambda out, stub: {"stdout": stub, "stderr": "", "interrupted": out.get("interrupted") is True}),
    "Grep": (
        lambda out: out["content"] if isinstance(out.get("content"), str) else ("\n".join(out["filenames"]) if isinstance(out.get("filenames"), list) else None),
        lambda out, stub: {"mode": "content", "numFiles": out.get("numFiles", 0), "filenames": [], "content": stub, "numLines": 1},
    ),
    "WebFetch": (lambda out: out["result"] if isinstance(out.get("result"), str) else None, lambda out, stub: {**out, "result": stub}),
    "Read": (_read_text, lambda out, stub: {**out, "file": {**out["file"], "content": stub, "numLines": 1}}),
}
#: The built-in tools whose output shape the hook keeps (MCP tools, ``mcp__*``, too); others are left alone.
SUPPORTED_BUILT_IN_TOOLS = tuple(_BUILT_IN)


def mcp_recall_name(session: OffloadSession, server_name: str = RECALL_SERVER_NAME) -> str:
    """The recall tool's name as the model sees it (``mcp__<server>__<tool>``): give it to the session as ``recall_tool_name``."""
    prefix = f"mcp__{server_name}__"
    return session.recall_tool_name if session.recall_tool_name.startswith(prefix) else prefix + session.recall_tool_name


def _mcp_text(response: Any) -> Optional[str]:
    if isinstance(response, str):
        return response
    blocks = response if isinstance(response, list) else (response.get("content") if isinstance(response, Mapping) else None)
    if not isinstance(blocks, list) or not all(isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in blocks):
        return None
    return "\n".join(b["text"] for b in blocks)


def replacement(session: OffloadSession, tool_use_id: str, tool_name: str, response: Any) -> Optional[Any]:
    """The tool output to hand the model instead of ``response``, or None to leave it.

    A Bash output Claude Code persisted to a file (``persistedOutputPath``) is
    decided on the whole file, which recall then returns.
    """
    mcp = tool_name.startswith("mcp__")
    shape = _BUILT_IN.get(tool_name)
    if not mcp and shape is None:
        return None
    out: Mapping[str, Any] = response if isinstance(response, Mapping) else {}
    text = _mcp_text(response) if mcp else shape[0](out)  # type: ignore[index]
    if text is None:
        return None
    path = out.get("persistedOutputPath")
    if isinstance(path, str):
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            pass
    answer = session.offload(tool_use_id, tool_name, text)
    if session.status(tool_use_id) != "stubbed":
        return None
    return [{"type": "text", "text": answer}] if mcp else shape[1](out, answer)  # type: ignore[index]


def offload_hooks(session: OffloadSession, server_name: str = RECALL_SERVER_NAME) -> Dict[str, List[Any]]:
    """The ``hooks`` option: one PostToolUse hook answering
    ``hookSpecificOutput.updatedToolOutput`` with the stub when the gate fires.
    Never raises into the loop. A ``HookMatcher`` when the SDK is installed."""
    recall_name = mcp_recall_name(session, server_name)

    async def post_tool_use(input_data: Mapping[str, Any], tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        try:
            name = input_data.get("tool_name", "")
            if input_data.get("hook_event_name") != "PostToolUse" or name == recall_name:
                return {}
            call_id = tool_use_id or input_data.get("tool_use_id", "")
            # The session's gate call blocks: off the event loop.
            replaced = await asyncio.to_thread(replacement, session, call_id, name, input_data.get("tool_response"))
        except Exception:
            return {}
        if replaced is None:
            return {}
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": replaced}}

    try:
        from claude_agent_sdk import HookMatcher  # type: ignore[import-not-found]

        return {"PostToolUse": [HookMatcher(hooks=[post_tool_use])]}
    except ImportError:
        return {"PostToolUse": [{"matcher": None, "hooks": [post_tool_use]}]}


def recall_page(text: str, offset: int = 0, chars: int = RECALL_PAGE_CHARS) -> str:
    """One page of an original, naming what is left (the TypeScript adapter's, byte for byte).

    >>> recall_page("abcdef", 0, 4)
    'abcd\\n[recall: characters 0–4 of 6; 2 left: call again with offset 4]'
    """
    start = max(0, min(int(offset), len(text)))
    end = min(len(text), start + chars)
    left = len(text) - end
    if start == 0 and left == 0:
        return text
    tail = f"; {left} left: call again with offset {end}" if left > 0 else "; the end"
    return f"{text[start:end]}\n[recall: characters {start}–{end} of {len(text)}{tail}]"


def recall_handler(session: OffloadSession, page_chars: int = RECALL_PAGE_CHARS) -> Callable[[Mapping[str, Any]], Any]:
    """The recall tool's handler as ``@tool`` takes it: ``{"id", "offset"?}`` in, MCP content out."""

    async def recall(args: Mapping[str, Any]) -> Dict[str, Any]:
        text = await asyncio.to_thread(session.recall, str(args.get("id", "")))
        return {"content": [{"type": "text", "text": recall_page(text, int(args.get("offset") or 0), page_chars)}]}

    return recall


def recall_server(session: OffloadSession, server_name: str = RECALL_SERVER_NAME, page_chars: int = RECALL_PAGE_CHARS) -> Any:
    """The recall tool as an in-process SDK MCP server (needs ``claude-agent-sdk``)."""
    from claude_agent_sdk import create_sdk_mcp_server, tool  # type: ignore[import-not-found]

    name = mcp_recall_name(session, server_name)[len(f"mcp__{server_name}__"):]
    description = "Read back in full a tool output that was offloaded from the context: pass the id its placeholder names; long outputs come in pages: pass the offset the last page names."
    recall = tool(name, description, {"id": str, "offset": int})(recall_handler(session, page_chars))
    return create_sdk_mcp_server(name=server_name, version="0.1.0", tools=[recall])


_USAGE_KEYS = USAGE_KEYS


def _counts(usage: Any) -> Dict[str, int]:
    # What is readable; the session itself names what is not (the usage goes to it as it came).
    return read_usage(usage, turn=False)[0]


async def observe(session: OffloadSession, message: Any) -> None:
    """Feeds the session one message of the query: an assistant message's usage
    once per model call (by its message id, when the SDK gives one), and on the
    result message what its usage adds beyond them, on the bill only; then ends
    the session (off the event loop: it reports to the gate)."""
    seen: Dict[str, Any] = session.__dict__.setdefault("_claude_agent_sdk_seen", {"ids": set(), "usage": dict.fromkeys(_USAGE_KEYS, 0)})
    usage = getattr(message, "usage", None)
    if type(message).__name__ == "AssistantMessage" and usage is not None and getattr(message, "parent_tool_use_id", None) is None:
        key = getattr(message, "message_id", None) or getattr(message, "id", None) or id(message)
        if key in seen["ids"]:
            return
        seen["ids"].add(key)
        counts = _counts(usage)
        for name in _USAGE_KEYS:
            seen["usage"][name] += counts[name]
        # As it came: the session bills its cache_creation split (1-hour writes) and names a field it cannot read.
        session.observe(usage)
        return
    if type(message).__name__ != "ResultMessage":
        return
    total = _counts(usage or {})
    extra = {key: max(0, total[key] - seen["usage"][key]) for key in _USAGE_KEYS}
    if any(extra.values()):
        # Beyond the calls seen, on the bill only; with no call seen, the result is the one turn known.
        session.observe(extra, turn=not seen["ids"])
    await asyncio.to_thread(session.end)
