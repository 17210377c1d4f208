// Logos: decoded and re-encoded by sharp (so only pixels are kept: no metadata, no SVG, nothing
// fetched), scaled to at most LOGO_MAX_SIDE, stored with the workspace in the image store under a
// content address, and read back (with a small per-instance cache) whenever a code is drawn.
import { sha256 } from "../core/hash";
import { imageStore } from "../store/images";
import { LOGO_MAX_BYTES, type LOGO_MEDIA_TYPES } from "../core/constants";
import { designRefused } from "./refusal";
import type { LogoImage } from "./svg";
import { sharp } from "./verify";
import type { StoredLogo } from "../store/designRecord";

/** The logo is drawn at most ~250 px wide on a 1024 px image; 512 px keeps it sharp in print. */
export const LOGO_MAX_SIDE = 512;

/** A logo as stored on a design (store/designRecord.ts). */
export type { StoredLogo };

const FORMAT_OF: Record<(typeof LOGO_MEDIA_TYPES)[number], string> = { "image/png": "png", "image/jpeg": "jpeg", "image/webp": "webp" };

const cache = new Map<string, LogoImage>();
const CACHE_MAX = 64;

function remember(sha256: string, image: LogoImage): void {
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(sha256, image);
}

function unreadable(message: string): Error {
  return designRefused("logo-unreadable", message, "Send the logo as a PNG, JPEG or WebP file (base64), at most 256 KB; SVG is not accepted.");
}

/** Checks and re-encodes an uploaded logo; nothing is stored. */
export async function normalizeLogo(data: string, mediaType: (typeof LOGO_MEDIA_TYPES)[number]): Promise<LogoImage & { sha256: string }> {
  const bytes = Buffer.from(data, "base64");
  if (bytes.length > LOGO_MAX_BYTES) throw unreadable(`The logo is ${bytes.length} bytes; the limit is ${LOGO_MAX_BYTES}`);
  let format: string | undefined;
  try {
    format = (await sharp()(bytes, { limitInputPixels: 4096 * 4096 }).metadata()).format;
  } catch {
    throw unreadable("The logo is not a readable image");
  }
  if (format !== FORMAT_OF[mediaType]) throw unreadable(`The logo's bytes are ${format ?? "unknown"}, not ${mediaType}`);
  try {
    const { data: png, info } = await sharp()(bytes, { limitInputPixels: 4096 * 4096, animated: false })
      .rotate()
      .resize(LOGO_MAX_SIDE, LOGO_MAX_SIDE, { fit: "inside", withoutEnlargement: true })
      .png()
      .toBuffer({ resolveWithObject: true });
    return { png, width: info.width, height: info.height, sha256: sha256(png, "hex") };
  } catch {
    throw unreadable("The logo could not be decoded");
  }
}

/** Stores a normalised logo under the workspace (content-addressed: the same logo is stored once). */
export async function storeLogo(merchantId: string, logo: LogoImage & { sha256: string }): Promise<StoredLogo> {
  const path = `logos/${merchantId}/${logo.sha256.slice(0, 32)}.png`;
  await imageStore().put(path, logo.png);
  remember(logo.sha256, logo);
  return { path, sha256: logo.sha256, width: logo.width, height: logo.height };
}

export async function loadLogo(logo: StoredLogo): Promise<LogoImage> {
  const cached = cache.get(logo.sha256);
  if (cached) return cached;
  const image = { png: await imageStore().get(logo.path), width: logo.width, height: logo.height };
  remember(logo.sha256, image);
  return image;
}
