/**
 * @module The requests and notifications an engram session answers, with the schemas the MCP
 * SDK's `types.js` (1.32.2) gives them — the same checks and error messages, without loading the
 * whole protocol's schemas before the first call
 * (docs/architecture.md#what-engram-writes-where-a-library-exists).
 */
import { z } from "zod";
import {
  BaseParamsSchema,
  NotificationSchema,
  RequestIdSchema,
  RequestSchema,
} from "./json_rpc.ts";

/** Anything but null or a primitive (the SDK's capability flags). */
const AnObject = z.custom<object>((v) =>
  v !== null && (typeof v === "object" || typeof v === "function")
);

/** A name, version and optional icons of a client or server. */
const ImplementationSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  icons: z.array(z.object({
    src: z.string(),
    mimeType: z.string().optional(),
    sizes: z.array(z.string()).optional(),
    theme: z.enum(["light", "dark"]).optional(),
  })).optional(),
  version: z.string(),
  websiteUrl: z.string().optional(),
  description: z.string().optional(),
});

/** `elicitation: {}` from a client of an earlier revision means form mode. */
const ElicitationCapabilitySchema = z.preprocess(
  (value) =>
    value && typeof value === "object" && !Array.isArray(value) &&
      Object.keys(value).length === 0
      ? { form: {} }
      : value,
  z.intersection(
    z.object({
      form: z.intersection(
        z.object({ applyDefaults: z.boolean().optional() }),
        z.record(z.string(), z.unknown()),
      ).optional(),
      url: AnObject.optional(),
    }),
    z.record(z.string(), z.unknown()).optional(),
  ),
);

const ClientCapabilitiesSchema = z.object({
  experimental: z.record(z.string(), AnObject).optional(),
  sampling: z.object({ context: AnObject.optional(), tools: AnObject.optional() }).optional(),
  elicitation: ElicitationCapabilitySchema.optional(),
  roots: z.object({ listChanged: z.boolean().optional() }).optional(),
  tasks: z.looseObject({
    list: AnObject.optional(),
    cancel: AnObject.optional(),
    requests: z.looseObject({
      sampling: z.looseObject({ createMessage: AnObject.optional() }).optional(),
      elicitation: z.looseObject({ create: AnObject.optional() }).optional(),
    }).optional(),
  }).optional(),
  extensions: z.record(z.string(), AnObject).optional(),
});

/** `initialize`. */
export const InitializeRequestSchema = RequestSchema.extend({
  method: z.literal("initialize"),
  params: BaseParamsSchema.extend({
    protocolVersion: z.string(),
    capabilities: ClientCapabilitiesSchema,
    clientInfo: ImplementationSchema,
  }),
});

/** `ping`. */
export const PingRequestSchema = RequestSchema.extend({
  method: z.literal("ping"),
  params: BaseParamsSchema.optional(),
});

/** `notifications/initialized`. */
export const InitializedNotificationSchema = NotificationSchema.extend({
  method: z.literal("notifications/initialized"),
  params: BaseParamsSchema.optional(),
});

/** `notifications/cancelled`: the client no longer wants a reply to `requestId`. */
export const CancelledNotificationSchema = NotificationSchema.extend({
  method: z.literal("notifications/cancelled"),
  params: BaseParamsSchema.extend({
    requestId: RequestIdSchema.optional(),
    reason: z.string().optional(),
  }),
});

/** `notifications/roots/list_changed`. */
export const RootsListChangedNotificationSchema = NotificationSchema.extend({
  method: z.literal("notifications/roots/list_changed"),
  params: BaseParamsSchema.optional(),
});

/** A list request, paged by `cursor`. */
function listRequest<M extends string>(method: M) {
  return RequestSchema.extend({
    method: z.literal(method),
    params: BaseParamsSchema.extend({ cursor: z.string().optional() }).optional(),
  });
}

/** `tools/list`. */
export const ListToolsRequestSchema = listRequest("tools/list");
/** `prompts/list`. */
export const ListPromptsRequestSchema = listRequest("prompts/list");
/** `resources/list`. */
export const ListResourcesRequestSchema = listRequest("resources/list");
/** `resources/templates/list`. */
export const ListResourceTemplatesRequestSchema = listRequest("resources/templates/list");

/** `tools/call`. */
export const CallToolRequestSchema = RequestSchema.extend({
  method: z.literal("tools/call"),
  params: BaseParamsSchema.extend({
    task: z.object({ ttl: z.number().optional() }).optional(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** `prompts/get`. */
export const GetPromptRequestSchema = RequestSchema.extend({
  method: z.literal("prompts/get"),
  params: BaseParamsSchema.extend({
    name: z.string(),
    arguments: z.record(z.string(), z.string()).optional(),
  }),
});

/** A request about one resource. */
function resourceRequest<M extends string>(method: M) {
  return RequestSchema.extend({
    method: z.literal(method),
    params: BaseParamsSchema.extend({ uri: z.string() }),
  });
}

/** `resources/read`. */
export const ReadResourceRequestSchema = resourceRequest("resources/read");
/** `resources/subscribe`. */
export const SubscribeRequestSchema = resourceRequest("resources/subscribe");
/** `resources/unsubscribe`. */
export const UnsubscribeRequestSchema = resourceRequest("resources/unsubscribe");

/** `completion/complete`. */
export const CompleteRequestSchema = RequestSchema.extend({
  method: z.literal("completion/complete"),
  params: BaseParamsSchema.extend({
    ref: z.union([
      z.object({ type: z.literal("ref/prompt"), name: z.string() }),
      z.object({ type: z.literal("ref/resource"), uri: z.string() }),
    ]),
    argument: z.object({ name: z.string(), value: z.string() }),
    context: z.object({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
  }),
});

/** MCP log levels, least severe first. */
export const LoggingLevelSchema = z.enum([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
]);

/** `logging/setLevel`. */
export const SetLevelRequestSchema = RequestSchema.extend({
  method: z.literal("logging/setLevel"),
  params: BaseParamsSchema.extend({ level: LoggingLevelSchema }),
});
