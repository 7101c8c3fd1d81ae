/**
 * A recall store in a directory: what a session and a recall server in
 * another process share. No MCP or framework import, so the hook commands
 * load it alone. Its files are the user's own (0600 in a 0700 directory),
 * written whole or not at all, and read without following a link
 * (src/private-fs.ts).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { privateDir, readRegularFile, writePrivateFile } from "./private-fs.js";
import type { RecallStore } from "./recall-store.js";

/** The most an original read back may hold (the hook store's default cap). */
const MAX_ORIGINAL_BYTES = 1024 * 1024 * 1024;

/**
 * A safe file name for any id: its UTF-8 hex-encoded, or, past what a file system takes in one
 * name (255 bytes), `h-` and the id's SHA-256, so a very long id is stored like any other.
 *
 * @example
 * safeName("toolu_01") // "746f6f6c755f3031"
 */
export function safeName(id: string): string {
  const hex = Buffer.from(id, "utf8").toString("hex");
  return hex.length <= 200 ? hex : `h-${createHash("sha256").update(id, "utf8").digest("hex")}`;
}

/**
 * A recall store in a directory, one file per id (`safeName(id).txt`): what a session and a
 * recall server in another process share.
 *
 * @example
 * const store = directoryRecallStore("/tmp/offload/conv-42");
 * await store.set("toolu_01", text); await store.get("toolu_01"); // text
 */
export function directoryRecallStore(dir: string): RecallStore {
  const file = (id: string) => join(dir, `${safeName(id)}.txt`);
  return {
    get: (id) =>
      readRegularFile(file(id), { maxBytes: MAX_ORIGINAL_BYTES, ownedByUser: true })
        .then((bytes) => bytes.toString("utf8"))
        .catch(() => undefined),
    async set(id, text) {
      await privateDir(dir, { privateOnly: true, parents: true });
      await writePrivateFile(file(id), text);
    },
  };
}
