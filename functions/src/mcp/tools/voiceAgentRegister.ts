import { z } from "zod";
import { MAX_PENDING_LISTINGS, PENDING_LISTING_LIFETIME_DAYS } from "../../core/limits";
import { text } from "../../core/validation";
import { registerListing } from "../../listings/service";
import { defineTool } from "../tool";

const details = { businessName: z.string(), voiceAgentPhone: z.string(), email: z.string() };

export const voiceAgentRegisterTool = defineTool({
  name: "svc.voice_agent.register",
  title: "Register a voice agent in the phone book",
  description:
    `Lists a business's AI voice agent number for its website domain in the public phone book, free, once a person approves it; another business's domain cannot be taken. At most ${MAX_PENDING_LISTINGS} pending per workspace.`,
  // Like a code, a listing is customer-facing material drafted for the workspace (docs/decisions.md).
  scope: "qr:write",
  // It submits to a public phone book and, once approved, mails the contact: beyond the workspace. The same
  // registration again leaves the same pending listing.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z
    .object({
      businessName: text(200),
      domain: text(253).describe("scheme, www., path and port are stripped"),
      voiceAgentPhone: text(32).describe("E.164, e.g. +14155550123"),
      email: z.string().trim().max(254).email().describe("Gets the confirmation once approved"),
    })
    .strict(),
  output: z.object({
    domain: z.string(),
    ...details,
    status: z.enum(["pending", "approved", "rejected"]),
    pendingChange: z.object(details).nullable().describe("A change to an approved listing, awaiting approval"),
    page: z.string().nullable().describe("Public page ({base_url}/d/<domain>), once approved"),
    createdAt: z.string(),
    updatedAt: z.string(),
    approvedAt: z.string().nullable(),
    expiresAt: z.string().nullable().describe(`When a pending listing lapses (${PENDING_LISTING_LIFETIME_DAYS} days)`),
    free: z.boolean(),
    awaitingApproval: z.boolean(),
  }),
  async handler(args, { caller }) {
    return registerListing(caller.merchantId, args);
  },
  summarize: (r) =>
    `${r.domain}: ${r.awaitingApproval ? `registered for ${r.voiceAgentPhone}, awaiting approval${r.expiresAt ? ` (lapses ${r.expiresAt})` : ""}` : `listed at ${r.page}`}.`,
});
