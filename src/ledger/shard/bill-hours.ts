/**
 * The bills' count, sum and sum of squares per hour they were reported in
 * and model (`bill_hours`): the report's session moments read whole hours
 * from here and the bills of the window's partial hours one by one (bills
 * are kept for the retention, so the window on them is always exact).
 */
import { HOUR_MS } from "./rollup-sql";
import type { SumsRow } from "./sql";

type Bindings = (string | number)[];
const HOUR_OF = "at - at % 3600000";

/** Migration 5's table and its backfill from the bills a shard holds. */
export const BILL_MIGRATION = `
CREATE TABLE IF NOT EXISTS bill_hours (
  hour INTEGER NOT NULL, model_name TEXT NOT NULL, priced_as TEXT NOT NULL,
  n INTEGER NOT NULL, sum REAL NOT NULL, sumsq REAL NOT NULL,
  PRIMARY KEY (hour, model_name, priced_as)
) WITHOUT ROWID;
INSERT OR IGNORE INTO bill_hours SELECT ${HOUR_OF}, model_name, COALESCE(priced_as, ''), COUNT(*), TOTAL(cost), TOTAL(cost * cost)
  FROM sessions GROUP BY 1, 2, 3;
`;

/** Adds one bill (bound: at, model_name, priced_as, cost) to its hour. */
export const ADD_BILL = `INSERT INTO bill_hours (hour, model_name, priced_as, n, sum, sumsq)
  VALUES (?1 - ?1 % 3600000, ?2, COALESCE(?3, ''), 1, ?4, ?4 * ?4)
  ON CONFLICT DO UPDATE SET n = n + 1, sum = sum + excluded.sum, sumsq = sumsq + excluded.sumsq`;

/**
 * After the purge deleted bills before `cutoff`: drops the hours wholly
 * before it and sums the hour it falls in again from the bills left.
 *
 * @example
 * trimBillHours(sql, Date.now() - 30 * 86_400_000)
 */
export function trimBillHours(sql: SqlStorage, cutoff: number): void {
  const hour = cutoff - (cutoff % HOUR_MS);
  sql.exec("DELETE FROM bill_hours WHERE hour <= ?", hour);
  sql.exec(
    `INSERT INTO bill_hours SELECT ${HOUR_OF}, model_name, COALESCE(priced_as, ''), COUNT(*), TOTAL(cost), TOTAL(cost * cost)
    FROM sessions WHERE at >= ? AND at < ? GROUP BY 1, 2, 3`,
    hour,
    hour + HOUR_MS,
  );
}

/**
 * The moments of the bills reported in [from, to), of a model when given
 * (as requested or as priced): whole hours from `bill_hours`, the partial
 * ones from the bills. A row of n, sum and sumsq.
 *
 * @example
 * readBillMoments(sql, from, to) // { n: 50330, sum: 100660.2, sumsq: 234567.8 }
 */
export function readBillMoments(sql: SqlStorage, from: number, to: number, model?: string): SumsRow {
  const first = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const last = Math.max(first, to - (to % HOUR_MS));
  const byModel = model === undefined ? "" : " AND (model_name = ? OR (priced_as = ? AND priced_as <> ''))";
  const models: Bindings = model === undefined ? [] : [model, model];
  const rawModel = model === undefined ? "" : " AND (model_name = ? OR priced_as = ?)";
  const parts = [`SELECT n, sum, sumsq FROM bill_hours WHERE hour >= ? AND hour < ?${byModel}`];
  const bindings: Bindings = [first, last, ...models];
  // The partial hours: before the first whole one and from the last on (one range when the window has none).
  const ranges =
    first < last
      ? [
          [from, first],
          [last, to],
        ]
      : [[from, to]];
  for (const [a, b] of ranges) {
    parts.push(`SELECT 1 AS n, cost AS sum, cost * cost AS sumsq FROM sessions WHERE at >= ? AND at < ?${rawModel}`);
    bindings.push(a as number, b as number, ...models);
  }
  return sql
    .exec<SumsRow>(
      `SELECT TOTAL(n) AS n, TOTAL(sum) AS sum, TOTAL(sumsq) AS sumsq FROM (${parts.join(" UNION ALL ")})`,
      ...bindings,
    )
    .one();
}
