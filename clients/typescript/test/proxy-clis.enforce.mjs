// The enforce rows of proxy-clis.live.test.mjs: the mock model's script when
// the proxy stubs (docs/integrating/proxy.md "Observe and enforce"), and the
// checks of what went upstream. The model reads the big file; when the result
// it gets is our stub it calls `recall_tool_output` with the stub's id; with
// the original as the recall's result it runs one more command (so the CLI
// sends one more request, where the stub must be the same bytes and the recall
// exchange put back), then answers with the last line it read, a line only the
// original holds.
import assert from "node:assert/strict";

export const RECALL = "recall_tool_output";
const isStub = (text) => typeof text === "string" && text.startsWith("[offloaded: ");
const stubIdOf = (text) => /\{"id":"([^"]+)"\}/.exec(text)?.[1];
/** The last numbered line of the build log a text holds: the marker only the original carries. */
export const lastLogLine = (text) => [...String(text).matchAll(/(\S+ line \d{5}) of the build log/g)].at(-1)?.[1];

/** A tool result's content as text: a string, or its text blocks joined. */
const textOf = (content) =>
  typeof content === "string" ? content : (content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");

/**
 * One request of the session, in Messages or Responses, as the calls it holds: each call's id, tool
 * name and arguments, and its result's text and raw content (null before the result).
 */
export function callsOf(provider, body) {
  const calls = new Map();
  if (provider === "anthropic") {
    for (const m of body.messages ?? [])
      for (const b of Array.isArray(m.content) ? m.content : []) {
        if (b.type === "tool_use") calls.set(b.id, { name: b.name, input: b.input, text: null, raw: null });
        if (b.type === "tool_result" && calls.has(b.tool_use_id))
          Object.assign(calls.get(b.tool_use_id), { text: textOf(b.content), raw: b.content });
      }
  } else {
    for (const item of Array.isArray(body.input) ? body.input : []) {
      if (item.type === "function_call")
        calls.set(item.call_id, { name: item.name, input: JSON.parse(item.arguments), text: null, raw: null });
      if (item.type === "function_call_output" && calls.has(item.call_id))
        Object.assign(calls.get(item.call_id), { text: textOf(item.output), raw: item.output });
    }
  }
  return calls;
}

/**
 * The model's next step for the session's request `body`: read (`read`), on a stub recall it, with
 * the original run `count`, then answer `answer` with the last line the recall's result held.
 */
export function nextStep(provider, body, answer) {
  const calls = [...callsOf(provider, body).entries()];
  if (calls.length === 0) return { call: "read" };
  const recalled = calls.find(([, c]) => c.name === RECALL && c.text !== null);
  const stubbed = calls.find(([, c]) => c.name !== RECALL && isStub(c.text));
  if (recalled === undefined) {
    if (stubbed === undefined) return { text: "not stubbed" };
    return { call: RECALL, input: { id: stubIdOf(stubbed[1].text) } };
  }
  if (!calls.some(([, c]) => c.name !== RECALL && c.text !== null && c !== stubbed?.[1] && !isStub(c.text)))
    return { call: "count" };
  return { text: `${answer} The last line I read: ${lastLogLine(recalled[1].text)}.` };
}

/**
 * Enforce: the recall tool offered from the first request on; the big output upstream as the stub,
 * the same bytes in every later request; the recall's result the original as the CLI sent it; the
 * recall exchange put back in the CLI's later request; and neither the recall call nor its result
 * ever reached the CLI (not in what it got back, not in anything it wrote under its HOME).
 */
export function expectEnforced({ provider: cli, own, relay, homeText, said, answer }) {
  const names = (body) => (body.tools ?? []).map((t) => t.name);
  assert.equal(names(own[0].body).at(-1), RECALL, "the recall tool is the last tool from the session's first request");
  for (const r of own) assert.equal(names(r.body).filter((n) => n === RECALL).length, 1, "offered once, every request");
  assert.equal(own.length, 4, "read, recall (the proxy's own round), count, answer");
  const [, stubbed, recalled, last] = own.map((r) => callsOf(cli, r.body));
  const [readId, read] = [...stubbed.entries()].find(([, c]) => c.text !== null);
  assert.ok(isStub(read.text), `the read's output went upstream as the stub: ${read.text?.slice(0, 120)}`);
  assert.equal(stubIdOf(read.text), readId, "the stub names the call's id");
  const [recallId, recall] = [...recalled.entries()].find(([, c]) => c.name === RECALL);
  assert.deepEqual(recall.input, { id: readId });
  // What the CLI sent as the read's result, from the relay: the original the recall must hand back.
  const sent = relay.exchanges
    .map((x) => {
      try {
        return callsOf(cli, JSON.parse(x.bytes.toString("utf8"))).get(readId);
      } catch {
        return undefined;
      }
    })
    .find((c) => c?.text != null);
  assert.ok(sent !== undefined && !isStub(sent.text), "the CLI itself sent the original");
  assert.equal(recall.text, sent.text, "the recall's result is the original, byte for byte");
  assert.ok(lastLogLine(sent.text) !== undefined, "the original holds the build log's lines");
  assert.equal(
    said,
    `${answer} The last line I read: ${lastLogLine(sent.text)}.`,
    "the CLI ends with the answer only a model that read the original could give",
  );
  assert.equal(last.get(readId).text, read.text, "the later request carries the same stub, byte for byte");
  assert.deepEqual(last.get(recallId), recall, "the later request has the recall exchange put back as it happened");
  for (const x of relay.exchanges)
    assert.ok(!(x.answer ?? Buffer.alloc(0)).includes(RECALL), `the CLI never got a recall call (${x.path})`);
  assert.ok(!homeText.includes(RECALL), "nothing the CLI wrote (its transcript, its session) names the recall tool");
}
