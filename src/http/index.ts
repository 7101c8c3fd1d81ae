/**
 * The front door of src/http/: what the rest of the code may import from it.
 */
export { requestPath, waitUntilFor, waitUntilOf } from "./app";
export type { AppEnv } from "./app";
export { BODY_READ_TIMEOUT_MS, withBodyDeadline } from "./body";
export {
  ApiError,
  ERROR_CODES,
  errorResponse,
  invalidJson,
  invalidRequest,
  jsonResponse,
  jsonTextResponse,
  notFound,
  onError,
  summarize,
} from "./errors";
export type { ErrorBody, ErrorIssue } from "./errors";
export { MAX_BODY_BYTES, allowOnly, checkJsonHeaders, jsonBody, tooLarge } from "./guards";
