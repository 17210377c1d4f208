// Console Settings → Webhooks: the svc.webhook.* tools' operations (webhooks/operations.ts, the same
// functions and answers), for members of the workspace.
import { z } from "zod";
import { listLimit } from "../core/validation";
import { deliveriesOf, deliveryAttempts, deliveryIdSchema, enableWebhook, MAX_OVERLAP_HOURS, NewWebhookSchema, publicWebhook, webhookIdSchema } from "../webhooks/service";
import {
  DeliveryQueuedSchema,
  PublicDeliverySchema,
  PublicWebhookSchema,
  SecretRotatedSchema,
  webhookCreate,
  WebhookCreatedSchema,
  webhookDelete,
  WebhookDeletedSchema,
  webhookList,
  WebhookListSchema,
  webhookRotateSecret,
  webhookSend,
} from "../webhooks/operations";
import { consoleRoute, routeTable } from "./route";
import { DeliveryListSchema } from "./schemas";

const WebhookParams = z.object({ webhookId: webhookIdSchema }).strict();
const DeliveryParams = z.object({ webhookId: webhookIdSchema, deliveryId: deliveryIdSchema }).strict();
const NoBody = z.object({}).strict();
const member = { credential: "member" } as const;

export const webhookRoutes = routeTable(
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/webhooks",
    summary: "List the workspace's webhooks",
    response: WebhookListSchema,
    handle: ({ caller }) => webhookList(caller.merchantId),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/webhooks",
    summary: "Create a webhook (its secret is shown once)",
    limit: "consoleWrites",
    body: NewWebhookSchema,
    response: WebhookCreatedSchema,
    async handle({ caller, body, res }) {
      res.status(201);
      return webhookCreate(caller, body);
    },
  }),
  consoleRoute({
    ...member,
    method: "DELETE",
    path: "/api/console/webhooks/:webhookId",
    summary: "Delete a webhook",
    limit: "consoleWrites",
    params: WebhookParams,
    response: WebhookDeletedSchema,
    handle: ({ caller, params }) => webhookDelete(caller, params.webhookId),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/webhooks/:webhookId/test",
    summary: "Send a test event",
    limit: "consoleWrites",
    params: WebhookParams,
    body: NoBody,
    response: DeliveryQueuedSchema,
    handle: ({ caller, params }) => webhookSend(caller.merchantId, params.webhookId),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/webhooks/:webhookId/enable",
    summary: "Enable a disabled webhook",
    limit: "consoleWrites",
    params: WebhookParams,
    body: NoBody,
    response: PublicWebhookSchema,
    handle: async ({ caller, params }) => publicWebhook(await enableWebhook(caller.merchantId, params.webhookId)),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/webhooks/:webhookId/rotate-secret",
    summary: "Rotate a webhook's secret",
    limit: "consoleWrites",
    params: WebhookParams,
    body: z.object({ overlapHours: z.number().min(0).max(MAX_OVERLAP_HOURS).optional() }).strict(),
    response: SecretRotatedSchema,
    handle: ({ caller, params, body }) => webhookRotateSecret(caller, params.webhookId, body.overlapHours),
  }),
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/webhooks/:webhookId/deliveries",
    summary: "A webhook's recent deliveries",
    params: WebhookParams,
    query: z.object({ limit: z.coerce.number().pipe(listLimit).optional() }).strict(),
    response: DeliveryListSchema,
    handle: async ({ caller, params, query }) => ({ deliveries: await deliveriesOf(caller.merchantId, params.webhookId, query.limit) }),
  }),
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/webhooks/:webhookId/deliveries/:deliveryId",
    summary: "One delivery with every attempt kept",
    params: DeliveryParams,
    response: PublicDeliverySchema,
    handle: ({ caller, params }) => deliveryAttempts(caller.merchantId, params.webhookId, params.deliveryId),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
    summary: "Send a delivery again",
    limit: "consoleWrites",
    params: DeliveryParams,
    body: NoBody,
    response: DeliveryQueuedSchema,
    handle: ({ caller, params }) => webhookSend(caller.merchantId, params.webhookId, params.deliveryId),
  }),
);
