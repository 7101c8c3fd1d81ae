/**
 * The front door of src/auth/: what the rest of the code may import from it.
 */
export { ADMIN_SECURITY, adminAuth } from "./admin";
export { GATE_SECURITY, OPEN_TENANT, gateKeys, gateTenant, namedTenant } from "./gate";
export { isSet, keyRing } from "./keys";
export { enforceRateLimit } from "./rate-limit";
