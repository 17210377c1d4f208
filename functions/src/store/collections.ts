// Collection names in one place (docs/data-model.md describes each document).
export const COLLECTIONS = {
  workspaces: "workspaces",
  memberships: "memberships",
  apiKeys: "apiKeys",
  auditEvents: "auditEvents",
  links: "links",
  scanInbox: "scanInbox",
  sandboxCodes: "sandboxCodes",
  sandboxCounters: "sandboxCounters",
  listings: "listings",
  phoneBook: "phoneBook",
  mail: "mail",
  rateLimits: "rateLimits",
  appScanMarks: "appScanMarks",
} as const;
