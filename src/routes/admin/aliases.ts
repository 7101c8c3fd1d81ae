import { createRoute } from "@hono/zod-openapi";
import { ADMIN_SECURITY } from "../../auth";
import { deleteStrayAlias, listAliases } from "../../storage/write";
import { createApp, ErrorSchema, json } from "../kernel/openapi";
import { ADMIN_ERRORS, AliasDeletedSchema, AliasListSchema, AliasParamSchema } from "./schema";

const common = { tags: ["admin"], security: ADMIN_SECURITY };

const listRoute = createRoute({
  ...common,
  method: "get",
  path: "/v1/admin/aliases",
  summary: "List every alias key, flagging stray ones",
  responses: { 200: json(AliasListSchema, "Every alias key in KV"), ...ADMIN_ERRORS },
});

const deleteRoute = createRoute({
  ...common,
  method: "delete",
  path: "/v1/admin/aliases/{alias}",
  summary: "Delete a stray alias key",
  request: { params: AliasParamSchema },
  responses: {
    200: json(AliasDeletedSchema, "Deleted, and recorded in the key's history"),
    400: json(ErrorSchema, "Bad alias name, or the alias is not stray: its model's row lists it"),
    404: json(ErrorSchema, "No such alias key"),
    ...ADMIN_ERRORS,
  },
});

/**
 * /v1/admin/aliases: alias keys as KV holds them. A stray key (its model
 * gone, invalid, or no longer listing it) can block a row's update; this is
 * where ops find and remove it.
 *
 * @example
 * curl -X DELETE 127.0.0.1:8787/v1/admin/aliases/gpt-5-old -H "authorization: Bearer $TOKEN"
 */
export const adminAliases = createApp()
  .openapi(listRoute, async (c) => {
    const aliases = await listAliases(c.env.PRICING);
    return c.json({ count: aliases.length, stray: aliases.filter((view) => view.stray !== null).length, aliases }, 200);
  })
  .openapi(deleteRoute, async (c) => {
    const { alias } = c.req.valid("param");
    return c.json(await deleteStrayAlias(c.env.PRICING, alias, c.get("admin")), 200);
  });
