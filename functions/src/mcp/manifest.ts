// The unauthenticated GET /api/mcp manifest.
import { getConfig, MCP_PROTOCOL_VERSION, TOOL_SERVER_VERSION } from "../core/config";
import { SANDBOX_DAILY_LIMIT, SANDBOX_LIFETIME_DAYS, BULK_MAX_URLS } from "../core/limits";
import { toolListing, TOOLS } from "./registry";
import { SERVER_INFO } from "./identity";
import { MODERN_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, TASKS_EXTENSION } from "./era2026";
import { oauthUrls } from "../oauth/metadata";
import { serverCardUrl } from "./discovery";

export function mcpManifest() {
  const c = getConfig();
  return {
    name: SERVER_INFO.name,
    version: TOOL_SERVER_VERSION,
    description:
      "MCP tool server for one merchant workspace: draft QR codes, audio codes, menus and scan challenges, read scan analytics, and use the voice-agent phone book. Tools create drafts; the merchant publishes in the console.",
    endpoint: c.mcpFunctionUrl,
    protocol: {
      name: "Model Context Protocol",
      version: MCP_PROTOCOL_VERSION,
      supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      transport: "Streamable HTTP, stateless: JSON-RPC 2.0 over POST, one JSON response per request",
      methods: ["initialize", "notifications/initialized", "ping", "tools/list", "tools/call", "resources/list", "resources/templates/list", "resources/read"],
      perRequest: {
        version: MODERN_PROTOCOL_VERSION,
        methods: ["server/discover", "tools/list", "tools/call", "resources/list", "resources/templates/list", "resources/read"],
        headers: ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"],
        // For requests that declare it in clientCapabilities.extensions (docs/mcp.md, "Tasks").
        extensions: { [TASKS_EXTENSION]: { methods: ["tasks/get", "tasks/update", "tasks/cancel"], tools: TOOLS.filter((t) => t.task).map((t) => t.name) } },
      },
    },
    docs: c.docsUrl,
    auth: {
      type: "bearer",
      header: "Authorization: Bearer <API key>",
      keyFormat: "sk-svc-<64 hex characters>",
      obtain: c.createUrl,
      alsoAccepted: ["Firebase ID token (console callers)", "session cookie __session (console callers)"],
      required: ["tools/list", "tools/call"],
      oauth: { resourceMetadata: oauthUrls().resourceMetadata, authorizationServer: oauthUrls().issuer },
    },
    tools: toolListing(),
    serverCard: serverCardUrl(),
    freeTrial: {
      description: `No key yet? Make a real scannable QR code without one: ${SANDBOX_DAILY_LIMIT} per IP per day, kept ${SANDBOX_LIFETIME_DAYS} days unless claimed into an account.`,
      generate: `${c.appUrl}/api/generate-qr-code`,
      bulk: `${c.appUrl}/api/bulk-qr-codes`,
      info: `POST {"url": "https://..."} to the generate URL; GET it for the full description. Bulk (up to ${BULK_MAX_URLS} URLs per call) needs an API key from ${c.createUrl}.`,
    },
  };
}
