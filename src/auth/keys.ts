/**
 * Named bearer tokens from a secret (`ADMIN_TOKEN`, `GATE_API_KEYS`), both in
 * one format: `name:token[,name:token...]`.
 *
 * - The part before the first `:` is the name (`[A-Za-z0-9._-]{1,64}`); an
 *   entry without `:` is named after the secret's default (`admin`, `default`).
 * - A token is at least 16 characters and shows at least 48 bits of
 *   entropy; shorter, predictable or duplicate tokens and bad names are
 *   refused and logged (without the token), never half-accepted.
 * - One name may hold several tokens: that is how a token is rotated.
 *
 * A secret's text is parsed and hashed once per isolate (cached by its
 * value), not per request. Presented tokens are compared in constant time.
 * The bearer is the token, the part after `name:`; the whole entry
 * (`name:token`, as the secret holds it) is accepted too, since that is
 * what an operator who copies the secret sends.
 */

/** Shortest token accepted: shorter ones are refused, so a guessable secret cannot open a route. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Least entropy a token must show, in bits, as estimated from its own
 * character frequencies: sixteen copies of one character show 0, a
 * repeated word little more, 16 random hex digits about 53.
 */
export const MIN_TOKEN_BITS = 48;

const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The token's length times the Shannon entropy of its characters: a cheap
 * upper bound on its real entropy, enough to refuse the obviously weak.
 *
 * @example
 * estimatedBits("a".repeat(16)) // 0
 * estimatedBits("0123456789abcdef") // 64
 */
export function estimatedBits(token: string): number {
  const counts = new Map<string, number>();
  for (const char of token) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) bits -= count * Math.log2(count / token.length);
  return bits;
}

/** The tokens of one secret, hashed, with what was wrong with its text. */
export interface KeyRing {
  /** Parallel to `digests`: the name each token carries. */
  readonly names: readonly string[];
  readonly digests: readonly ArrayBuffer[];
  /** Parallel to `digests`: each whole entry, `name:token`. */
  readonly entryDigests: readonly ArrayBuffer[];
  /** One line per refused entry; never contains a token. */
  readonly problems: readonly string[];
}

// Secret name → secret text → ring. Keyed by the text itself, so a rotated
// secret (a new deploy, a test's env) gets a new ring, and a request does
// no parsing, no hashing of stored tokens, and no string building.
const rings = new Map<string, Map<string, Promise<KeyRing>>>();
const encoder = new TextEncoder();

/**
 * The key ring for a secret's text, parsed and hashed once per isolate.
 * Problems are logged once, when the text is first seen.
 *
 * @example
 * const ring = await keyRing("agents-prod:0123456789abcdef0123", "default", "GATE_API_KEYS");
 * await matchToken(ring, "0123456789abcdef0123") // "agents-prod"
 */
export function keyRing(text: string, unnamed: string, secretName: string): Promise<KeyRing> {
  let bySecret = rings.get(secretName);
  if (bySecret === undefined) rings.set(secretName, (bySecret = new Map()));
  let ring = bySecret.get(text);
  if (ring === undefined) {
    // Keep only the few most recent values of a secret.
    if (bySecret.size >= 8) bySecret.delete(bySecret.keys().next().value as string);
    ring = buildRing(text, unnamed, secretName);
    bySecret.set(text, ring);
  }
  return ring;
}

async function buildRing(text: string, unnamed: string, secretName: string): Promise<KeyRing> {
  const names: string[] = [];
  const tokens: string[] = [];
  const problems: string[] = [];
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(":");
    const name = colon < 0 ? unnamed : entry.slice(0, colon).trim();
    const token = colon < 0 ? entry : entry.slice(colon + 1).trim();
    const where = `${secretName} entry ${index + 1}`;
    if (!NAME_PATTERN.test(name)) problems.push(`${where}: the name must match [A-Za-z0-9._-]{1,64}`);
    else if (token.length < MIN_TOKEN_LENGTH)
      problems.push(`${where} (${name}): the token is shorter than ${MIN_TOKEN_LENGTH} characters`);
    else if (estimatedBits(token) < MIN_TOKEN_BITS) {
      problems.push(
        `${where} (${name}): the token is too predictable (about ${Math.floor(estimatedBits(token))} bits; at least ${MIN_TOKEN_BITS} needed)`,
      );
    } else if (tokens.includes(token)) problems.push(`${where} (${name}): the token repeats an earlier entry's`);
    else {
      names.push(name);
      tokens.push(token);
    }
  });
  for (const problem of problems) console.warn(`offload-gate: ${problem}; entry refused`);
  const [digests, entryDigests] = await Promise.all([
    Promise.all(tokens.map(digest)),
    Promise.all(tokens.map((token, index) => digest(`${names[index]}:${token}`))),
  ]);
  return { names, digests, entryDigests, problems };
}

/**
 * The name of the token that matches `presented` (the token, or its whole
 * `name:token` entry), or null. Every token and entry is compared, in
 * constant time, whatever matches first: the answer's timing says nothing
 * about which token came close.
 *
 * @example
 * await matchToken(ring, bearer) ?? unauthorized()
 */
export async function matchToken(ring: KeyRing, presented: string): Promise<string | null> {
  // Hashing first makes every comparison the same length, so
  // timingSafeEqual applies whatever the presented length is.
  const presentedDigest = await digest(presented);
  let match: string | null = null;
  ring.digests.forEach((stored, index) => {
    const token = crypto.subtle.timingSafeEqual(stored, presentedDigest);
    const entry = crypto.subtle.timingSafeEqual(ring.entryDigests[index]!, presentedDigest);
    if ((token || entry) && match === null) match = ring.names[index] ?? null;
  });
  return match;
}

/**
 * The token of an `Authorization: Bearer <token>` header, or null when the
 * header is missing or of another scheme.
 *
 * @example
 * bearerToken("Bearer abc") // "abc"
 */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Whether a secret is set to something other than blanks. */
export function isSet(secret: string | undefined): secret is string {
  return secret !== undefined && secret.trim() !== "";
}

function digest(token: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", encoder.encode(token));
}
