/**
 * @module proxy/session-store
 *
 * One Durable Object per observed session (`<tenant>/<session>`, bound as
 * PROXY_SESSIONS): the session's running tally between its requests, and
 * the alarm that reports it to the ledger once the session has gone idle
 * (docs/design/proxy.md §7 says why here and not in the ledger's shards).
 * Its code beyond this class loads on first use, so the entry's startup
 * holds only the class.
 */
import { DurableObject } from "cloudflare:workers";
import { lazily } from "../storage";
import type { SessionState, SessionUpdate } from "./session-state";

// The tally's rules and the ledger's reports load on first use, once per isolate.
const loadState = lazily(() => import("./session-state"));
const loadFlush = lazily(() => import("./flush"));

/** The idle time after which a session is reported: past the 1-hour cache's life, nothing later can read its prefix. */
export const SESSION_IDLE_MS = 65 * 60 * 1000;

/**
 * The idle time this deployment waits: {@link SESSION_IDLE_MS}, or a shorter
 * one from the variable `PROXY_SESSION_IDLE_MS` (milliseconds). Only a local
 * gate sets it (scripts/local-gate.ts, for the real CLIs' end-to-end tests,
 * which cannot wait an hour for a session's report); wrangler.toml declares
 * it nowhere, so no deployment has it. Anything but a whole number of
 * milliseconds below the default is ignored: the variable can only shorten
 * the wait, never put a report off.
 *
 * @example
 * sessionIdleMs({ PROXY_SESSION_IDLE_MS: "2000" }) // 2000
 * sessionIdleMs({}) // 3_900_000
 */
export function sessionIdleMs(env: object): number {
  const raw = (env as { PROXY_SESSION_IDLE_MS?: unknown }).PROXY_SESSION_IDLE_MS;
  const ms = typeof raw === "string" && /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : SESSION_IDLE_MS;
  return Math.min(ms, SESSION_IDLE_MS);
}

const STATE = "state";
const GENERATION = "generation";

/**
 * A session's tally. `open` says which ledger session the next decisions go
 * to (a session that went idle and came back is a new one, `.2`, `.3`…, so
 * its bill never conflicts with the one already reported); `record` adds an
 * exchange; the alarm reports and forgets.
 *
 * @example
 * const stub = env.PROXY_SESSIONS.get(env.PROXY_SESSIONS.idFromName(`${tenant}/${session}`));
 * const { ledger_session } = await stub.open(session);
 */
export class ProxySession extends DurableObject<Env> {
  /** The ledger session id the current generation of this session reports under. */
  async open(base: string): Promise<{ ledger_session: string }> {
    const generation = (await this.ctx.storage.get<number>(GENERATION)) ?? 1;
    return { ledger_session: generation === 1 ? base : `${base}.${generation}` };
  }

  /** Adds one exchange, and puts the report off until the session has been idle for {@link sessionIdleMs}. */
  async record(update: SessionUpdate): Promise<void> {
    const { applyUpdate } = await loadState();
    const state = applyUpdate((await this.ctx.storage.get<SessionState>(STATE)) ?? null, update);
    await this.ctx.storage.put(STATE, state);
    await this.ctx.storage.setAlarm(Date.now() + sessionIdleMs(this.env));
  }

  /** The session's state as stored, for the tests and the operator's debugging. */
  async peek(): Promise<SessionState | null> {
    return (await this.ctx.storage.get<SessionState>(STATE)) ?? null;
  }

  /**
   * Reports the idle session to the ledger (its outcomes and its bill), then
   * keeps only the next generation's number. A ledger that cannot be reached
   * throws, and the runtime retries the alarm.
   */
  override async alarm(): Promise<void> {
    const state = (await this.ctx.storage.get<SessionState>(STATE)) ?? null;
    if (state === null) {
      // Nothing live: the generation counter has outlived its session; forget it.
      await this.ctx.storage.deleteAll();
      return;
    }
    const { reportSession } = await loadFlush();
    await reportSession(this.env, state);
    const generation = ((await this.ctx.storage.get<number>(GENERATION)) ?? 1) + 1;
    await this.ctx.storage.delete(STATE);
    await this.ctx.storage.put(GENERATION, generation);
    // The counter itself goes after a week without the session coming back.
    await this.ctx.storage.setAlarm(Date.now() + 7 * 24 * 60 * 60 * 1000);
  }
}
