// Worker thread entry: decodes SVG documents (librsvg raster, then both decoders down the sizes) for
// svgCheck.ts, so a new code's SVG is checked on another core while its PNG is drawn and checked.
import { parentPort } from "node:worker_threads";
import { decodeSvg } from "./verify";

export interface SvgCheckRequest {
  id: number;
  svg: string;
  expected: string;
  /** Check sizes (default VERIFY_SIDES). */
  sides?: readonly number[];
}

// eslint-disable-next-line @typescript-eslint/no-misused-promises -- it answers every failure itself
parentPort?.on("message", async ({ id, svg, expected, sides }: SvgCheckRequest) => {
  try {
    parentPort!.postMessage({ id, outcomes: await decodeSvg(svg, expected, sides) });
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
