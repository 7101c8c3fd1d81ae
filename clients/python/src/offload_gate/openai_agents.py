"""offload-gate for the OpenAI Agents SDK for Python (``openai-agents``): a
``call_model_input_filter`` for the run config, the recall tool as a function
tool, and the run's bill from its responses. Each new large function-call
output is decided once and every decision is applied on every model call,
byte for byte (the SDK keeps the originals in its own history).

Written against the SDK's documented interfaces (``CallModelData`` in,
``ModelInputData`` out; ``function_tool``; ``RunHooks.on_llm_end`` and
``on_agent_end``; ``RunResult.raw_responses``) and tested at those interfaces
only: this package's CI cannot install the SDK. The SDK import is optional:
the filter, the run hooks and ``observe_run`` work without it.

Like the TypeScript adapter, the books are kept per model call:
``offload_run_hooks(session)`` observes each response's usage as its call
ends (``on_llm_end``), so a decision made before the next call counts the
calls before it, and ends the session when the run's agent ends.

Example::

    from agents import Agent, RunConfig, Runner
    from offload_gate import GateClient, OffloadSession
    from offload_gate.openai_agents import offload_input_filter, recall_function_tool, observe_run

    session = OffloadSession(GateClient(), "gpt-5")
    agent = Agent(name="researcher", tools=[web_fetch, recall_function_tool(session)])
    result = await Runner.run(agent, prompt, run_config=RunConfig(call_model_input_filter=offload_input_filter(session)),
                              hooks=offload_run_hooks(session))  # each call counted as it ends; the session ends with the run
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Set

from .session import OffloadSession


@dataclass
class _ModelInputData:
    """The SDK's ``ModelInputData`` where the SDK is not installed: the same two fields."""

    input: List[Any]
    instructions: Optional[str]


def _model_input_data(items: List[Any], instructions: Optional[str]) -> Any:
    try:
        from agents.run import ModelInputData  # type: ignore[import-not-found]
    except ImportError:
        return _ModelInputData(input=items, instructions=instructions)
    return ModelInputData(input=items, instructions=instructions)


def _field(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, Mapping) else getattr(item, key, None)


def _text(output: Any) -> Optional[str]:
    if isinstance(output, str):
        return output
    parts = output if isinstance(output, list) else [output]
    if not all(_field(p, "type") in ("input_text", "output_text", "text") and isinstance(_field(p, "text"), str) for p in parts):
        return None
    return "\n".join(_field(p, "text") for p in parts)


def offload_input_filter(session: OffloadSession, plan: bool = True) -> Callable[[Any], Any]:
    """The run config's ``call_model_input_filter``: stubs each offloaded
    ``function_call_output`` (named by its ``function_call``) on every call.
    By default it also plans, like the TypeScript adapters: outputs sent in full
    before (so already cached) are the candidates of ``POST /v1/plan`` at the
    session's cadence, and all of a plan's stubs go in on one call
    (``plan=False``: entry decisions only). The recall tool's outputs are never
    stubbed; on any fault the input goes as it was."""

    def input_filter(data: Any) -> Any:
        model_data = data.model_data
        try:
            names = {_field(i, "call_id"): _field(i, "name") for i in model_data.input if _field(i, "type") == "function_call"}
            outputs = [i for i in model_data.input if _field(i, "type") == "function_call_output" and isinstance(i, Mapping)]
            output_ids = {id(i) for i in outputs}
            kept_before = {_field(i, "call_id") for i in outputs if session.status(_field(i, "call_id")) == "kept"}
            for item in outputs:
                text = _text(_field(item, "output"))
                if text is not None:
                    session.offload(_field(item, "call_id"), names.get(_field(item, "call_id")) or "tool", text)
            if plan and kept_before:
                _plan(session, model_data.input, kept_before)
            items: List[Any] = []
            for item in model_data.input:
                stub = session.stub_for(_field(item, "call_id")) if id(item) in output_ids else None
                if stub is None:
                    items.append(item)
                    continue
                # In the output's own form: a string stays a string, text parts become one text part.
                output = stub if isinstance(item["output"], str) else [{"type": "input_text", "text": stub}]
                items.append({**item, "output": output})
            return _model_input_data(items, model_data.instructions)
        except Exception:
            return model_data

    return input_filter


def _plan(session: OffloadSession, items: List[Any], candidates: Any) -> None:
    """The history for a plan: each output kept in full before this call its own segment, the rest fixed."""
    segments: List[Dict[str, Any]] = []
    for item in items:
        text = _text(_field(item, "output")) if _field(item, "type") == "function_call_output" else None
        if text is not None and _field(item, "call_id") in candidates:
            segments.append({"id": _field(item, "call_id"), "tokens": session.tokens_for(text)})
        else:
            segments.append({"tokens": session.tokens_for(str(item))})
    if session.plan_due(sum(s["tokens"] for s in segments if "id" in s)):
        session.plan(segments)


def recall_function_tool(session: OffloadSession) -> Any:
    """The recall tool as a function tool named ``session.recall_tool_name`` (needs ``openai-agents``)."""
    from agents import function_tool  # type: ignore[import-not-found]

    def recall_tool_output(id: str) -> str:
        """Read back in full a tool output that was offloaded from the context.

        Args:
            id: the tool call id named in the placeholder.
        """
        return session.recall(id)

    return function_tool(recall_tool_output, name_override=session.recall_tool_name)


def usage_of_response(response: Any) -> Optional[Dict[str, Any]]:
    """A model response's usage in the session's shape: cached input tokens as cache reads.
    A count that is missing or not a number goes on as it came (None: no usage at all),
    so the session names it instead of billing a zero.

    >>> from types import SimpleNamespace as NS
    >>> usage_of_response(NS(usage=NS(input_tokens=43_000, output_tokens=60, input_tokens_details=NS(cached_tokens=41_000))))
    {'input_tokens': 2000, 'output_tokens': 60, 'cache_read_input_tokens': 41000, 'cache_creation_input_tokens': 0}
    """
    usage = _field(response, "usage")
    if usage is None:
        return None
    total, details = _field(usage, "input_tokens"), _field(usage, "input_tokens_details")
    cached = _field(details, "cached_tokens") if details is not None else None
    cached = 0 if cached is None else cached
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (total, cached))
    # More cached than input does not add up: the negative uncached count is named by the session.
    return {"input_tokens": total - cached if numbers else total, "output_tokens": _field(usage, "output_tokens"), "cache_read_input_tokens": cached, "cache_creation_input_tokens": 0}


# Sessions whose books run hooks keep: observe_run leaves them alone (it would count every call twice).
# (A session is an unhashable dataclass: held by id, with a weak reference to tell a reused id apart.)
_kept: Dict[int, "weakref.ref[OffloadSession]"] = {}


def _keeps(session: OffloadSession) -> bool:
    held = _kept.get(id(session))
    return held is not None and held() is session


class _OffloadHooks:
    """The run hooks' two callbacks (the SDK's ``RunHooks`` adds the others, doing nothing)."""

    def __init__(self, session: OffloadSession, end_with_run: bool) -> None:
        self._session = session
        self._end_with_run = end_with_run
        self._seen: Set[int] = set()
        _kept[id(session)] = weakref.ref(session)

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        """One model call ended: its usage, one turn, once (the books never break the run)."""
        try:
            if id(response) in self._seen:
                return
            self._seen.add(id(response))
            self._session.observe(usage_of_response(response))
        except Exception:
            pass

    async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
        """The run's final output: the session ends (outcomes and bill reported), unless told not to."""
        if self._end_with_run:
            try:
                self._session.end()
            except Exception:
                pass


def offload_run_hooks(session: OffloadSession, end_with_run: bool = True) -> Any:
    """The run's ``hooks``: counts each model call as it ends (``on_llm_end``:
    the response's usage, cached input as cache reads), as the TypeScript
    adapter does, and ends the session on ``on_agent_end`` unless
    ``end_with_run`` is false. A ``RunHooks`` when the SDK is installed.

    >>> import asyncio
    >>> from types import SimpleNamespace as NS
    >>> hooks = offload_run_hooks(OffloadSession(None, "gpt-5"), end_with_run=False)
    >>> asyncio.run(hooks.on_llm_end(None, None, NS(usage=NS(input_tokens=10, output_tokens=2, input_tokens_details=None))))
    """
    try:
        from agents import RunHooks  # type: ignore[import-not-found]
    except ImportError:
        return _OffloadHooks(session, end_with_run)

    class OffloadRunHooks(_OffloadHooks, RunHooks):  # type: ignore[misc, valid-type]
        pass

    return OffloadRunHooks(session, end_with_run)


def observe_run(session: OffloadSession, result: Any) -> None:
    """Observes each model response of a finished run (``result.raw_responses``), one turn each.
    Not needed with ``offload_run_hooks``, which counts each call as it ends: for a session they
    keep, this does nothing."""
    if _keeps(session):
        return
    for response in _field(result, "raw_responses") or []:
        session.observe(usage_of_response(response))
