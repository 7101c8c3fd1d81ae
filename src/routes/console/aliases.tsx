import { strayReason } from "../../storage/write";
import type { TableRow } from "./data";

/** One alias key as the console shows it: where it points, and why it is stray (null: it is not). */
export interface AliasView {
  alias: string;
  target: string;
  stray: string | null;
}

/**
 * The alias keys from KV, each checked against the listed rows with the
 * admin API's own rule (a stray key's model has no valid row that lists it).
 *
 * @example
 * aliasViews(new Map([["gpt-5-old", "gpt-5"]]), rows) // [{ alias: "gpt-5-old", target: "gpt-5", stray: "gpt-5 has no pricing row" }]
 */
export function aliasViews(keys: ReadonlyMap<string, string>, rows: readonly TableRow[]): AliasView[] {
  const byModel = new Map(rows.map((row) => [row.model, row]));
  return [...keys]
    .map(([alias, text]) => {
      const target = text.trim();
      const row = byModel.get(target);
      const stored =
        row === undefined
          ? null
          : row.status === "valid"
            ? { model: target, row: row.row, problem: null, value: row.row }
            : { model: target, row: null, problem: row.detail, value: row.raw };
      return { alias, target, stray: strayReason(alias, target, stored) };
    })
    .sort(
      (a, b) =>
        Number(b.stray !== null) - Number(a.stray !== null) || (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0),
    );
}

/**
 * Every alias key, stray ones first and flagged with the reason. Removing a
 * stray key is the admin API's (`DELETE /v1/admin/aliases/{alias}`).
 *
 * @example
 * <AliasPanel aliases={aliasViews(keys, rows)} />
 */
export function AliasPanel({ aliases }: { aliases: readonly AliasView[] | null }) {
  const stray = aliases?.filter((view) => view.stray !== null).length ?? 0;
  return (
    <section class="card" id="aliases" aria-labelledby="aliases-h">
      <h2 id="aliases-h">Aliases</h2>
      {aliases === null ? (
        <p class="banner bad" role="alert">
          The alias keys could not be listed from KV right now.
        </p>
      ) : aliases.length === 0 ? (
        <p class="empty">No alias keys in KV.</p>
      ) : (
        <>
          <p class="summary">
            {aliases.length} alias {aliases.length === 1 ? "key" : "keys"}
            {stray > 0 ? (
              <span class="bad-text">
                {" "}
                · {stray} stray: remove with <code>DELETE /v1/admin/aliases/&lt;alias&gt;</code>
              </span>
            ) : null}
          </p>
          <div class="table-scroll" tabindex={0} role="region" aria-labelledby="aliases-h">
            <table class="aliases">
              <thead>
                <tr>
                  <th scope="col">Alias</th>
                  <th scope="col">Prices as</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {aliases.map((view) => (
                  <tr data-alias={view.alias} class={view.stray === null ? undefined : "stray"}>
                    <td class="model">{view.alias}</td>
                    <td class="model">{view.target}</td>
                    <td>{view.stray === null ? "ok" : <span class="bad-text">stray: {view.stray}</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
