/**
 * The file operations the hook commands' store and their reads of the
 * agent's files go through: private to the user (directories 0700, files
 * 0600), never through a symlink (`O_NOFOLLOW`, `lstat`), never opening what
 * is not a regular file (a FIFO would hold a thread of the process for good:
 * `O_NONBLOCK`, then `fstat`), reads bounded in size, and writes that land
 * whole or not at all (a temporary file renamed). docs/integrating/claude-code.md § The store.
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, rename, rm, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW, O_NONBLOCK } = constants;

/** The current user's id, or null where there is none (Windows): ownership is then not checked. */
const uid = (): number | null => (typeof process.getuid === "function" ? process.getuid() : null);

/**
 * A fault of the store's files, with what was refused and why (the hook's debug log shows it).
 *
 * @example
 * throw new PrivateFileError("/tmp/x is a symlink");
 */
export class PrivateFileError extends Error {
  override name = "PrivateFileError";
}

/**
 * The file's bytes, if it is a regular file (not a symlink, FIFO or device) of at most `maxBytes`,
 * owned by the current user when `ownedByUser`.
 *
 * @example
 * const text = (await readRegularFile("/home/me/.claude/projects/p/s.jsonl", { maxBytes: 1 << 20 })).toString("utf8");
 */
export async function readRegularFile(
  path: string,
  options: { maxBytes: number; ownedByUser?: boolean; tailBytes?: number },
): Promise<Buffer> {
  const file = await open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const stat = await file.stat();
    if (!stat.isFile()) throw new PrivateFileError(`${path} is not a regular file`);
    const me = uid();
    if (options.ownedByUser && me !== null && stat.uid !== me)
      throw new PrivateFileError(`${path} is owned by another user (uid ${stat.uid})`);
    const tail = options.tailBytes;
    if (tail === undefined && stat.size > options.maxBytes)
      throw new PrivateFileError(`${path} holds ${stat.size} bytes, over the ${options.maxBytes} read`);
    const length = Math.min(stat.size, tail ?? stat.size);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await file.read(buffer, read, length - read, stat.size - length + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return buffer.subarray(0, read);
  } finally {
    await file.close();
  }
}

/**
 * Makes (or checks) a directory that is the user's own: created 0700; an existing one must be a
 * real directory (not a symlink) owned by the user, with no group or other access when `privateOnly`
 * (else only no group or other write: a store root may sit in a readable folder).
 *
 * @example
 * await privateDir("/home/me/.offload", { privateOnly: false });
 */
export async function privateDir(path: string, options: { privateOnly: boolean; parents?: boolean }): Promise<void> {
  await mkdir(path, { mode: 0o700, recursive: options.parents === true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  const stat = await lstat(path);
  if (stat.isSymbolicLink()) throw new PrivateFileError(`${path} is a symlink`);
  if (!stat.isDirectory()) throw new PrivateFileError(`${path} is not a directory`);
  const me = uid();
  if (me !== null && stat.uid !== me) throw new PrivateFileError(`${path} is owned by another user (uid ${stat.uid})`);
  const open = options.privateOnly ? stat.mode & 0o077 : stat.mode & 0o022;
  if (me !== null && open !== 0)
    throw new PrivateFileError(`${path} is open to others (mode ${(stat.mode & 0o777).toString(8)})`);
}

/**
 * Writes a file whole or not at all, 0600: a temporary file beside it (never following a link),
 * renamed over it. A full disk leaves the old file (or none), never a partial one.
 *
 * @example
 * await writePrivateFile("/home/me/.offload/ab12/746f6f6c.txt", text);
 */
export async function writePrivateFile(path: string, data: string | Buffer): Promise<void> {
  const temporary = join(dirname(path), `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const file = await open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    await file.writeFile(data);
    await file.close();
    await rename(temporary, path);
  } catch (error) {
    await file.close().catch(() => {});
    await unlink(temporary).catch(() => {});
    throw error;
  }
}

/**
 * Appends to a file of the user's own, 0600, never through a link.
 *
 * @example
 * await appendPrivateFile("/home/me/.offload/ab12/decisions.jsonl", '{"id":"t1"}\n');
 */
export async function appendPrivateFile(path: string, data: string): Promise<void> {
  const file = await open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
  try {
    const stat = await file.stat();
    const me = uid();
    if (!stat.isFile() || (me !== null && stat.uid !== me))
      throw new PrivateFileError(`${path} is not a regular file of this user`);
    await file.appendFile(data);
  } finally {
    await file.close();
  }
}

/**
 * Whether a path names a regular file of this user (no link followed).
 *
 * @example
 * await isOwnFile("/home/me/.offload/.offload-gate-store") // true
 */
export async function isOwnFile(path: string): Promise<boolean> {
  const stat = await lstat(path).catch(() => null);
  const me = uid();
  return stat !== null && stat.isFile() && (me === null || stat.uid === me);
}

/** How long a lock may be held before another run takes it as left by a killed process. */
const STALE_LOCK_MS = 30_000;

/**
 * Runs `work` holding the lock file `path` (created exclusively), so parallel hook runs take turns
 * on the store's cap; waits at most `waitMs` for it, and takes a lock older than 30 s as stale.
 *
 * @example
 * await withLock("/home/me/.offload/.lock", 5_000, async () => { … });
 */
export async function withLock<T>(path: string, waitMs: number, work: () => Promise<T>): Promise<T> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      const file = await open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      await file.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const stat = await lstat(path).catch(() => null);
      if (stat !== null && Date.now() - stat.mtimeMs > STALE_LOCK_MS) await rm(path, { force: true });
      else if (Date.now() >= until) throw new PrivateFileError(`the store's lock ${path} is held`);
      else await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 10));
    }
  }
  try {
    return await work();
  } finally {
    await unlink(path).catch(() => {});
  }
}
