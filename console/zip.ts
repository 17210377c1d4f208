// The import's ZIP of PNGs and SVGs, written with fflate. PNGs are stored as they are (already deflated);
// SVGs are deflated.
import { zipSync, type Zippable } from "fflate";

export function zip(files: Array<{ name: string; data: Uint8Array }>): Blob {
  const entries: Zippable = {};
  for (const f of files) entries[f.name] = [f.data, { level: f.name.endsWith(".png") ? 0 : 6 }];
  return new Blob([zipSync(entries) as BlobPart], { type: "application/zip" });
}
