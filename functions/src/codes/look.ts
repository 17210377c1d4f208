// The spec's rules for a code's look, in one place for create (codes/service.ts), the console's preview
// route and the console form's hint: a boost frame replaces the template; the soundSeal template and a
// scan sound make the code dynamic. Bundle-safe (the console imports it): constants only, no Node modules.
import type { BoostFrame, ScanBeepSound, Template } from "../core/constants";

interface LookChoice {
  dynamic?: boolean | null;
  template?: Template | null;
  boostFrame?: BoostFrame | null;
  scanBeepSound?: ScanBeepSound | null;
}

export interface Look {
  /** The template the code keeps: none when a boost frame replaces it. */
  template: Template | null;
  boostFrame: BoostFrame | null;
  /** The frame drawn around the code. */
  frame: Template | BoostFrame | null;
  dynamic: boolean;
  /** What made the code dynamic when the caller did not ask for it (or asked, and it was forced anyway). */
  forcedDynamicBy: "soundSeal" | "scanBeepSound" | null;
  /** A template was chosen and a boost frame replaced it. */
  templateReplaced: boolean;
}

export function effectiveLook(input: LookChoice): Look {
  const boostFrame = input.boostFrame ?? null;
  const template = boostFrame ? null : (input.template ?? null);
  const forcedDynamicBy = template === "soundSeal" ? "soundSeal" : input.scanBeepSound ? "scanBeepSound" : null;
  return {
    template,
    boostFrame,
    frame: boostFrame ?? template,
    dynamic: Boolean(input.dynamic) || forcedDynamicBy !== null,
    forcedDynamicBy,
    templateReplaced: Boolean(boostFrame && input.template),
  };
}
