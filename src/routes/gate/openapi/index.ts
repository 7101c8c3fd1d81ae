/**
 * The front door of src/routes/gate/openapi/: what the rest of the code may import from it.
 */
export type { GateCurveSchema } from "./curve-schema";
export { gate } from "./routes";
