import { z } from "@hono/zod-openapi";

/** The one error shape, as documented. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })),
    }),
  })
  .openapi("Error");
