/**
 * Whether a gate answer is recorded, as plain code: `dry_run` is its schema
 * (../dry-run.ts, the document's), this is the switch the recording paths
 * read. Free of zod, so the gate's startup path may import it.
 *
 * @module
 */

/**
 * Whether an answer is recorded: the one switch every recording path (the
 * data point, the ledger record, the holdout draw, a learning observation)
 * checks.
 *
 * @example
 * isRecorded({ dry_run: true }) // false
 * isRecorded({}) // true
 */
export const isRecorded = (body: { dry_run?: boolean | undefined }): boolean => body.dry_run !== true;
