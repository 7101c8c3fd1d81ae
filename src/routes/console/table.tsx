import type { Child } from "hono/jsx";
import type { PricingRow } from "../../storage/schemas";
import type { TableRow } from "./data";

const usd = (n: number | undefined) =>
  n === undefined ? "—" : `$${n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 4 })}`;

const compact = (n: number) =>
  n >= 1000 && n % 1000 === 0 ? `${(n / 1000).toLocaleString("en-US")}k` : n.toLocaleString("en-US");

/**
 * The pricing rows as stored: valid rows with their prices, lifecycle,
 * source and age; invalid rows first, with what is wrong.
 *
 * @example
 * <PricingTable rows={rows} />
 */
export function PricingTable({ rows }: { rows: TableRow[] }) {
  if (rows.length === 0) {
    return (
      <p class="empty">
        No pricing rows in KV. Seed them with <code>npm run seed:local</code>.
      </p>
    );
  }
  return (
    <div class="table-scroll" id="pricing-scroll" tabindex={0} role="region" aria-labelledby="pricing-h">
      <table class="pricing" id="pricing-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" class="num">
              Input
            </th>
            <th scope="col" class="num">
              Output
            </th>
            <th scope="col" class="num">
              Cache read
            </th>
            <th scope="col" class="num">
              <abbr title="5-minute cache write">Write 5m</abbr>
            </th>
            <th scope="col" class="num">
              <abbr title="1-hour cache write">Write 1h</abbr>
            </th>
            <th scope="col">Long context</th>
            <th scope="col">Source</th>
            <th scope="col">Verified</th>
          </tr>
        </thead>
        <tbody>{rows.map((row) => (row.status === "valid" ? <ValidRow row={row} /> : <InvalidRow row={row} />))}</tbody>
      </table>
    </div>
  );
}

function ValidRow({ row }: { row: Extract<TableRow, { status: "valid" }> }) {
  const r: PricingRow = row.row;
  const lc = r.long_context;
  return (
    <tr
      class={[row.stale ? "stale" : "", row.lifecycle === "active" ? "" : row.lifecycle].join(" ").trim() || undefined}
      data-model={row.model}
    >
      <th scope="row">
        <ModelName model={row.model} />
        {r.provider !== undefined ? <span class="provider">{r.provider}</span> : null}
        <LifecycleBadge row={row} />
        <Scheduled row={row} />
        {(r.aliases ?? []).length > 0 ? <span class="aliases">aka {(r.aliases ?? []).join(", ")}</span> : null}
      </th>
      <td class="num">{usd(r.input)}</td>
      <td class="num">{usd(r.output)}</td>
      <td class="num">{usd(r.cache_read)}</td>
      <td class="num">{usd(r.cache_write)}</td>
      <td class="num">{usd(r.cache_write_1h)}</td>
      <td class="long-context">
        {lc === undefined
          ? "—"
          : `over ${compact(lc.threshold_tokens)}: ${usd(lc.input ?? r.input)} / ${usd(lc.output ?? r.output)}`}
      </td>
      <td>{r.source === undefined ? "—" : <SourceLink href={r.source} />}</td>
      <td class="verified">
        <Verified row={row} />
      </td>
    </tr>
  );
}

// Deprecated and retired rows say so, with the date and what replaces them.
function LifecycleBadge({ row }: { row: Extract<TableRow, { status: "valid" }> }): Child {
  if (row.lifecycle === "active") return null;
  const { retires_at: retiresAt, deprecated_at: deprecatedAt, replaced_by: replacement } = row.row;
  const then =
    row.lifecycle === "retired"
      ? `retired ${retiresAt}`
      : retiresAt === undefined
        ? `deprecated ${deprecatedAt}`
        : `retires ${retiresAt}`;
  const priced =
    replacement === undefined
      ? row.lifecycle === "retired"
        ? "; unpriced"
        : ""
      : `; priced as ${replacement}${row.lifecycle === "retired" ? "" : " from then"}`;
  return <span class={`badge ${row.lifecycle === "retired" ? "bad" : "warn"} lifecycle`}>{`${then}${priced}`}</span>;
}

// Upcoming price changes, each with its instant and what it sets; the next one flagged when it is near.
function Scheduled({ row }: { row: Extract<TableRow, { status: "valid" }> }): Child {
  if (row.upcoming.length === 0) return null;
  const prices = (change: (typeof row.upcoming)[number]) =>
    (["input", "output", "cache_read", "cache_write", "cache_write_1h"] as const)
      .flatMap((field) => (change[field] === undefined ? [] : [`${field} ${usd(change[field])}`]))
      .concat(change.long_context === undefined ? [] : ["long_context"])
      .join(", ");
  return (
    <span class="scheduled">
      {row.upcoming.map((change, index) => (
        <span class={index === 0 && row.soon ? "badge warn soon" : "badge"}>
          {index === 0 && row.soon ? "⚠ " : ""}from <time datetime={change.effective_at}>{change.effective_at}</time>:{" "}
          {prices(change)}
        </span>
      ))}
    </span>
  );
}

function InvalidRow({ row }: { row: Extract<TableRow, { status: "invalid" }> }) {
  return (
    <tr class="invalid" data-model={row.model}>
      <th scope="row">
        <ModelName model={row.model} />
      </th>
      <td colspan={8}>
        <span class="badge bad">invalid</span> {row.detail}. The gate answers <code>pricing_unavailable</code> for this
        model until the row is fixed.
      </td>
    </tr>
  );
}

function Verified({ row }: { row: Extract<TableRow, { status: "valid" }> }): Child {
  if (row.row.verified_at === undefined || row.ageDays === null)
    return <span class="badge warn">⚠ never verified</span>;
  const age = `${row.ageDays} ${row.ageDays === 1 ? "day" : "days"} old`;
  return (
    <>
      <time datetime={row.row.verified_at}>{row.row.verified_at}</time>{" "}
      {row.stale ? <span class="badge warn">⚠ {age}</span> : <span class="age">{age}</span>}
    </>
  );
}

function SourceLink({ href }: { href: string }) {
  let url: URL | null = null;
  try {
    url = new URL(href);
  } catch {
    // The schema only admits URLs; show it as it is if that ever changes.
  }
  // Only a web page is a link: a file: source (a local import) is shown as text.
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:"))
    return <span class="source">{href}</span>;
  const host = url.hostname;
  return (
    <a href={href} rel="noreferrer noopener" class="source">
      {host}
    </a>
  );
}

// The edit button sits by the name, so editing adds no column to a wide table.
const ModelName = ({ model }: { model: string }) => (
  <span class="model-head">
    <span class="model">{model}</span>
    <button type="button" class="edit secondary" data-edit={model} hidden aria-label={`Edit ${model}`}>
      Edit
    </button>
  </span>
);
