/**
 * @module replay/recalls
 *
 * When the transcript shows a tool output was needed again later, by one of
 * four rules (docs/replay.md § Recalls):
 * - `same_file`: a later tool call names a file the output's call named;
 * - `same_command`: a later tool call runs the same command (same arguments);
 * - `quoted_line`: a later answer contains a line (24+ characters) that, before
 *   it, appeared only in that output;
 * - `quoted_identifier`: the same for an identifier (8+ characters with a
 *   digit, an underscore or an inner capital).
 * Each detection is the call whose answer showed the need. What this cannot
 * see: a need the model met some other way, or an output it used without
 * quoting it. Pure.
 */
import type { Part, Trace } from "./formats";

/** Which rule found a recall. */
export type RecallRule = "same_file" | "same_command" | "quoted_line" | "quoted_identifier";

/** One detection: the call whose answer needed the output, and the rule. */
export interface Detection {
  call: number;
  rule: RecallRule;
}

// Bounds that keep a huge output from costing more than it can tell.
const MAX_TOKENS_PER_PART = 4_000;
const MAX_DETECTIONS = 32;
const FILE_KEYS = ["file_path", "path", "notebook_path", "filename", "file"];
const IDENTIFIER = /[A-Za-z_$][\w$]{7,}/g;
const FILE_IN_TEXT =
  /(?:^|[\s'"=:(])((?:~|\.{1,2})?\/?[\w.-]+(?:\/[\w.-]+)*\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s'":,;)\]])/g;

/** The files and the command a tool call names. */
interface Target {
  files: string[];
  command: string;
}

/**
 * The files and command of a tool call's arguments (JSON, or a plain command).
 *
 * @example
 * targetOf('{"file_path":"/src/app.ts"}') // { files: ["/src/app.ts"], command: '{"file_path":"/src/app.ts"}' }
 * targetOf("sed -n 1,40p src/app.py") // { files: ["src/app.py"], command: "sed -n 1,40p src/app.py" }
 */
export function targetOf(args: string): Target {
  const files = new Set<string>();
  let text = args;
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      for (const key of FILE_KEYS) if (typeof record[key] === "string") files.add(record[key] as string);
      const command = record.command ?? record.cmd;
      text = Array.isArray(command) ? command.join(" ") : typeof command === "string" ? command : "";
    }
  } catch {
    // A plain command line.
  }
  for (const match of text.matchAll(FILE_IN_TEXT)) files.add(match[1]!);
  return { files: [...files], command: args.trim().replace(/\s+/g, " ") };
}

function linesOf(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n", MAX_TOKENS_PER_PART)) {
    const line = raw.trim();
    if (line.length >= 24 && /[A-Za-z0-9]/.test(line)) out.push(line);
  }
  return out;
}

function identifiersOf(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(IDENTIFIER)) {
    const word = match[0];
    if (/[0-9_]/.test(word) || /[a-z][A-Z]/.test(word)) out.push(word);
    if (out.length >= MAX_TOKENS_PER_PART) break;
  }
  return out;
}

/**
 * Every detection of every tool output (part id → detections, by call), and
 * the call each part first entered an input at.
 *
 * @example
 * detectRecalls(trace).byPart.get(outputId) // [{ call: 7, rule: "same_file" }]
 */
export function detectRecalls(trace: Trace): { byPart: Map<number, Detection[]>; firstCall: Int32Array } {
  const { parts, calls } = trace;
  const firstCall = new Int32Array(parts.length).fill(calls.length);
  calls.forEach((call, i) => {
    for (const id of call.added) if (firstCall[id]! > i) firstCall[id] = i;
  });
  // A model output is the answer of the call before the first that carries it.
  const answerOf = (id: number) => Math.max(0, Math.min(calls.length, firstCall[id]!) - 1);
  const byPart = new Map<number, Detection[]>();
  const note = (output: number, call: number, rule: RecallRule) => {
    if (call < firstCall[output]!) return;
    const list = byPart.get(output) ?? [];
    if (list.length >= MAX_DETECTIONS || list.some((d) => d.call === call)) return;
    list.push({ call, rule });
    byPart.set(output, list);
  };
  // Notes a call against every output that named the same target, and drops the outputs whose
  // detections are full: a file read a thousand times costs each later read no walk of them all.
  const noteAll = (outputs: number[] | undefined, call: number, rule: RecallRule) => {
    if (outputs === undefined) return;
    let kept = 0;
    for (const output of outputs) {
      note(output, call, rule);
      if ((byPart.get(output)?.length ?? 0) < MAX_DETECTIONS) outputs[kept++] = output;
    }
    outputs.length = kept;
  };
  const callOf = new Map<string, number>();
  parts.forEach((p, id) => {
    if (p.kind === "tool_call" && p.call_id !== null) callOf.set(p.call_id, id);
  });

  // Rules 1 and 2: the targets of each output's call, then every later call that names them again.
  const byFile = new Map<string, number[]>();
  const byCommand = new Map<string, number[]>();
  const targets = new Map<number, Target>();
  const targetOfPart = (id: number) => {
    let t = targets.get(id);
    if (t === undefined) targets.set(id, (t = targetOf(parts[id]!.text ?? "")));
    return t;
  };
  const order = byFirstCall(firstCall, calls.length);
  for (const id of order) {
    const p = parts[id]!;
    if (p.kind === "tool_call" && p.text !== null) {
      const t = targetOfPart(id);
      const call = answerOf(id);
      for (const file of t.files) noteAll(byFile.get(file), call, "same_file");
      if (t.command !== "") noteAll(byCommand.get(t.command), call, "same_command");
    } else if (p.kind === "tool_output" && p.call_id !== null) {
      const callPart = callOf.get(p.call_id);
      if (callPart === undefined || parts[callPart]!.text === null) continue;
      const t = targetOfPart(callPart);
      for (const file of t.files) byFile.get(file)?.push(id) ?? byFile.set(file, [id]);
      if (t.command !== "") byCommand.get(t.command)?.push(id) ?? byCommand.set(t.command, [id]);
    }
  }

  // Rules 3 and 4: what appeared first, and only, in one tool output; then the answers that quote it.
  // Lines and identifiers keep owners apart, keyed by the text itself: no key is built per match.
  // A key seen twice in one part leaves its owner as the first sight set it, so no per-part set is needed.
  const lineOwner = new Map<string, number>();
  const wordOwner = new Map<string, number>();
  const isModel = (p: Part) => p.kind === "assistant" || p.kind === "tool_call";
  const own = (owner: Map<string, number>, key: string, id: number, p: Part) => {
    const seen = owner.get(key);
    if (seen === undefined) owner.set(key, p.kind === "tool_output" ? id : -1);
    else if (seen !== id && seen !== -1 && !isModel(p)) owner.set(key, -1);
  };
  for (const id of order) {
    const p = parts[id]!;
    if (p.text === null) continue;
    for (const line of linesOf(p.text)) own(lineOwner, line, id, p);
    for (const word of identifiersOf(p.text)) own(wordOwner, word, id, p);
  }
  for (const id of order) {
    const p = parts[id]!;
    if (!isModel(p) || p.text === null) continue;
    const call = answerOf(id);
    for (const line of linesOf(p.text)) {
      const output = lineOwner.get(line);
      if (output !== undefined && output >= 0 && firstCall[output]! <= call) note(output, call, "quoted_line");
    }
    for (const word of identifiersOf(p.text)) {
      const output = wordOwner.get(word);
      if (output !== undefined && output >= 0 && firstCall[output]! <= call) note(output, call, "quoted_identifier");
    }
  }
  for (const list of byPart.values()) list.sort((a, b) => a.call - b.call);
  return { byPart, firstCall };
}

/**
 * Part ids ordered by the call each first entered an input at, then by id: a
 * counting sort, linear in parts.
 */
function byFirstCall(firstCall: Int32Array, calls: number): Int32Array {
  const starts = new Int32Array(calls + 2);
  for (const c of firstCall) starts[c + 1]!++;
  for (let c = 1; c < starts.length; c++) starts[c]! += starts[c - 1]!;
  const order = new Int32Array(firstCall.length);
  firstCall.forEach((c, id) => {
    order[starts[c]!++] = id;
  });
  return order;
}

/** The rules that show a re-read or re-run: the transcript already pays for it under every policy. */
export const REFETCH_RULES: readonly RecallRule[] = ["same_file", "same_command"];

/**
 * The recall a policy adds by stubbing an output at `call`: the first quote of
 * it (a line or identifier only that output held) at or after the call, with
 * no re-read or re-run of it between. A re-read is already in the recorded
 * bill (the agent fetched it again in reality), so it charges nothing; after
 * one, the quote may have come from the fresh copy. null: no recall to charge.
 *
 * @example
 * chargedRecall([{ call: 9, rule: "quoted_line" }], 5) // { call: 9, rule: "quoted_line" }
 * chargedRecall([{ call: 6, rule: "same_file" }, { call: 9, rule: "quoted_line" }], 5) // null
 */
export function chargedRecall(detections: readonly Detection[] | undefined, call: number): Detection | null {
  for (const d of detections ?? []) {
    if (d.call < call) continue;
    if (REFETCH_RULES.includes(d.rule)) return null;
    return d;
  }
  return null;
}

/**
 * The first detection at or after a call, or null.
 *
 * @example
 * recallAfter([{ call: 3, rule: "same_file" }, { call: 9, rule: "quoted_line" }], 5) // { call: 9, rule: "quoted_line" }
 */
export function recallAfter(detections: readonly Detection[] | undefined, call: number): Detection | null {
  for (const d of detections ?? []) if (d.call >= call) return d;
  return null;
}
