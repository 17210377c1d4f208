// Large pixel buffers lent out and taken back, per instance (and per worker thread). A fresh 4 MB buffer
// costs more in page faults on first touch than drawing into it (measured ~5 ms against ~1 ms here; sandboxed
// runtimes such as gVisor fault even more slowly), so the designed-code pipeline reuses its rasters. A buffer
// is given back only when nothing reads it any more (sharp's encoder and the decoders included).
const MAX_KEPT_PER_SIZE = 4;
const kept = new Map<number, Buffer[]>();

/** A buffer of `length` bytes with unspecified contents: every byte must be written before it is read. */
export function borrowPixels(length: number): Buffer {
  return kept.get(length)?.pop() ?? Buffer.allocUnsafeSlow(length);
}

/** Takes a borrowed buffer back for the next code; beyond a few per size it is left to the collector. */
export function returnPixels(buffer: Buffer): void {
  let list = kept.get(buffer.length);
  if (!list) kept.set(buffer.length, (list = []));
  if (list.length < MAX_KEPT_PER_SIZE && !list.includes(buffer)) list.push(buffer);
}
