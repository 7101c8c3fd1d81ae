/**
 * The text an offload session puts in the history instead of an output, and
 * the tool name it sends the gate. Pure.
 */
import { STUB_TEMPLATE } from "./constants.js";

export interface StubInfo {
  id: string;
  toolName: string;
  chars: number;
  recallToolName: string;
}

/**
 * The default stub: short, and says how to get the output back.
 *
 * @example
 * defaultStub({ id: "call_1", toolName: "web_fetch", chars: 160_000, recallToolName: "recall_tool_output" })
 * // '[offloaded: the output of web_fetch call call_1 (160,000 chars) is not shown; call recall_tool_output with {"id":"call_1"} to read it]'
 */
export function defaultStub({ id, toolName, chars, recallToolName }: StubInfo): string {
  const values: Record<string, string> = {
    tool_name: toolName,
    id,
    chars: chars.toLocaleString("en-US"),
    recall_tool_name: recallToolName,
    id_json: JSON.stringify({ id }),
  };
  // One pass over the template: a value that looks like a placeholder stays as it is.
  return STUB_TEMPLATE.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * A framework's tool name as the gate takes it: `[A-Za-z0-9._:/-]{1,64}`.
 *
 * @example
 * toolNameForGate("web fetch") // "web_fetch"
 */
export function toolNameForGate(name: string): string {
  return name.replace(/[^A-Za-z0-9._:/-]/g, "_").slice(0, 64) || "tool";
}
