/**
 * Reading a request body with a time limit. A client that declares a
 * `Content-Length` and then sends less (or a chunked body that never ends)
 * would otherwise hold the request open for as long as the runtime lets it:
 * nothing on the server side bounds the wait. Every route that reads a body
 * reads it through here (the middleware of ./guards.ts for the Hono app,
 * the gate's direct path for its two hot routes), so one deadline covers
 * them all; past it the answer is 408 `request_timeout` naming `body`.
 *
 * @module
 */
import { ApiError } from "./errors";

/**
 * How long a body may take to arrive, in ms. Our largest body (96 KiB)
 * arrives in well under a second on any link a client of the gate uses; five
 * seconds leaves room for a slow one and still frees the request long before
 * the runtime's own limits would.
 */
export const BODY_READ_TIMEOUT_MS = 5_000;

/**
 * The deadline in force: BODY_READ_TIMEOUT_MS, which only tests change (to a
 * few ms, so a body that never ends fails fast). An object, not a `let`, so
 * a test importing this module changes what the worker's module sees.
 */
export const bodyDeadline = { ms: BODY_READ_TIMEOUT_MS };

/**
 * The 408 of a body that did not arrive within the deadline.
 *
 * @example
 * throw bodyTimeout(5_000);
 */
export function bodyTimeout(ms: number): ApiError {
  return new ApiError("request_timeout", `the request body did not arrive within ${ms} ms`, [
    { path: "body", message: `must arrive whole within ${ms} ms of the request; send the length you declared` },
  ]);
}

/**
 * Settles as `read` does, or rejects with the 408 once the deadline passes
 * first; `onTimeout` then releases what the read holds (cancels the stream).
 * The timer is cleared as soon as the read settles, so an answer never waits
 * for it: one setTimeout and one clearTimeout a request, about a microsecond.
 *
 * @example
 * const text = await withBodyDeadline(request.text());
 */
export async function withBodyDeadline<T>(
  read: Promise<T>,
  onTimeout?: () => void,
  ms: number = bodyDeadline.ms,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(bodyTimeout(ms));
    }, ms);
  });
  try {
    return await Promise.race([read, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A body's bytes, read within the deadline and at most `maxBytes` of them
 * (`onTooLarge` makes the error thrown past that, as Hono's body limit did).
 * With `declaredBytes`, the request's own framed `Content-Length` (the
 * runtime's HTTP server never hands on more than it), at most `maxBytes`, the
 * runtime gathers the bytes itself: one call instead of a read per chunk,
 * which for a body of megabytes is most of the isolate's time
 * (docs/performance/proxy.md § Where the time goes). `deadlineMs` replaces
 * the gate's deadline for a reader that is off the answer's path (the
 * proxy's copy of an upload of megabytes).
 *
 * @example
 * const bytes = await readBody(request.body, MAX_BODY_BYTES, tooLarge);
 * const copy = await readBody(branch, 32 * 1024 * 1024, tooLarge, { declaredBytes: 5_000_000, deadlineMs: 300_000 });
 */
export async function readBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  onTooLarge: () => Error,
  options: { declaredBytes?: number | null; deadlineMs?: number } = {},
): Promise<Uint8Array> {
  const { declaredBytes = null, deadlineMs = bodyDeadline.ms } = options;
  if (declaredBytes !== null && declaredBytes <= maxBytes) {
    const whole = new Response(body).arrayBuffer();
    const cancel = () => void body.cancel().catch(() => undefined);
    return new Uint8Array(await withBodyDeadline(whole, cancel, deadlineMs));
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const all = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      if (size > maxBytes) throw onTooLarge();
      chunks.push(value);
    }
  })();
  try {
    await withBodyDeadline(
      all,
      () => {
        // Let the stream go: nothing more of it will be read.
        reader.cancel().catch(() => undefined);
      },
      deadlineMs,
    );
  } catch (error) {
    all.catch(() => undefined);
    if (!(error instanceof ApiError && error.code === "request_timeout")) reader.cancel().catch(() => undefined);
    throw error;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
