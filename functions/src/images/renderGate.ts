// At most RENDERS_IN_FLIGHT_MAX print files are drawn at once per instance: a 4096 px designed PNG
// peaks at about 140 MB while it is drawn and checked, and the images function (1 GiB, concurrency 80)
// serves every tenant's downloads. A request beyond that is answered 503 with Retry-After at once, before
// it reads or draws anything, rather than queued into the instance's memory.
import { AppError } from "../core/errors";

/** Renders one instance draws at once (4 x ~140 MB worst case, well under the function's 1 GiB). */
export const RENDERS_IN_FLIGHT_MAX = 4;
/** Seconds a refused caller is asked to wait: a render takes well under one. */
export const RENDER_RETRY_AFTER_SECONDS = 1;

let inFlight = 0;

/** Runs `render` in one of the instance's slots, or throws UNAVAILABLE (503) when all are taken. */
export async function withRenderSlot<T>(setHeader: (name: string, value: string) => unknown, render: () => Promise<T>): Promise<T> {
  if (inFlight >= RENDERS_IN_FLIGHT_MAX) {
    setHeader("Retry-After", String(RENDER_RETRY_AFTER_SECONDS));
    throw new AppError("UNAVAILABLE", "Busy drawing other files right now: try again in a second", { details: { retryAfterSeconds: RENDER_RETRY_AFTER_SECONDS } });
  }
  inFlight++;
  try {
    return await render();
  } finally {
    inFlight--;
  }
}

/** Renders in progress on this instance (for tests and the benchmark). */
export const rendersInFlight = (): number => inFlight;
