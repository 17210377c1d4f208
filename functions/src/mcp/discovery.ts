// Discovery before connecting (drafts, docs/mcp.md "Discovery"): an AI Catalog naming this server, and
// its MCP Server Card. Both are public, static per deployment, and served with CORS and an ETag.
import { sha256 } from "../core/hash";
import type { Request, Response } from "express";
import { getConfig, TOOL_SERVER_VERSION } from "../core/config";
import { SCOPES } from "../auth/scopes";
import { oauthUrls } from "../oauth/metadata";
import { MODERN_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "./era2026";
import { SERVER_CAPABILITIES, SERVER_SUMMARY, SERVER_TITLE, serverName } from "./identity";
import { byName } from "./catalog";
import { TOOLS } from "./registry";

export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
export const SERVER_CARD_TYPE = "application/mcp-server-card+json";
export const AI_CATALOG_TYPE = "application/ai-catalog+json";

/** Where the card is served: the draft's reserved `<streamable-http-url>/server-card`. */
export function serverCardUrl(): string {
  return `${getConfig().mcpFunctionUrl}/server-card`;
}

/** The MCP Server Card of /api/mcp (experimental-ext-server-card v1, plus SEP-2127's capabilities and authentication). */
export function serverCard(): Record<string, unknown> {
  const c = getConfig();
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: serverName(c.appUrl),
    version: TOOL_SERVER_VERSION,
    title: SERVER_TITLE,
    description: SERVER_SUMMARY,
    websiteUrl: c.docsUrl,
    remotes: [
      {
        type: "streamable-http",
        url: c.mcpFunctionUrl,
        // Newest first, as server/discover lists them: 2026-07-28 per request, 2025-03-26 with initialize.
        supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
        headers: [
          {
            name: "Authorization",
            description: `An API key from ${c.createUrl} (Bearer sk-svc-...), or an OAuth access token (the server advertises its authorization server on 401)`,
            isRequired: false,
            isSecret: true,
          },
        ],
        authentication: { required: true, schemes: ["bearer", "oauth2"] },
      },
    ],
    capabilities: SERVER_CAPABILITIES,
    _meta: {
      "svc/authorization": {
        protectedResourceMetadata: oauthUrls().resourceMetadata,
        authorizationServer: oauthUrls().issuer,
        scopes: [...SCOPES],
        apiKeys: c.createUrl,
      },
      "svc/transport": {
        stateless: true,
        perRequestVersion: MODERN_PROTOCOL_VERSION,
        manifest: c.mcpFunctionUrl,
      },
      // A summary, every hint spelled out (tools/list leaves MCP's defaults out); the full schemas are in
      // tools/list and the GET manifest.
      "svc/tools": byName(TOOLS).map((t) => ({ name: t.name, title: t.title, ...t.annotations, ...(t.ui ? { ui: t.ui } : {}) })),
    },
  };
}

/** The AI Catalog of this host: one entry, the card above. */
export function aiCatalog(): Record<string, unknown> {
  const host = new URL(getConfig().appUrl).host;
  return {
    specVersion: "1.0",
    entries: [{ identifier: `urn:air:${host}:mcp:svc-mcp`, type: SERVER_CARD_TYPE, url: serverCardUrl() }],
  };
}

const cache = new Map<string, { text: string; etag: string }>();

function document(kind: "card" | "catalog"): { text: string; etag: string } {
  let doc = cache.get(kind);
  if (!doc) {
    const text = JSON.stringify(kind === "card" ? serverCard() : aiCatalog());
    doc = { text, etag: `"${sha256(text, "base64url").slice(0, 22)}"` };
    cache.set(kind, doc);
  }
  return doc;
}

/** GET handler for the catalog or the card: CORS for any origin, an hour of caching, ETag and 304. */
export function serveDiscovery(kind: "card" | "catalog") {
  const mediaType = kind === "card" ? SERVER_CARD_TYPE : AI_CATALOG_TYPE;
  return (req: Request, res: Response): void => {
    const { text, etag } = document(kind);
    res.set({
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": "GET",
      "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
      "Access-Control-Expose-Headers": "ETag",
      "Cache-Control": "public, max-age=3600",
      ETag: etag,
      Vary: "Accept",
    });
    if (req.headers["if-none-match"] === etag) {
      res.status(304).end();
      return;
    }
    // The draft's media type when the client asks for it, else plain JSON (SEP-2127).
    const type = (req.headers.accept ?? "").includes(mediaType) ? mediaType : "application/json";
    res.status(200).type(`${type}; charset=utf-8`).send(text);
  };
}
