"""OffloadSession's bill, plan cadence and session log, on a scripted transport:
1-hour writes split out and priced at the 1-hour rate, usage that cannot be
read named instead of billed as zero, a clearing plan asked at its cadence and
applied in one rewrite, and a session log that the repository's own
``npm run replay`` reads with no issue and prices as billed."""

from __future__ import annotations

import json
import pathlib
import subprocess
from types import SimpleNamespace as NS
from typing import Any, Dict, List

import pytest
from fakes import EXAMPLE_A_ANSWER, FakeTransport, Sent, ok

from offload_gate import GateClient, OffloadSession, default_stub
from offload_gate._session_log import hash_text

ROOT = pathlib.Path(__file__).resolve().parents[3]
CONSTANTS = pathlib.Path(__file__).resolve().parents[2] / "constants.json"
# The Opus row of pricing.seed.json, $ per million tokens.
OPUS = {"input": 5, "output": 25, "cache_read": 0.5, "cache_write": 6.25, "cache_write_1h": 10}


class Gate:
    """Fires on the tools named in ``fire``, plans to stub ``plan``, accepts every report."""

    def __init__(self, fire: tuple = (), plan: tuple = ()) -> None:
        self.fire, self.plan, self.n = fire, list(plan), 0
        self.transport = FakeTransport([self.answer])

    def answer(self, sent: Sent) -> Any:
        self.n += 1
        decision_id = f"dec_0_{self.n:032x}"
        if sent.path == "/v1/gate":
            yes = sent.body["tool_name"] in self.fire
            return ok({**EXAMPLE_A_ANSWER, "fire": yes, "reason_code": "net_positive" if yes else "net_not_positive", "decision_id": decision_id})
        if sent.path == "/v1/plan":
            return ok({"stub": self.plan, "reason_code": "plan_positive", "net_saving_usd": 0.1, "decision_id": decision_id})
        k = len(sent.body["items"])
        return ok({"results": [{"status": "accepted", "repeated": False}] * k, "accepted": k, "unknown_decision": 0, "conflict": 0, "invalid": 0})

    def client(self) -> GateClient:
        return GateClient("http://gate.test", transport=self.transport)

    def sent(self, path: str) -> List[Dict[str, Any]]:
        return [s.body for s in self.transport.sent if s.path == path]


def u(input_tokens: int, read: int, write_5m: int, write_1h: int, output: int = 40) -> Dict[str, Any]:
    return {
        "input_tokens": input_tokens, "output_tokens": output, "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write_5m + write_1h,
        "cache_creation": {"ephemeral_5m_input_tokens": write_5m, "ephemeral_1h_input_tokens": write_1h},
    }


def test_one_hour_writes_are_split_out_of_the_bill_like_the_typescript_session() -> None:
    gate = Gate()
    session = OffloadSession(gate.client(), "claude-opus-4-6", session_id="bill-1")
    session.observe(u(1_000, 0, 9_000, 3_000))
    # The Anthropic SDK's own objects: attributes, a nested CacheCreation.
    session.observe(NS(input_tokens=200, output_tokens=60, cache_read_input_tokens=12_000, cache_creation_input_tokens=500, cache_creation=NS(ephemeral_5m_input_tokens=500, ephemeral_1h_input_tokens=0)))
    session.end()
    assert gate.sent("/v1/sessions")[0]["items"][0]["usage"] == {
        "input_tokens": 1_200, "output_tokens": 100, "cache_read_input_tokens": 12_000, "cache_creation_input_tokens": 12_500,
        "cache_creation": {"ephemeral_5m_input_tokens": 9_500, "ephemeral_1h_input_tokens": 3_000},
    }


def test_without_one_hour_writes_the_bill_is_the_report_it_always_was() -> None:
    gate = Gate()
    session = OffloadSession(gate.client(), "claude-opus-4-6")
    session.observe({"input_tokens": 10, "output_tokens": 2, "cache_creation_input_tokens": 30})
    session.end()
    assert gate.sent("/v1/sessions")[0]["items"][0]["usage"] == {"input_tokens": 10, "output_tokens": 2, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 30}


def test_usage_counts_that_cannot_be_read_are_named_and_no_bill_is_sent_on_a_silent_zero() -> None:
    gate = Gate()
    session = OffloadSession(gate.client(), "claude-opus-4-6")
    session.observe({"input_tokens": "12", "output_tokens": 3})
    session.observe(None)
    session.observe({"output_tokens": 1})
    session.observe({**u(10, 0, 5, 0), "cache_creation": {"ephemeral_1h_input_tokens": 6}})
    session.observe({"output_tokens": True}, turn=False)
    summary = session.end()
    assert summary.usage_issues == [
        "call 1: usage.input_tokens is '12', not a count of tokens",
        "call 2: usage is missing",
        "call 3: usage.input_tokens is missing",
        "call 4: usage.cache_creation.ephemeral_1h_input_tokens exceeds usage.cache_creation_input_tokens",
        "call 4: usage.output_tokens is True, not a count of tokens",
    ]
    assert summary.turns == 4 and summary.session is None and gate.sent("/v1/sessions") == []


def test_a_plan_is_asked_at_its_cadence_and_all_its_stubs_go_in_at_once() -> None:
    gate = Gate(plan=("c1", "c2"))
    session = OffloadSession(gate.client(), "claude-opus-4-6", plan_every=3)
    outputs = {"c1": "a" * 20_000, "c2": "b" * 30_000, "c3": "c" * 10_000}
    for call_id, text in outputs.items():
        assert session.offload(call_id, "read", text) == text  # the gate keeps each on entry
    segments = [{"tokens": 4_000}] + [{"id": i, "tokens": session.tokens_for(t)} for i, t in outputs.items()]
    # What a plan could stub: every output held in full (c3's tokens are the ones the plan will decline).
    stubbable = sum(session.tokens_for(text) for text in outputs.values())
    session.observe(u(4_000, 0, 0, 0))
    assert not session.plan_due(stubbable), "one call: not yet K = 3, and no plan has paid"
    session.observe(u(10, 4_000, 21_000, 0))
    session.observe(u(10, 25_000, 100, 0))
    assert session.plan_due(stubbable)
    assert session.plan(segments) == ["c1", "c2"]
    assert [session.stub_for(i) for i in outputs] == [default_stub("c1", "read", 20_000, "recall_tool_output"), default_stub("c2", "read", 30_000, "recall_tool_output"), None]
    assert gate.sent("/v1/plan")[0]["segments"][1:] == [{"id": i, "tokens": s["tokens"]} for i, s in zip(outputs, segments[1:])]
    declined = session.tokens_for(outputs["c3"])
    paying = session.tokens_for("x" * 50_000)
    assert not session.plan_due(declined + paying - 1), "what the plan declined does not count towards the batch"
    assert session.plan_due(declined + paying), "the paying batch (c1 + c2), arrived since, is due at once, before K calls"
    assert session.plan([{"id": "c1", "tokens": 7_000}]) == [], "a stubbed output is no longer a candidate"
    assert len(gate.sent("/v1/plan")) == 1
    assert session.recall("c2") == outputs["c2"]
    session.observe(u(10, 25_000, 100, 0))
    summary = session.end()
    plan_outcome = gate.sent("/v1/outcomes")[0]["items"][-1]
    assert plan_outcome == {"decision_id": f"dec_0_{4:032x}", "turns_after": 1, "recalled": True, "cached_turns": 1, "recalled_ids": ["c2"]}
    assert (summary.decisions, summary.stubbed, summary.recalled) == (4, 2, 1)


def test_the_log_hash_is_replays_own_on_the_vectors_both_clients_share() -> None:
    vectors = json.loads(CONSTANTS.read_text(encoding="utf-8"))["log_hash_vectors"]
    assert len(vectors) >= 4 and all(hash_text(text) == h for text, h in vectors)


def _replay(path: pathlib.Path) -> Dict[str, Any]:
    """``npm run replay -- FILE --json``, the repository's own CLI (needs its node_modules)."""
    tsx = ROOT / "node_modules" / "tsx" / "dist" / "cli.mjs"
    if not tsx.is_file():
        pytest.skip(f"the repository's node_modules are not at {ROOT} (run from the checkout to replay the log)")
    run = subprocess.run(["node", str(tsx), "scripts/replay/cli.ts", str(path), "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_a_loop_writes_a_session_log_that_replay_reads_with_no_issue_and_prices_as_billed(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "session.jsonl"
    session = OffloadSession(Gate(fire=("web_fetch",)).client(), "claude-opus-4-6", session_id="log-py", log=str(path))
    page = "lorem ipsum dolor sit amet " * 2_000
    # A loop as the adapters run it: each call's new outputs are offloaded before the next call is observed.
    session.observe(u(3_000, 0, 0, 0))
    stub = session.offload("c1", "web_fetch", page)
    session.observe(u(10, 0, 18_000, 1_000))
    session.offload("c2", "list_files", "src/a.py\n" * 900)
    session.observe(u(10, 19_000, 4_500, 0))
    session.observe({"output_tokens": 15}, turn=False)
    summary = session.end()
    calls = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(calls) == summary.turns == 3
    assert [[(p["call_id"], p["chars"], p["hash"]) for p in c["input"]] for c in calls][1:] == [
        [("c1", len(stub), hash_text(stub))],
        [("c1", len(stub), hash_text(stub)), ("c2", 8_100, hash_text("src/a.py\n" * 900))],
    ]
    assert calls[1]["usage"] == {"input": 10, "cache_read": 0, "cache_write_5m": 18_000, "cache_write_1h": 1_000, "output": 40}
    assert calls[2]["usage"]["output"] == 55, "the late output count lands on its own call's line"
    report = _replay(path)
    assert report["issues"] == [] and report["skipped"] == []
    row = report["sessions"][0]
    assert (row["format"], row["session"], row["calls"]) == ("offload-log", "log-py", 3)
    # By hand: 3,020 uncached in, 19,000 read, 22,500 5-minute and 1,000 1-hour writes, 135 out, at the Opus row.
    by_hand = (3_020 * OPUS["input"] + 19_000 * OPUS["cache_read"] + 22_500 * OPUS["cache_write"] + 1_000 * OPUS["cache_write_1h"] + 135 * OPUS["output"]) / 1e6
    assert row["check"]["recorded_usd"] == pytest.approx(by_hand, abs=1e-12)
    assert {"keep_everything"} < {p["name"] for p in report["summary"]["policies"]}


def test_a_log_that_cannot_be_written_never_raises_into_the_loop() -> None:
    class Broken:
        def write(self, line: str) -> None:
            raise OSError("disk full")

    session = OffloadSession(Gate().client(), "claude-opus-4-6", log=Broken())
    session.observe(u(100, 0, 0, 0))
    session.observe(u(100, 0, 0, 0))
    assert session.end().turns == 2


def test_the_claude_agent_sdk_adapters_loop_writes_a_log_replay_reads(tmp_path: pathlib.Path) -> None:
    """The SDK's loop at its documented interface: an assistant message per model call (with its
    id and Anthropic usage), the PostToolUse hook per tool result, and the result message."""
    import asyncio

    from offload_gate.claude_agent_sdk import observe, offload_hooks

    path = tmp_path / "sdk.jsonl"
    session = OffloadSession(Gate(fire=("Bash",)).client(), "claude-opus-4-6", session_id="log-sdk", log=path)
    hook = offload_hooks(session)["PostToolUse"][0]["hooks"][0]
    AssistantMessage, ResultMessage = type("AssistantMessage", (), {}), type("ResultMessage", (), {})

    def assistant(mid: str, usage: Dict[str, Any]) -> Any:
        m = AssistantMessage()
        m.message_id, m.parent_tool_use_id, m.usage = mid, None, usage
        return m

    async def loop() -> Dict[str, Any]:
        await observe(session, assistant("msg_1", u(3_000, 0, 0, 0)))
        data = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {}, "tool_use_id": "toolu_1",
                "tool_response": {"stdout": "lorem ipsum dolor sit amet " * 2_000, "stderr": "", "interrupted": False}}
        out = await hook(data, "toolu_1", None)
        await observe(session, assistant("msg_2", u(10, 0, 5_000, 2_000)))
        result = ResultMessage()
        result.usage = {"input_tokens": 3_010, "output_tokens": 80, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 7_000}
        await observe(session, result)
        return out

    out = asyncio.run(loop())
    stub = out["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert session.ended and stub.startswith("[offloaded: the output of Bash call toolu_1")
    calls = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [c["input"] for c in calls] == [[], [{"kind": "tool_output", "tool": "Bash", "call_id": "toolu_1", "chars": len(stub), "hash": hash_text(stub)}]]
    row = _replay(path)["sessions"][0]
    assert (row["format"], row["session"], row["calls"]) == ("offload-log", "log-sdk", 2)
    by_hand = (3_010 * OPUS["input"] + 5_000 * OPUS["cache_write"] + 2_000 * OPUS["cache_write_1h"] + 80 * OPUS["output"]) / 1e6
    assert row["check"]["recorded_usd"] == pytest.approx(by_hand, abs=1e-12)


def test_the_openai_agents_filter_plans_outputs_already_sent_in_full_and_stubs_them_on_one_call() -> None:
    from offload_gate.openai_agents import offload_input_filter

    gate = Gate(plan=("call_1", "call_2"))  # keeps each output on entry; the plan stubs both
    session = OffloadSession(gate.client(), "claude-opus-4-6", plan_every=1)
    data = lambda items: NS(model_data=NS(input=items, instructions=None), agent=None, context=None)  # noqa: E731
    outputs = [{"type": "function_call_output", "call_id": f"call_{i}", "output": f"{i}" * 20_000} for i in (1, 2)]
    items = [{"role": "user", "content": "go"}, *outputs]
    first = offload_input_filter(session)(data(items))
    assert first.input == items and gate.sent("/v1/plan") == [], "decided on entry, kept: nothing to plan yet"
    session.observe(u(10, 0, 14_000, 0))
    second = offload_input_filter(session)(data(items))
    assert [s.get("id") for s in gate.sent("/v1/plan")[0]["segments"]] == [None, "call_1", "call_2"]
    assert [i["output"] for i in second.input[1:]] == [session.stub_for("call_1"), session.stub_for("call_2")]
    assert all(o.startswith("[offloaded: the output of tool call call_") for o in [i["output"] for i in second.input[1:]])
    assert offload_input_filter(session, plan=False)(data(items)).input == second.input, "every later call holds the same stubs"
    assert len(gate.sent("/v1/plan")) == 1


def test_the_bill_carries_the_history_at_the_first_gate_call_times_the_later_cache_misses_as_its_covariate() -> None:
    gate = Gate()
    session = OffloadSession(gate.client(), "claude-opus-4-6", session_id="cov-1")
    session.observe(u(1_000, 0, 9_000, 0))  # no gate call yet: a miss before it does not count
    session.observe({"input_tokens": 50, "output_tokens": 10, "cache_read_input_tokens": 10_000})
    session.offload("c1", "web_fetch", "x" * 50_000)  # the history here: 50 + 10 + 10,000 tokens
    session.observe({"input_tokens": 70, "output_tokens": 5, "cache_read_input_tokens": 10_060})
    session.observe({"input_tokens": 20_000, "output_tokens": 5})  # idle: the cache expired
    session.observe({"input_tokens": 20_100, "output_tokens": 5, "cache_creation_input_tokens": 0})
    session.end()
    assert gate.sent("/v1/sessions")[0]["items"][0]["covariate"] == 10_060 * 2


def test_a_session_that_never_asked_the_gate_sends_no_covariate() -> None:
    gate = Gate()
    session = OffloadSession(gate.client(), "claude-opus-4-6")
    session.observe({"input_tokens": 10, "output_tokens": 2})
    session.observe({"input_tokens": 10, "output_tokens": 2})
    session.end()
    assert "covariate" not in gate.sent("/v1/sessions")[0]["items"][0]


def test_the_plan_cadence_answers_as_replay_and_the_typescript_client_do_on_the_shared_vectors() -> None:
    from offload_gate._plan_cadence import DEFAULT_PLAN_EVERY, PlanCadence

    shared = json.loads(CONSTANTS.read_text(encoding="utf-8"))
    assert DEFAULT_PLAN_EVERY == shared["default_plan_every"]
    assert len(shared["plan_cadence_vectors"]) >= 6
    for vector in shared["plan_cadence_vectors"]:
        cadence = PlanCadence(vector["every"]) if "every" in vector else PlanCadence()
        answers, expected = [], []
        for op, *args in vector["steps"]:
            if op == "call":
                cadence.call()
            elif op == "asked":
                cadence.asked(args[0])
            else:
                answers.append(cadence.due(args[0]))
                expected.append(args[1])
        assert answers == expected, vector["case"]
