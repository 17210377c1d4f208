// Console Settings → Webhooks: the same operations as the svc.webhook.* tools, for members of the workspace.
import { z } from "zod";
import { endpoint } from "../http/endpoint";
import { listLimit } from "../core/validation";
import { listWebhooks } from "../store/webhooks";
import {
  createWebhook,
  deliveriesOf,
  deliveryAttempts,
  deliveryIdSchema,
  enableWebhook,
  MAX_OVERLAP_HOURS,
  NewWebhookSchema,
  publicWebhook,
  redeliver,
  removeWebhook,
  rotateSecret,
  sendTestEvent,
  webhookIdSchema,
} from "../webhooks/service";

const WebhookParams = z.object({ webhookId: webhookIdSchema }).strict();
const member = { credential: "member" as const, ownAddressOnly: true };

export const webhookEndpoints = [
  endpoint({
    method: "GET",
    path: "/api/console/webhooks",
    summary: "List the workspace's webhooks",
    internal: true,
    ...member,
    limit: "consoleReads",
    async handle({ caller }) {
      return { webhooks: (await listWebhooks(caller.merchantId)).map(publicWebhook) };
    },
  }),
  endpoint({
    method: "POST",
    path: "/api/console/webhooks",
    summary: "Create a webhook (its secret is shown once)",
    internal: true,
    ...member,
    limit: "consoleWrites",
    body: NewWebhookSchema,
    async handle({ caller, body, res }) {
      const { webhook, secret } = await createWebhook(caller.merchantId, caller.uid, body, caller.keyId ?? null);
      res.status(201);
      return { webhookId: webhook.webhookId, secret, webhook: publicWebhook(webhook) };
    },
  }),
  endpoint({
    method: "DELETE",
    path: "/api/console/webhooks/:webhookId",
    summary: "Delete a webhook",
    internal: true,
    ...member,
    limit: "consoleWrites",
    params: WebhookParams,
    async handle({ caller, params }) {
      await removeWebhook(caller.merchantId, caller.uid, params.webhookId);
      return { deleted: true, webhookId: params.webhookId };
    },
  }),
  endpoint({
    method: "POST",
    path: "/api/console/webhooks/:webhookId/test",
    summary: "Send a test event",
    internal: true,
    ...member,
    limit: "consoleWrites",
    params: WebhookParams,
    body: z.object({}).strict(),
    async handle({ caller, params }) {
      return sendTestEvent(caller.merchantId, params.webhookId);
    },
  }),
  endpoint({
    method: "POST",
    path: "/api/console/webhooks/:webhookId/enable",
    summary: "Enable a disabled webhook",
    internal: true,
    ...member,
    limit: "consoleWrites",
    params: WebhookParams,
    body: z.object({}).strict(),
    async handle({ caller, params }) {
      return publicWebhook(await enableWebhook(caller.merchantId, params.webhookId));
    },
  }),
  endpoint({
    method: "POST",
    path: "/api/console/webhooks/:webhookId/rotate-secret",
    summary: "Rotate a webhook's secret",
    internal: true,
    ...member,
    limit: "consoleWrites",
    params: WebhookParams,
    body: z.object({ overlapHours: z.number().min(0).max(MAX_OVERLAP_HOURS).optional() }).strict(),
    async handle({ caller, params, body }) {
      return rotateSecret(caller.merchantId, caller.uid, params.webhookId, body.overlapHours ?? 24);
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/console/webhooks/:webhookId/deliveries",
    summary: "A webhook's recent deliveries",
    internal: true,
    ...member,
    limit: "consoleReads",
    params: WebhookParams,
    query: z.object({ limit: z.coerce.number().pipe(listLimit).optional() }).strict(),
    async handle({ caller, params, query }) {
      return { deliveries: await deliveriesOf(caller.merchantId, params.webhookId, query.limit) };
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/console/webhooks/:webhookId/deliveries/:deliveryId",
    summary: "One delivery with every attempt kept",
    internal: true,
    ...member,
    limit: "consoleReads",
    params: z.object({ webhookId: webhookIdSchema, deliveryId: deliveryIdSchema }).strict(),
    handle: ({ caller, params }) => deliveryAttempts(caller.merchantId, params.webhookId, params.deliveryId),
  }),
  endpoint({
    method: "POST",
    path: "/api/console/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
    summary: "Send a delivery again",
    internal: true,
    ...member,
    limit: "consoleWrites",
    params: z.object({ webhookId: webhookIdSchema, deliveryId: deliveryIdSchema }).strict(),
    body: z.object({}).strict(),
    async handle({ caller, params }) {
      await redeliver(caller.merchantId, params.webhookId, params.deliveryId);
      return { queued: true, deliveryId: params.deliveryId };
    },
  }),
];
