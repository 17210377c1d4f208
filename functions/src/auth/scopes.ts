// Key scopes and what a signed-in console user gets (docs/decisions.md, "Scopes").
import { z } from "zod";
import { ASK_BY_NAME_SCOPES, SCOPES, type Scope } from "../core/constants";

export { ASK_BY_NAME_SCOPES, SCOPES, type Scope };
export const ScopeSchema = z.enum(SCOPES);

/** Console users (owner or member) act with every tool scope: the console is first-party and tools only draft. */
export const CONSOLE_USER_SCOPES: readonly Scope[] = SCOPES;
