#!/usr/bin/env node
/**
 * offload-gate's recall as a stdio MCP server (`@modelcontextprotocol/sdk`),
 * for any MCP-capable agent: it serves `recall` over a session's store of
 * originals, so an agent outside this package's adapters can get an original
 * back. The session that stubbed the outputs and this server share the store
 * (a directory: `directoryRecallStore`); a recall through it reads the
 * original but, being another process, cannot mark the session's decision
 * recalled (report that outcome yourself, or recall through the session).
 *
 * @example
 * // The agent's MCP config: { "command": "npx", "args": ["-y", "--package", "offload-gate-client", "--package", "@modelcontextprotocol/sdk", "--package", "zod", "offload-gate-recall", "--dir", "/var/offload/conv-42"] }
 * // The session that stubs: new OffloadSession({ gate, model, store: directoryRecallStore("/var/offload/conv-42") })
 */
import { Transform } from "node:stream";
import { isAbsolute } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { directoryRecallStore } from "./recall-dir.js";
import { recallPage } from "./recall-page.js";
import type { RecallStore } from "./recall-store.js";
import { RECALL_TOOL_NAME } from "./session.js";
import { isProgram } from "./is-program.js";

export { directoryRecallStore } from "./recall-dir.js";

/**
 * The MCP server: one tool, `recall` (or `toolName`), `{ id, offset? }` in, a
 * page of the original out, an error result for an unknown id.
 *
 * @example
 * const server = recallMcpServer(directoryRecallStore(dir));
 * await server.connect(new StdioServerTransport());
 */
export function recallMcpServer(
  store: RecallStore,
  options: { toolName?: string; pageChars?: number } = {},
): McpServer {
  const server = new McpServer({ name: "offload-gate-recall", version: "0.1.0" });
  server.registerTool(
    options.toolName ?? RECALL_TOOL_NAME,
    {
      description:
        "Read back in full a tool output that was offloaded from the context: pass the id its placeholder names. Long outputs come in pages: pass the offset the last page names.",
      inputSchema: {
        id: z.string().describe("the tool call id named in the placeholder"),
        offset: z.number().int().nonnegative().optional().describe("where to go on from, in characters"),
      },
      // Claude Code defers MCP tools behind tool search; the stubs name this one, so it is always loaded.
      _meta: { "anthropic/alwaysLoad": true },
    },
    async ({ id, offset }) => {
      const text = await Promise.resolve(store.get(id)).catch(() => undefined);
      if (text === undefined)
        return { isError: true, content: [{ type: "text", text: `no offloaded output has id ${JSON.stringify(id)}` }] };
      return { content: [{ type: "text", text: recallPage(text, offset, options.pageChars) }] };
    },
  );
  return server;
}

/** The longest request line the recall server reads: a recall is an id and an offset. */
export const MAX_REQUEST_LINE_BYTES = 1024 * 1024;

/**
 * The server's stdio transport, reading stdin line by line and dropping (unanswered) any line over
 * `MAX_REQUEST_LINE_BYTES`: the SDK's transport closes the server on a line over 10 MB, and a recall
 * never needs one.
 *
 * @example
 * await recallMcpServer(store).connect(recallStdioTransport());
 */
export function recallStdioTransport(stdin: NodeJS.ReadableStream = process.stdin): StdioServerTransport {
  let kept: Buffer[] = [];
  let size = 0;
  let dropping = false;
  const lines = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (let start = 0; start < chunk.length; ) {
        const newline = chunk.indexOf(10, start);
        const end = newline < 0 ? chunk.length : newline + 1;
        size += end - start;
        if (size > MAX_REQUEST_LINE_BYTES) (dropping = true), (kept = []);
        else if (!dropping) kept.push(chunk.subarray(start, end));
        if (newline >= 0) {
          if (!dropping) this.push(Buffer.concat(kept));
          kept = [];
          size = 0;
          dropping = false;
        }
        start = end;
      }
      done();
    },
  });
  stdin.pipe(lines);
  return new StdioServerTransport(lines, process.stdout);
}

/**
 * Runs the server on stdio over the directory `--dir` names (else
 * `OFFLOAD_GATE_RECALL_DIR`); `--tool` renames the tool.
 *
 * @example
 * await serveStdio(["--dir", "/tmp/offload/conv-42"]);
 */
export async function serveStdio(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const arg = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const dir = arg("--dir") ?? process.env.OFFLOAD_GATE_RECALL_DIR;
  if (!dir)
    throw new Error("offload-gate-recall: pass --dir DIR (or set OFFLOAD_GATE_RECALL_DIR): the session's recall store");
  // A relative directory is the server's own working directory's, not the session's that writes it.
  if (!isAbsolute(dir))
    throw new Error(`offload-gate-recall: --dir must be an absolute path (got ${JSON.stringify(dir)})`);
  await recallMcpServer(directoryRecallStore(dir), { toolName: arg("--tool") }).connect(recallStdioTransport());
}

// Run as a program (the package's bin): serve until stdin closes.
if (isProgram(import.meta.url)) {
  serveStdio().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
