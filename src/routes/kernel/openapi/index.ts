/**
 * The front door of src/routes/kernel/openapi/: what the rest of the code may import from it.
 */
export { createApp } from "./app";
export { CALLER_ERRORS } from "./caller";
export { DryRunSchema } from "./dry-run";
export { probability, requiredOr, tokenCount, wholeNumber } from "./fields";
export type { ErrorResponse } from "./json";
export { bodyErrors, ErrorSchema, FieldIssueSchema, json, jsonRequest, optionalJsonRequest } from "./json";
