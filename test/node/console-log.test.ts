import { describe, expect, it } from "vitest";
import config from "../../vitest.config";
import injectedFault from "../fixtures/injected-fault.json";

const onConsoleLog = config.test?.onConsoleLog as (log: string, type: "stdout" | "stderr") => boolean | void;

describe("npm test's console output", () => {
  it("drops the stack traces of faults a test injects, and the open-gate notice", () => {
    expect(
      onConsoleLog(`offload-gate: unhandled error Error: ${injectedFault.message}\n    at KvNamespace.put`, "stderr"),
    ).toBe(false);
    expect(onConsoleLog("offload-gate: GATE_API_KEYS is unset: the gate is open", "stderr")).toBe(false);
  });

  it("keeps every other log, an unexpected error's stack above all", () => {
    expect(onConsoleLog("offload-gate: unhandled error Error: KV is down\n    at KvNamespace.put", "stderr")).toBe(
      true,
    );
    expect(onConsoleLog("offload-gate price sync: 3 change(s)", "stdout")).toBe(true);
  });
});
