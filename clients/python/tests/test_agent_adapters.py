"""The Claude Agent SDK and OpenAI Agents SDK adapters, tested at the SDKs'
documented interfaces (hook callables and the dicts they return; the
call_model_input_filter's CallModelData in, ModelInputData out; result and
message objects): neither SDK can be installed where this runs, so these
tests stand for them with plain objects of the documented shapes."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace as NS
from typing import Any, Dict, List

from fakes import EXAMPLE_A_ANSWER, FakeTransport, Sent, ok

from offload_gate import GateClient, OffloadSession
from offload_gate.claude_agent_sdk import offload_hooks, observe, recall_handler, recall_page
from offload_gate.openai_agents import observe_run, offload_input_filter, offload_run_hooks, usage_of_response

BIG = "lorem ipsum dolor sit amet " * 6_000  # 162,000 characters
RECALL = "mcp__offload__recall_tool_output"


class Gate:
    """Fires on every output and accepts every report; counts what it was asked."""

    def __init__(self) -> None:
        self.decided = 0
        self.transport = FakeTransport([self.answer])

    def answer(self, sent: Sent) -> Any:
        if sent.path == "/v1/gate":
            self.decided += 1
            return ok({**EXAMPLE_A_ANSWER, "fire": True, "reason_code": "net_positive", "decision_id": f"dec_0_{self.decided:032x}"})
        n = len(sent.body["items"])
        return ok({"results": [{"status": "accepted", "repeated": False}] * n, "accepted": n, "unknown_decision": 0, "conflict": 0, "invalid": 0})

    def sent(self, path: str) -> List[Sent]:
        return [s for s in self.transport.sent if s.path == path]


def session_on(gate: Gate, **kw: Any) -> OffloadSession:
    return OffloadSession(GateClient("http://gate.test", transport=gate.transport), "claude-opus-4-6", **kw)


def run_hook(session: OffloadSession, tool_name: str, response: Any, tool_use_id: str = "toolu_01") -> Dict[str, Any]:
    hook = offload_hooks(session)["PostToolUse"][0]
    hooks = hook["hooks"] if isinstance(hook, dict) else hook.hooks
    data = {"hook_event_name": "PostToolUse", "tool_name": tool_name, "tool_input": {}, "tool_response": response, "tool_use_id": tool_use_id}
    return asyncio.run(hooks[0](data, tool_use_id, None))


def test_the_bash_hook_answers_the_stub_in_bash_s_own_shape():
    session = session_on(Gate(), recall_tool_name=RECALL)
    out = run_hook(session, "Bash", {"stdout": BIG, "stderr": "", "interrupted": False, "isImage": False})
    replaced = out["hookSpecificOutput"]["updatedToolOutput"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert set(replaced) == {"stdout", "stderr", "interrupted"} and replaced["interrupted"] is False
    assert replaced["stdout"].startswith("[offloaded: the output of Bash call toolu_01 (162,000 chars)") and RECALL in replaced["stdout"]
    assert session.recall("toolu_01") == BIG


def test_a_persisted_bash_output_is_decided_on_the_whole_file_and_recall_returns_it(tmp_path):
    original = BIG + "the end"
    path = tmp_path / "toolu_01.txt"
    path.write_text(original, encoding="utf-8")
    session = session_on(Gate())
    preview = {"stdout": original[:2_000], "stderr": "", "interrupted": False, "persistedOutputPath": str(path), "persistedOutputSize": len(original)}
    out = run_hook(session, "Bash", preview)
    assert "(162,007 chars)" in out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert session.recall("toolu_01") == original


def test_mcp_outputs_become_one_text_block_and_unsupported_tools_and_recall_are_left_alone():
    gate = Gate()
    session = session_on(gate, recall_tool_name=RECALL)
    mcp = run_hook(session, "mcp__docs__fetch", [{"type": "text", "text": BIG}])
    assert mcp["hookSpecificOutput"]["updatedToolOutput"][0]["type"] == "text"
    assert run_hook(session, "TodoWrite", {"todos": [BIG]}, "toolu_02") == {}
    assert run_hook(session, RECALL, [{"type": "text", "text": BIG}], "toolu_03") == {}
    assert gate.decided == 1, "only the MCP output was asked about"


def test_recall_pages_name_the_next_offset_and_add_up_to_the_original():
    session = session_on(Gate())
    session.offload("toolu_01", "Bash", BIG)
    handler = recall_handler(session, page_chars=70_000)
    pages, offset = [], 0
    while True:
        text = asyncio.run(handler({"id": "toolu_01", "offset": offset}))["content"][0]["text"]
        body, _, tail = text.rpartition("\n[recall: ")
        pages.append(body)
        if "call again with offset" not in tail:
            break
        offset = int(tail.rsplit(" ", 1)[1].rstrip("]"))
    assert len(pages) == 3 and "".join(pages) == BIG
    assert recall_page("abc") == "abc"


def test_observe_counts_each_model_call_once_and_ends_on_the_result_message():
    gate = Gate()
    session = session_on(gate)
    AssistantMessage = type("AssistantMessage", (), {})
    ResultMessage = type("ResultMessage", (), {})

    def assistant(mid: str, **usage: int) -> Any:
        m = AssistantMessage()
        m.message_id, m.parent_tool_use_id, m.usage = mid, None, usage
        return m

    async def feed() -> None:
        for m in [assistant("msg_1", input_tokens=1_000, output_tokens=1, cache_creation_input_tokens=900), assistant("msg_1", input_tokens=1_000, output_tokens=1), assistant("msg_2", input_tokens=200, output_tokens=1, cache_read_input_tokens=1_900)]:
            await observe(session, m)
        result = ResultMessage()
        result.usage = {"input_tokens": 1_200, "output_tokens": 80, "cache_read_input_tokens": 1_900, "cache_creation_input_tokens": 900}
        await observe(session, result)

    asyncio.run(feed())
    assert session.ended
    summary = session.end()
    assert (summary.turns, summary.usage) == (2, {"input_tokens": 1_200, "output_tokens": 80, "cache_read_input_tokens": 1_900, "cache_creation_input_tokens": 900})
    assert len(gate.sent("/v1/sessions")) == 1


def call_model_data(items: List[Any]) -> Any:
    return NS(model_data=NS(input=items, instructions="be brief"), agent=None, context=None)


def test_the_input_filter_decides_each_output_once_and_applies_it_on_every_call_byte_for_byte():
    gate = Gate()
    session = session_on(gate)
    input_filter = offload_input_filter(session)
    items = [
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "call_1", "name": "web_fetch", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": BIG},
    ]
    first = input_filter(call_model_data(items))
    recall = [{"type": "function_call", "call_id": "call_2", "name": "recall_tool_output", "arguments": '{"id":"call_1"}'}, {"type": "function_call_output", "call_id": "call_2", "output": BIG}]
    second = input_filter(call_model_data(items + recall))
    assert first.instructions == "be brief"
    assert first.input[2]["output"].startswith("[offloaded: the output of web_fetch call call_1")
    assert second.input[2] == first.input[2], "the same stub on every later call"
    assert second.input[4]["output"] == BIG, "the recall tool's own output is never stubbed"
    assert items[2]["output"] == BIG, "the SDK's own history is left as it was"
    assert gate.decided == 1


def test_text_part_outputs_keep_their_form_and_cached_input_is_billed_as_cache_reads():
    session = session_on(Gate())
    parts = [{"type": "input_text", "text": BIG}]
    out = offload_input_filter(session)(call_model_data([{"type": "function_call_output", "call_id": "c", "output": parts}]))
    assert out.input[0]["output"][0]["type"] == "input_text" and out.input[0]["output"][0]["text"].startswith("[offloaded:")
    responses = [NS(usage=NS(input_tokens=1_200, output_tokens=40, input_tokens_details=NS(cached_tokens=0))), NS(usage=NS(input_tokens=43_000, output_tokens=60, input_tokens_details=NS(cached_tokens=41_000)))]
    observe_run(session, NS(raw_responses=responses))
    summary = session.end()
    assert (summary.turns, summary.usage) == (2, {"input_tokens": 3_200, "output_tokens": 100, "cache_read_input_tokens": 41_000, "cache_creation_input_tokens": 0})
    assert usage_of_response(NS(usage=NS(input_tokens=5, output_tokens=1, input_tokens_details=None)))["input_tokens"] == 5


def test_the_run_hooks_count_each_model_call_as_it_ends_so_a_decision_counts_the_calls_before_it_and_the_run_ends_the_session():
    # The SDK's own loop, in its order: the filter before each call, on_llm_end after it, on_agent_end last.
    gate = Gate()
    session = session_on(gate)
    filter_, hooks = offload_input_filter(session), offload_run_hooks(session)
    response = lambda i, c: NS(usage=NS(input_tokens=i + c, output_tokens=40, input_tokens_details=NS(cached_tokens=c)))
    call = {"type": "function_call", "call_id": "call_1", "name": "web_fetch", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "call_1", "output": BIG}
    histories = [[{"role": "user", "content": "go"}], [{"role": "user", "content": "go"}, call, output]]
    histories.append(histories[1] + [{"role": "assistant", "content": "noted"}])
    for n, (items, usage) in enumerate(zip(histories, [response(1_200, 0), response(300, 1_000), response(200, 1_300)])):
        filter_(call_model_data(items))
        asyncio.run(hooks.on_llm_end(None, None, usage))
        asyncio.run(hooks.on_llm_end(None, None, usage))  # the same response twice is one call
    observe_run(session, NS(raw_responses=[response(9, 9)] * 3))  # the hooks keep these books: nothing more
    asyncio.run(hooks.on_agent_end(None, None, "done"))
    assert session.ended
    summary = session.end()
    assert (summary.turns, summary.usage) == (3, {"input_tokens": 1_700, "output_tokens": 120, "cache_read_input_tokens": 2_300, "cache_creation_input_tokens": 0})
    [outcome] = gate.sent("/v1/outcomes")[0].body["items"]
    # Decided before the second call: the one call before it is not after it; the two after it are.
    assert outcome["turns_after"] == 2 and outcome["cached_turns"] == 2
