/**
 * A recall store in a directory: what a session and a recall server in
 * another process share. No MCP or framework import, so the hook commands
 * load it alone.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RecallStore } from "./recall-store.js";

/**
 * A recall store in a directory, one file per id (the id hex-encoded, so any
 * id is a safe file name): what a session and a recall server in another
 * process share.
 *
 * @example
 * const store = directoryRecallStore("/tmp/offload/conv-42");
 * await store.set("toolu_01", text); await store.get("toolu_01"); // text
 */
export function directoryRecallStore(dir: string): RecallStore {
  const file = (id: string) => join(dir, `${Buffer.from(id, "utf8").toString("hex")}.txt`);
  return {
    get: (id) => readFile(file(id), "utf8").catch(() => undefined),
    async set(id, text) {
      await mkdir(dir, { recursive: true });
      await writeFile(file(id), text, "utf8");
    },
  };
}
