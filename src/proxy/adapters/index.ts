/**
 * The provider adapters' front door: per endpoint, the reader of its wire
 * format into the parts of replay's normalized trace (docs/design/proxy.md §6).
 *
 * @example
 * import { adapterFor } from "./adapters";
 * adapterFor("messages").request(body)?.parts
 */
import { ANTHROPIC } from "./anthropic";
import { OPENAI_CHAT, OPENAI_RESPONSES } from "./openai";
import type { ObservedEndpoint, WireAdapter } from "./wire";

export { anthropicAnswer, anthropicRequest } from "./anthropic";
export { chatAnswer, chatRequest, responsesAnswer, responsesRequest } from "./openai";
export {
  freshOutputs,
  type ObservedEndpoint,
  type WireAdapter,
  type WireAnswer,
  type WirePart,
  type WireRequest,
} from "./wire";

const ADAPTERS: Record<ObservedEndpoint, WireAdapter> = {
  messages: ANTHROPIC,
  responses: OPENAI_RESPONSES,
  chat: OPENAI_CHAT,
};

/**
 * The adapter of an observed endpoint.
 *
 * @example
 * adapterFor("chat") === adapterFor("chat") // true
 */
export function adapterFor(endpoint: ObservedEndpoint): WireAdapter {
  return ADAPTERS[endpoint];
}
