// The recall command (`offload-gate-hook recall`) as an agent's MCP client
// would use it: started over stdio on a store, every page of one id read.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** The whole original behind `id`, read page by page (at most 20) from the recall command over `dir`. */
export async function recallAll(hookPath, dir, id) {
  const client = new Client({ name: "recall-test", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [hookPath, "recall"],
      env: { ...process.env, OFFLOAD_GATE_RECALL_DIR: dir },
    }),
  );
  try {
    let text = "";
    let offset = 0;
    for (let i = 0; i < 20; i += 1) {
      const result = await client.callTool({ name: "recall_tool_output", arguments: { id, offset } });
      const page = result.content[0].text;
      if (result.isError) throw new Error(page);
      text += page.replace(/\n\[recall: [^\]]*\]$/, "");
      const next = /; \d+ left: call again with offset (\d+)\]$/.exec(page);
      if (!next) return text;
      offset = Number(next[1]);
    }
    throw new Error("more than 20 pages");
  } finally {
    await client.close();
  }
}
