import { ErrorSchema, json } from "./json";

/** The answers of every route a gate key guards, before its handler runs. */
export const CALLER_ERRORS = {
  401: json(ErrorSchema, "GATE_API_KEYS is set and the bearer key is missing or wrong"),
  429: json(ErrorSchema, "The caller's tenant is past its rate limit; Retry-After says when to retry"),
};
