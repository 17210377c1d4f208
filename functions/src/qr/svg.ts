// Print-ready vector codes. The same matrix and error correction as the PNG renderer, with each row's dark
// runs drawn as rectangles in one path; framed codes reuse the frame's own SVG (it is paths only, no fonts),
// so nothing in the file is a bitmap and it scales to any print size.
import { FRAME_SIDE, frameSpec, type FrameName } from "./frames";
import { qrMatrixBestFit } from "./matrix";
import { QUIET_ZONE_MODULES, type QrMatrix } from "./png";
import { FRAMED_ERROR_CORRECTION, PLAIN_ERROR_CORRECTION, PLAIN_SIDE } from "./render";

/** Path data of the dark modules, in module units with (0,0) at the first module. */
export function modulePath(matrix: QrMatrix): string {
  const parts: string[] = [];
  for (let y = 0; y < matrix.size; y++) {
    let x = 0;
    while (x < matrix.size) {
      if (!matrix.data[y * matrix.size + x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < matrix.size && matrix.data[y * matrix.size + x]) x++;
      parts.push(`M${start} ${y}h${x - start}v1h${start - x}z`);
    }
  }
  return parts.join("");
}

/** The code with its quiet zone as a group filling a `side`-unit square whose top left is (left, top). */
function codeGroup(matrix: QrMatrix, left: number, top: number, side: number): string {
  const scale = side / (matrix.size + 2 * QUIET_ZONE_MODULES);
  const origin = (n: number) => +(n + QUIET_ZONE_MODULES * scale).toFixed(4);
  return (
    `<rect x="${left}" y="${top}" width="${side}" height="${side}" fill="#ffffff"/>` +
    `<path transform="translate(${origin(left)} ${origin(top)}) scale(${+scale.toFixed(6)})" fill="#000000" d="${modulePath(matrix)}"/>`
  );
}

function svgDocument(viewSide: number, pixelSide: number, body: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pixelSide}" height="${pixelSide}" viewBox="0 0 ${viewSide} ${viewSide}" shape-rendering="crispEdges">` +
    body +
    `</svg>\n`
  );
}

export function renderPlainSvg(payload: string): string {
  const matrix = qrMatrixBestFit(payload, PLAIN_ERROR_CORRECTION);
  const side = matrix.size + 2 * QUIET_ZONE_MODULES;
  return svgDocument(side, PLAIN_SIDE, codeGroup(matrix, 0, 0, side));
}

/** The frame's SVG without its outer element, so it can share a document with the code. */
function frameBody(svg: string): string {
  return svg.replace(/^<svg[^>]*>/, "").replace(/<\/svg>\s*$/, "");
}

export function renderFramedSvg(payload: string, frame: FrameName): string {
  const spec = frameSpec(frame);
  const matrix = qrMatrixBestFit(payload, FRAMED_ERROR_CORRECTION);
  // The frame keeps its anti-aliased curves; only the modules ask for crisp edges.
  const body = frameBody(spec.svg).replace(/^/, `<g shape-rendering="geometricPrecision">`) + `</g>` + codeGroup(matrix, spec.box.left, spec.box.top, spec.box.side);
  return svgDocument(FRAME_SIDE, FRAME_SIDE, body);
}

export function renderSvg(payload: string, frame: FrameName | null): string {
  return frame ? renderFramedSvg(payload, frame) : renderPlainSvg(payload);
}
