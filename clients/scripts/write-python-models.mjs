// Regenerates clients/python/src/offload_gate/_models.py from the worker's
// own /openapi.json (a throwaway local gate on loopback) and the report
// items' zod schemas, which the document does not register:
//   npx tsx --import ./scripts/validators/workerd-stub.mjs clients/scripts/write-python-models.mjs
// test/clients/python-models.test.ts fails when the committed file is stale.
import { writeFileSync } from "node:fs";
import { z } from "zod";
import { startLocalGate } from "../../scripts/local-gate.ts";
import { OutcomeItemSchema, SessionItemSchema } from "../../src/routes/ledger/schema.ts";
import { PYTHON_MODELS_PATH, renderPythonModels } from "./python-models.mjs";

const port = Number(process.env.OFFLOAD_GATE_MODELS_PORT ?? 8890);
const gate = await startLocalGate({ port, inspectorPort: port + 1, stateDir: ".wrangler/python-models-state" });
try {
  const res = await fetch(`${gate.baseUrl}/openapi.json`);
  if (!res.ok) throw new Error(`GET /openapi.json: ${res.status}`);
  const input = (schema) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  writeFileSync(
    PYTHON_MODELS_PATH,
    renderPythonModels(await res.json(), input(OutcomeItemSchema), input(SessionItemSchema)),
  );
  console.log(`wrote ${PYTHON_MODELS_PATH}`);
} finally {
  await gate.stop();
}
