// The single-decision gate load both ledger runs put on one shard (bench/ledger.mjs, bench/ledger-queue.mjs).
import autocannon from "autocannon";

/**
 * `seconds` of single-decision POST /v1/gate requests on 16 connections, to 127.0.0.1 only.
 *
 * @example
 * const result = await loadGate(worker.base, 10);
 */
export function loadGate(base, seconds) {
  if (!base.startsWith("http://127.0.0.1:")) throw new Error(`refusing to load ${base}: loopback only`);
  return autocannon({
    url: `${base}/v1/gate`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model_name: "claude-opus-4-6", output_tokens: 20_000 }),
    connections: 16,
    duration: seconds,
  });
}
