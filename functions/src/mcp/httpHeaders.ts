// The Streamable HTTP binding of MCP 2026-07-28 mirrors body fields into request headers
// (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) so that intermediaries can route without parsing the
// body. A server that reads the body must refuse a request whose headers are missing or disagree with it:
// HTTP 400 with HeaderMismatch (-32020). Header names are case-insensitive (Node lowercases them), values
// are case-sensitive and compared after trimming optional whitespace (RFC 9110 5.5). Rules and sources:
// docs/mcp.md, "2026-07-28 era".
import type { IncomingHttpHeaders } from "node:http";
import { AppError } from "../core/errors";
import { META_PROTOCOL_VERSION, metaOf } from "./era2026";
import type { RpcMessage } from "./protocol";

/** Methods whose `Mcp-Name` header mirrors a params field (SEP-2243, "Standard Request Headers"). */
const MCP_NAME_SOURCE: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // The tasks extension (SEP-2663, "Streamable HTTP: Routing Headers").
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header's value with surrounding spaces and tabs removed; repeated headers are joined as HTTP does. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name.toLowerCase()];
  const value = Array.isArray(raw) ? raw.join(", ") : raw;
  if (value === undefined) return undefined;
  // Most values have nothing to trim: look at both ends before running the expression.
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  return first === 32 || first === 9 || last === 32 || last === 9 ? value.replace(/^[ \t]+|[ \t]+$/g, "") : value;
}

/**
 * Decodes the `=?base64?…?=` sentinel form (Base64 of UTF-8) that `Mcp-Name` uses for values that are not
 * plain ASCII; other values are literal. `undefined` when a sentinel holds invalid Base64 or UTF-8.
 */
export function decodeMcpHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX) && value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length)) {
    return value;
  }
  const encoded = value.slice(SENTINEL_PREFIX.length, -SENTINEL_SUFFIX.length);
  if (!BASE64.test(encoded)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(encoded, "base64"));
  } catch {
    return undefined;
  }
}

function mismatch(message: string): AppError {
  return new AppError("HEADER_MISMATCH", `Header mismatch: ${message}`, {
    hint: "Send MCP-Protocol-Version, Mcp-Method and, for tools/call, resources/read and tasks/*, Mcp-Name with the values of the JSON-RPC body.",
  });
}

const quote = (value: string) => JSON.stringify(value.slice(0, 200));

/**
 * Checks the standard request headers of a 2026-07-28 message against its body. Requests must carry
 * `MCP-Protocol-Version` and `Mcp-Method` (and `Mcp-Name` where the method names something); on a
 * notification, which the revision leaves without header requirements, a header that is sent must still
 * agree with the body. `version` is the MCP-Protocol-Version header when the caller has read it already.
 */
export function checkStandardHeaders(
  headers: IncomingHttpHeaders,
  message: RpcMessage,
  version: string | undefined = headerValue(headers, "mcp-protocol-version"),
): AppError | undefined {
  const isRequest = !message.isNotification;

  const bodyVersion = metaOf(message)?.[META_PROTOCOL_VERSION];
  if (version === undefined) {
    if (isRequest) return mismatch(`the MCP-Protocol-Version header is required (the body's _meta names ${typeof bodyVersion === "string" ? quote(bodyVersion) : "no version"})`);
  } else if (typeof bodyVersion === "string" && version !== bodyVersion) {
    return mismatch(`MCP-Protocol-Version header ${quote(version)} does not match _meta ${META_PROTOCOL_VERSION} ${quote(bodyVersion)}`);
  }

  const method = headerValue(headers, "mcp-method");
  if (method === undefined) {
    if (isRequest) return mismatch(`the Mcp-Method header is required (body method ${quote(message.method)})`);
  } else if (method !== message.method) {
    return mismatch(`Mcp-Method header ${quote(method)} does not match body method ${quote(message.method)}`);
  }

  const field = Object.hasOwn(MCP_NAME_SOURCE, message.method) ? MCP_NAME_SOURCE[message.method] : undefined;
  if (field) {
    const params = message.params as Record<string, unknown> | undefined;
    const bodyName = typeof params === "object" && params !== null ? params[field] : undefined;
    const sent = headerValue(headers, "mcp-name");
    if (sent === undefined) {
      if (isRequest && typeof bodyName === "string") return mismatch(`the Mcp-Name header is required for ${message.method} (params.${field} ${quote(bodyName)})`);
    } else {
      const name = decodeMcpHeaderValue(sent);
      if (name === undefined) return mismatch(`Mcp-Name header ${quote(sent)} is not valid =?base64?…?= encoding of UTF-8`);
      if (typeof bodyName !== "string") return mismatch(`Mcp-Name header ${quote(name)} names something the body's params.${field} does not`);
      if (name !== bodyName) return mismatch(`Mcp-Name header ${quote(name)} does not match params.${field} ${quote(bodyName)}`);
    }
  }
  return undefined;
}
