/**
 * The front door of src/auth/: what the rest of the code may import from it.
 */
export { ADMIN_SECURITY, adminAuth } from "./admin";
export { GATE_SECURITY, gateKeys, gateTenant, namedTenant, OPEN_TENANT } from "./gate";
export { isSet, keyRing } from "./keys";
export { enforceRateLimit } from "./rate-limit";
