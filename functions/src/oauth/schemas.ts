// Inputs and answers of the OAuth endpoints (zod). The consent page's API is strict like every other edge;
// the token and revocation forms are not: RFC 6749 section 3.2 and RFC 7009 section 2.1 require unknown
// parameters to be ignored. Which parameters a grant type needs is checked by oauth/token.ts, so a missing
// one is the RFC's invalid_request and an unknown grant_type its unsupported_grant_type.
import { z } from "zod";
import { ScopeSchema } from "../auth/scopes";
import { ids } from "../core/ids";

export const DecisionSchema = z
  .object({
    approve: z.boolean(),
    scopes: z.array(ScopeSchema).max(10).optional(),
  })
  .strict();

export const RequestParams = z.object({ id: ids.oauthRequestId }).strict();

const param = z.string().max(4096);

export const TokenRequestSchema = z.object({
  grant_type: param.describe("authorization_code or refresh_token"),
  client_id: param,
  code: param.optional(),
  code_verifier: param.optional(),
  redirect_uri: param.optional(),
  refresh_token: param.optional(),
  scope: param.optional(),
  resource: param.optional(),
});
export type TokenRequest = z.infer<typeof TokenRequestSchema>;

export const RevocationRequestSchema = z.object({
  token: param,
  client_id: param,
  token_type_hint: param.optional().describe("access_token or refresh_token"),
});
export type RevocationRequest = z.infer<typeof RevocationRequestSchema>;

export const TokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  scope: z.string(),
});

export const DecisionResponseSchema = z.object({ redirect: z.string().url() });

export const RequestDescriptionSchema = z.object({
  client: z.object({ id: z.string(), name: z.string(), registration: z.string(), verified: z.boolean(), documentHost: z.string().nullable() }),
  redirectHost: z.string(),
  workspace: z.object({ merchantId: z.string(), name: z.string() }),
  scopes: z.array(ScopeSchema),
  resource: z.string(),
  expiresAt: z.string(),
});

export const RegistrationResponseSchema = z.object({
  client_id: z.string(),
  client_id_issued_at: z.number().int(),
  client_name: z.string(),
  client_uri: z.string().optional(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
  token_endpoint_auth_method: z.literal("none"),
});

/** RFC 6749 section 5.2 / RFC 7591 section 3.2.2: every OAuth error answer. */
export const OAuthErrorBodySchema = z.object({ error: z.string(), error_description: z.string(), request_id: z.string().optional() });
