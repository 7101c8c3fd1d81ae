import { fitBlobs, MAX_INDEX_BYTES, REASON_BLOB, truncateUtf8, writePoint } from "./point";

/** blob4 of a breaker's data point: what tells a change of breaker state from decisions in the dataset. */
export const BREAKER_KIND = "breaker";

/** One change of one breaker's state, with the evidence that moved it. */
export interface BreakerRecord {
  tenant: string;
  tool_name: string;
  state: "open" | "closed";
  /** "auto": the rule moved it; "open"/"closed": ops forced it. */
  mode: "auto" | "open" | "closed";
  rule: "holdout" | "realized_net";
  sessions: number;
  estimate: number | null;
  interval: [number, number] | null;
  verdict: string;
}

/**
 * A breaker change's data point, in the decisions' dataset, told apart by
 * blob4 = "breaker"; blob3 says which way it moved. docs/analytics.md
 * documents the order. Append, never reorder.
 *
 * @example
 * toBreakerDataPoint(record) // { indexes: ["acme"], blobs: ["", "", "breaker_opened", "breaker", "", "…", "", "read_file", ...], doubles: [1, 0.031, ...] }
 */
export function toBreakerDataPoint(record: BreakerRecord): AnalyticsEngineDataPoint {
  const reason = `breaker ${record.state === "open" ? "opened" : "closed"} (${record.mode}, ${record.rule} rule): verdict ${record.verdict} over ${record.sessions} session(s)`;
  return {
    indexes: [truncateUtf8(record.tenant, MAX_INDEX_BYTES)],
    blobs: fitBlobs(
      [
        "", // blob1: no model
        "", // blob2
        record.state === "open" ? "breaker_opened" : "breaker_closed", // blob3
        BREAKER_KIND, // blob4
        "", // blob5
        reason, // blob6
        "", // blob7
        record.tool_name, // blob8: the tool, where a decision keeps it
        "", // blob9
        record.mode, // blob10
        record.rule, // blob11
        record.verdict, // blob12
      ],
      REASON_BLOB,
    ),
    doubles: [
      record.state === "open" ? 1 : 0, // double1
      record.estimate ?? 0, // double2: the estimate (treatment − holdout per session; or −realized net)
      record.interval?.[0] ?? 0, // double3
      record.interval?.[1] ?? 0, // double4
      record.sessions, // double5
    ],
  };
}

/** Writes one breaker change's data point; a failed write is logged and dropped. */
export function recordBreaker(dataset: AnalyticsEngineDataset, record: BreakerRecord): void {
  writePoint(dataset, toBreakerDataPoint(record));
}
