/**
 * How Claude Code's tools' outputs are read as text and rebuilt around a
 * stub, keeping each tool's output shape (Claude Code drops an
 * `updatedToolOutput` that does not match it). Shared by the Agent SDK's
 * in-process hook and the `offload-gate-hook claude-code` command.
 */
import { basename, dirname, isAbsolute, normalize } from "node:path";
import { readRegularFile } from "./private-fs.js";
import type { OffloadSession } from "./session.js";

type Json = Record<string, unknown>;

/**
 * How each built-in tool's output is read as text and rebuilt around a stub,
 * keeping its shape (the SDK checks it, and the model sees it rendered as the
 * tool renders it). Tools not listed here, other than MCP tools, are left alone.
 */
const BUILT_IN: Record<string, { text(out: Json): string | null; stub(out: Json, stub: string): Json }> = {
  Bash: {
    text: (out) =>
      typeof out.stdout === "string"
        ? out.stdout + (typeof out.stderr === "string" && out.stderr ? `\n${out.stderr}` : "")
        : null,
    // The preview of a persisted output goes: the stub is all the model gets.
    stub: (out, stub) => ({ stdout: stub, stderr: "", interrupted: out.interrupted === true }),
  },
  Grep: {
    text: (out) =>
      typeof out.content === "string" ? out.content : Array.isArray(out.filenames) ? out.filenames.join("\n") : null,
    stub: (out, stub) => ({
      mode: "content",
      numFiles: typeof out.numFiles === "number" ? out.numFiles : 0,
      filenames: [],
      content: stub,
      numLines: 1,
    }),
  },
  WebFetch: {
    text: (out) => (typeof out.result === "string" ? out.result : null),
    stub: (out, stub) => ({ ...out, result: stub }),
  },
  Read: {
    text: (out) => {
      const file = out.file as Json | undefined;
      return out.type === "text" && typeof file?.content === "string" ? file.content : null;
    },
    stub: (out, stub) => ({ ...out, file: { ...(out.file as Json), content: stub, numLines: 1 } }),
  },
};

/** The tools whose output shape the hook keeps (MCP tools, `mcp__*`, too: their content becomes one text block). */
export const SUPPORTED_BUILT_IN_TOOLS = Object.keys(BUILT_IN);

/** The largest output Claude Code saved to a file that the hook reads whole (a larger one is left as it is). */
export const MAX_PERSISTED_BYTES = 256 * 1024 * 1024;

/**
 * Whether a path is one Claude Code gives for an output it saved: absolute, normalised (no `.` or
 * `..`), in a folder named `tool-results`. Only `persistedOutputPath` of the hook input may name a
 * file; an output's own text never does (a tool could imitate Claude Code's note and name any file).
 *
 * @example
 * isToolResultsPath("/home/me/.claude/projects/p/s/tool-results/toolu_01.txt") // true
 */
export function isToolResultsPath(path: string): boolean {
  return isAbsolute(path) && normalize(path) === path && basename(dirname(path)) === "tool-results";
}

/**
 * The tool's output with the stub in it, in the tool's own shape, when the
 * session offloaded it; null to leave it as it is. An output Claude Code saved
 * to a file (a Bash preview with `persistedOutputPath`) is decided on the
 * whole file, which recall returns: only a regular file of this user's in
 * Claude Code's `tool-results` folder, read without following a link; a file
 * it cannot read leaves the output as it is (never its preview stubbed).
 *
 * @example
 * await replaceToolOutput(session, "toolu_01", "Bash", { stdout: big, stderr: "", interrupted: false })
 * // { stdout: "[offloaded: …]", stderr: "", interrupted: false }
 */
export async function replaceToolOutput(
  session: OffloadSession,
  id: string,
  toolName: string,
  response: unknown,
  options: { onError?: (error: unknown) => void } = {},
): Promise<unknown | null> {
  const mcp = toolName.startsWith("mcp__");
  const shape = BUILT_IN[toolName];
  if (!mcp && shape === undefined) return null;
  const out = (typeof response === "object" && response !== null ? response : {}) as Json;
  let text = mcp ? mcpText(response) : shape!.text(out);
  if (text === null) return null;
  // The whole output, not Claude Code's preview of it: what the gate weighs and recall returns.
  const saved = out.persistedOutputPath;
  if (saved !== undefined) {
    try {
      if (typeof saved !== "string" || !isToolResultsPath(saved))
        throw new Error(`persistedOutputPath ${JSON.stringify(saved)} is not a file in Claude Code's tool-results`);
      text = (await readRegularFile(saved, { maxBytes: MAX_PERSISTED_BYTES, ownedByUser: true })).toString("utf8");
    } catch (error) {
      options.onError?.(error);
      return null;
    }
  }
  const answer = await session.offload(id, toolName, text);
  if (session.stubFor(id) === undefined) return null;
  return mcp ? [{ type: "text", text: answer }] : shape!.stub(out, answer);
}

// An MCP tool's result as text: a string, or content blocks that are all text.
function mcpText(response: unknown): string | null {
  if (typeof response === "string") return response;
  const blocks = Array.isArray(response) ? response : (response as Json | null)?.content;
  if (!Array.isArray(blocks) || !blocks.every((b) => b?.type === "text" && typeof b.text === "string")) return null;
  return blocks.map((b) => b.text).join("\n");
}
