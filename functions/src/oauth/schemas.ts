// Inputs of the consent page's API (zod, strict like every other edge).
import { z } from "zod";
import { ScopeSchema } from "../auth/scopes";

export const DecisionSchema = z
  .object({
    approve: z.boolean(),
    scopes: z.array(ScopeSchema).max(10).optional(),
  })
  .strict();
