// Constants shared by the functions, the console's browser bundle and the scripts. No imports: the console
// bundles this file, so it must not pull in firebase-functions or Node modules.

/** Key scopes (the specification's five). */
export const SCOPES = ["merchant:read", "qr:write", "menu:write", "audio:write", "challenge:write", "webhooks:read", "webhooks:write", "domains:read", "domains:write", "conversions:write"] as const;
/** One of them (here, below store/, whose key and grant records hold them; auth/scopes.ts re-exports it). */
export type Scope = (typeof SCOPES)[number];
/**
 * Scopes an OAuth app gets only by naming them, unticked on the consent page until the person ticks them:
 * a webhook sends the workspace's scans and code events to an address the app chooses, and a branded
 * domain puts the workspace's codes on a host the app names, and conversions report the merchant's sales.
 */
export const ASK_BY_NAME_SCOPES: readonly Scope[] = ["webhooks:read", "webhooks:write", "domains:read", "domains:write", "conversions:write"];

/** Code looks (spec §4): frame templates, boost frames and scan sounds. */
export const TEMPLATES = ["hexSeal", "soundSeal"] as const;
export const BOOST_FRAMES = ["svc_x3_bluepurple", "svc_x5_gold", "svc_x3_sunset", "svc_x5_midnight"] as const;
export const SCAN_BEEP_SOUNDS = ["mariocoin", "8bitcoin", "chime", "woosh", "mouse", "ah", "mission"] as const;
export type Template = (typeof TEMPLATES)[number];
export type BoostFrame = (typeof BOOST_FRAMES)[number];
export type ScanBeepSound = (typeof SCAN_BEEP_SOUNDS)[number];

/** Brand designs (codes/fields.ts holds their schema). Logos: raster formats only (SVG can carry scripts and external references). */
export const LOGO_MAX_BYTES = 256 * 1024;
export const LOGO_MEDIA_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;
export const MODULE_STYLES = ["square", "rounded", "dots"] as const;
export const EYE_STYLES = ["square", "rounded", "circle"] as const;
/** Quiet zone in modules: the standard asks for 4; 2 still reads on most phones, and every design is decoded before use. */
export const QUIET_ZONE_MIN = 2;
export const QUIET_ZONE_MAX = 16;

export const DEFAULT_REGION = "us-central1";

/** Workspaces count scans in this time zone until they choose another. */
export const DEFAULT_TIME_ZONE = "UTC";

/** The local stack's project: a `demo-` project, so nothing in it can reach production services. */
export const LOCAL_PROJECT_ID = "demo-merchant-qr";

/** Public local addresses, served by the front (scripts/lib/front.ts) as Google's front end does. */
export const LOCAL_FRONT_PORTS = {
  /** The site and app host, through the Hosting emulator (what `npm start` prints). */
  site: 5000,
  /** Function URLs called directly (`/<project>/<region>/<function>/...`). */
  functions: 5002,
  /** Merchants' own hosts over HTTPS, as Google's load balancer serves them (docs/domains.md, "Serving"). */
  domains: 5443,
} as const;

/** Emulator ports behind the front; a unit test checks they match firebase.json. */
export const LOCAL_PORTS = {
  hosting: 5005,
  functions: 5001,
  firestore: 8080,
  auth: 9099,
  storage: 9199,
  hub: 4400,
} as const;

/** The limit subject of every client resolved only to a proxy's address (core/clientAddress.ts limitSubjectOf). */
export const SHARED_PROXY_SUBJECT = "proxy:shared";
/** Whether a limit subject is one of the shared proxy buckets (`proxy:shared:<prefix>`). */
export const isSharedProxySubject = (subject: string | undefined): boolean => subject?.startsWith(`${SHARED_PROXY_SUBJECT}:`) === true;
/** Per-address limits give that shared bucket this many times one address's allowance. */
export const SHARED_PROXY_FACTOR = 50;

/**
 * The tool server's toolsets, each at `/api/mcp/x/<name>` (mcp/catalog.ts says what each holds). Named here,
 * at the bottom, so that the OAuth server can tell a toolset URL without loading the tools.
 */
export const MCP_TOOLSET_NAMES = ["core", "designs", "webhooks", "jobs", "campaigns", "gs1", "domains", "conversions"] as const;
