// Collection names in one place (docs/data-model.md describes each document).
export const COLLECTIONS = {
  workspaces: "workspaces",
  memberships: "memberships",
  apiKeys: "apiKeys",
  auditEvents: "auditEvents",
  links: "links",
  scanSecrets: "scanSecrets",
  sandboxCodes: "sandboxCodes",
  sandboxCounters: "sandboxCounters",
  listings: "listings",
  phoneBook: "phoneBook",
  mail: "mail",
  rateLimits: "rateLimits",
  appScanMarks: "appScanMarks",
  /** Arrivals whose publish failed or passed its bound: kept until the scan consumer counts them (TTL 7 days). */
  scanOutbox: "scanOutbox",
  /** One heartbeat per scan consumer instance: its watermark (scans/consume.ts). */
  scanConsumers: "scanConsumers",
  /** One document per redirect instance: when it published its recent arrivals (store/scanArrivalMarks.ts). */
  scanArrivalMarks: "scanArrivalMarks",
  /** Reports of abusive codes from the public report form: server only (abuse/service.ts). */
  abuseReports: "abuseReports",
  /** Destinations to look up again after a failed Safe Browsing lookup: server only (store/rechecks.ts). */
  destinationRechecks: "destinationRechecks",
  /** Progress of background passes (the catalogue backfill): server only. */
  maintenance: "maintenance",
  /** Which workspace's branded domain holds each host name (store/domains.ts): server only. */
  domainHosts: "domainHosts",
  /** Connected Shopify shops, by shop domain: which workspace's, and its sealed webhook secret (store/shopifyShops.ts). */
  shopifyShops: "shopifyShops",
  /** Shopify webhook deliveries seen, by shop and X-Shopify-Webhook-Id: a replay is dropped (TTL 7 days). */
  shopifyDeliveries: "shopifyDeliveries",
  // OAuth for MCP clients (functions/src/oauth/).
  oauthClients: "oauthClients",
  oauthRequests: "oauthRequests",
  oauthCodes: "oauthCodes",
  oauthGrants: "oauthGrants",
  oauthAccessTokens: "oauthAccessTokens",
  oauthRefreshTokens: "oauthRefreshTokens",
} as const;
