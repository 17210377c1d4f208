// Key scopes and what a signed-in console user gets (docs/decisions.md, "Scopes").
import { z } from "zod";

export const SCOPES = ["merchant:read", "qr:write", "menu:write", "audio:write", "challenge:write"] as const;
export type Scope = (typeof SCOPES)[number];
export const ScopeSchema = z.enum(SCOPES);

/** Console users (owner or member) act with every tool scope: the console is first-party and tools only draft. */
export const CONSOLE_USER_SCOPES: readonly Scope[] = SCOPES;
