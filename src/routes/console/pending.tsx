import type { Child } from "hono/jsx";
import type { PendingChange } from "../../sync";

/** What the console shows of the price sync: its stored changes, or why they could not be read. */
export type PendingView =
  | { ok: true; changes: (PendingChange & { digest: string })[]; invalid: number }
  | { ok: false; detail: string };

const KIND_WORDS: Record<PendingChange["kind"], string> = {
  changed: "new prices",
  added: "new model",
  removed: "gone from the source",
};

/**
 * The scheduled price sync's proposals: each with what would change, where
 * it comes from and when it was seen. Once the admin token is accepted, a
 * pending one gets Approve and Reject buttons, which call
 * `/v1/admin/pending/{model}/approve` and `…/reject` with the digest of the
 * change shown, so a change the sync replaced since is refused, not applied.
 *
 * @example
 * <PendingPanel pending={{ ok: true, changes, invalid: 0 }} />
 */
export function PendingPanel({ pending }: { pending: PendingView }) {
  if (!pending.ok) {
    return (
      <section class="card" id="pending" aria-labelledby="pending-h">
        <h2 id="pending-h">Pending price changes</h2>
        <p class="banner bad" role="alert">
          {pending.detail}
        </p>
      </section>
    );
  }
  const open = pending.changes.filter((change) => change.status === "pending");
  const rejected = pending.changes.length - open.length;
  return (
    <section class="card" id="pending" aria-labelledby="pending-h">
      <h2 id="pending-h">Pending price changes</h2>
      <p class="summary">
        <span class={open.length > 0 ? "warn-text" : ""}>{open.length} waiting for approval</span> · {rejected} rejected
        {pending.invalid > 0 ? <span class="bad-text"> · {pending.invalid} unreadable</span> : null} · proposed by the
        scheduled sync from <code>price_source_url</code>; none applies until an admin approves it (unlock editing
        above, or <code>POST /v1/admin/pending/&#123;model&#125;/approve</code>).
      </p>
      <p id="pending-status" class="status" role="status" />
      {pending.changes.length === 0 ? (
        <p>Nothing pending: KV agrees with the source, or no sync has run.</p>
      ) : (
        <div class="table-scroll">
          <table class="pending">
            <caption class="sr-only">
              Price changes the sync proposes; none is applied until an admin approves it
            </caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Change</th>
                <th scope="col">Fields (USD per million tokens)</th>
                <th scope="col">Seen</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {pending.changes.map((change) => (
                <tr data-model={change.model} class={change.status}>
                  <th scope="row">
                    <code>{change.model}</code>
                  </th>
                  <td>{KIND_WORDS[change.kind]}</td>
                  <td>{fieldsOf(change)}</td>
                  <td>
                    <time datetime={change.detected_at}>{change.detected_at.slice(0, 16).replace("T", " ")}</time>
                  </td>
                  <td>
                    {change.status === "pending" ? (
                      <span class="badge warn">pending</span>
                    ) : (
                      <span class="badge">rejected by {change.rejected_by}</span>
                    )}
                    {change.status === "pending" ? <Actions model={change.model} digest={change.digest} /> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

// Hidden until the admin token is accepted (the browser script shows them).
const Actions = ({ model, digest }: { model: string; digest: string }) => (
  <span class="pending-actions">
    <button
      type="button"
      class="pending-action"
      data-decide="approve"
      data-model={model}
      data-digest={digest}
      hidden
      aria-label={`Approve ${model}`}
    >
      Approve
    </button>
    <button
      type="button"
      class="pending-action secondary"
      data-decide="reject"
      data-model={model}
      data-digest={digest}
      hidden
      aria-label={`Reject ${model}`}
    >
      Reject
    </button>
  </span>
);

function fieldsOf(change: PendingChange): Child {
  if (change.fields.length === 0) return "—";
  const show = (value: number | null) => (value === null ? "—" : String(value));
  return change.fields.map((field) => `${field.field} ${show(field.from)} → ${show(field.to)}`).join(", ");
}
