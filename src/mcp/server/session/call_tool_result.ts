/**
 * @module The result of `tools/call` as the MCP SDK's `types.js` (1.32.2) defines it: every tool
 * result engram sends, its own or an upstream's, passes this check, as it would in the SDK's
 * `Server` (docs/architecture.md#what-engram-writes-where-a-library-exists).
 */
import { z } from "zod";
import { RequestMetaSchema } from "./json_rpc.ts";

/** Base64 as `atob` reads it. */
const Base64Schema = z.string().refine((val) => {
  try {
    atob(val);
    return true;
  } catch {
    return false;
  }
}, { message: "Invalid Base64 string" });

const AnnotationsSchema = z.object({
  audience: z.array(z.enum(["user", "assistant"])).optional(),
  priority: z.number().min(0).max(1).optional(),
  lastModified: z.iso.datetime({ offset: true }).optional(),
});

const Meta = z.record(z.string(), z.unknown()).optional();

const ResourceContentsSchema = z.object({
  uri: z.string(),
  mimeType: z.optional(z.string()),
  _meta: Meta,
});

const ContentBlockSchema = z.union([
  z.object({
    type: z.literal("text"),
    text: z.string(),
    annotations: AnnotationsSchema.optional(),
    _meta: Meta,
  }),
  z.object({
    type: z.literal("image"),
    data: Base64Schema,
    mimeType: z.string(),
    annotations: AnnotationsSchema.optional(),
    _meta: Meta,
  }),
  z.object({
    type: z.literal("audio"),
    data: Base64Schema,
    mimeType: z.string(),
    annotations: AnnotationsSchema.optional(),
    _meta: Meta,
  }),
  z.object({
    name: z.string(),
    title: z.string().optional(),
    icons: z.array(z.object({
      src: z.string(),
      mimeType: z.string().optional(),
      sizes: z.array(z.string()).optional(),
      theme: z.enum(["light", "dark"]).optional(),
    })).optional(),
    uri: z.string(),
    description: z.optional(z.string()),
    mimeType: z.optional(z.string()),
    size: z.optional(z.number()),
    annotations: AnnotationsSchema.optional(),
    _meta: z.optional(z.looseObject({})),
    type: z.literal("resource_link"),
  }),
  z.object({
    type: z.literal("resource"),
    resource: z.union([
      ResourceContentsSchema.extend({ text: z.string() }),
      ResourceContentsSchema.extend({ blob: Base64Schema }),
    ]),
    annotations: AnnotationsSchema.optional(),
    _meta: Meta,
  }),
]);

/** A `tools/call` result: content blocks, structured content, whether it is an error. */
export const CallToolResultSchema = z.looseObject({
  _meta: RequestMetaSchema.optional(),
  content: z.array(ContentBlockSchema).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});
