/**
 * The front door of src/http/: what the rest of the code may import from it.
 */

export type { AppEnv } from "./app";
export { requestPath, waitUntilFor, waitUntilOf } from "./app";
export { BODY_READ_TIMEOUT_MS, readBody, withBodyDeadline } from "./body";
export type { ErrorBody, ErrorIssue } from "./errors";
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
export { allowOnly, checkJsonHeaders, jsonBody, MAX_BODY_BYTES, tooLarge } from "./guards";
