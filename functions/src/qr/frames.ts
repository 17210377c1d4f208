// Server-side frames. Each frame is drawn once per instance from SVG (paths only, no fonts) into a raw
// RGB canvas; a code is then written into the frame's white square, which always holds the whole code
// and its 4-module quiet zone, so a frame never covers a module.
import { textPath, textWidth } from "./font";
import { BOOST_FRAMES, TEMPLATES } from "../core/constants";

export { BOOST_FRAMES, TEMPLATES };
export type Template = (typeof TEMPLATES)[number];
export type BoostFrame = (typeof BOOST_FRAMES)[number];
export type FrameName = Template | BoostFrame;

export const FRAME_SIDE = 1024;

export interface FrameSpec {
  svg: string;
  /** The white square where the code (with its quiet zone) goes. */
  box: { left: number; top: number; side: number };
}

const C = FRAME_SIDE / 2;

function hexagonPoints(radius: number): string {
  return Array.from({ length: 6 }, (_, i) => {
    const angle = (Math.PI / 180) * (90 + 60 * i);
    return `${(C + radius * Math.cos(angle)).toFixed(2)},${(C + radius * Math.sin(angle)).toFixed(2)}`;
  }).join(" ");
}

function svgDoc(body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${FRAME_SIDE}" height="${FRAME_SIDE}" viewBox="0 0 ${FRAME_SIDE} ${FRAME_SIDE}">${body}</svg>`;
}

function hexSeal(): FrameSpec {
  // Pointy-top hexagon: a centred square of side q fits inside circumradius R when R >= 0.789 q.
  const side = 560;
  const ink = "#111827";
  const svg = svgDoc(
    `<rect width="100%" height="100%" fill="#ffffff"/>` +
      `<polygon points="${hexagonPoints(500)}" fill="${ink}"/>` +
      `<polygon points="${hexagonPoints(456)}" fill="#ffffff"/>` +
      `<path d="${textPath("SVC", C, C + side / 2 + 28, 10)}" fill="${ink}"/>`,
  );
  return { svg, box: { left: C - side / 2, top: C - side / 2, side } };
}

function soundSeal(): FrameSpec {
  const side = 560; // half-diagonal 396 < inner ring radius 455
  const ink = "#6d28d9";
  const label = "SOUND CODE";
  const svg = svgDoc(
    `<rect width="100%" height="100%" fill="#ffffff"/>` +
      `<circle cx="${C}" cy="${C}" r="478" fill="none" stroke="${ink}" stroke-width="30" stroke-dasharray="46 22" stroke-linecap="round"/>` +
      `<path d="${textPath(label, C, C + side / 2 + 22, 6)}" fill="${ink}"/>` +
      `<path d="${textPath("SCAN TO HEAR", C, C - side / 2 - 22 - 42, 6)}" fill="${ink}"/>`,
  );
  return { svg, box: { left: C - side / 2, top: C - side / 2, side } };
}

const BOOST_STYLE: Record<BoostFrame, { from: string; to: string; badge: string; text: string }> = {
  svc_x3_bluepurple: { from: "#2563eb", to: "#7c3aed", badge: "3X", text: "#ffffff" },
  svc_x5_gold: { from: "#f59e0b", to: "#92400e", badge: "5X", text: "#ffffff" },
  svc_x3_sunset: { from: "#f97316", to: "#be123c", badge: "3X", text: "#ffffff" },
  svc_x5_midnight: { from: "#1e1b4b", to: "#020617", badge: "5X", text: "#c7d2fe" },
};

function boostFrame(name: BoostFrame): FrameSpec {
  const style = BOOST_STYLE[name];
  const side = 640;
  const top = 216;
  const headline = `${style.badge} POINTS`;
  const cell = 13;
  const svg = svgDoc(
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${style.from}"/><stop offset="1" stop-color="${style.to}"/></linearGradient></defs>` +
      `<rect width="100%" height="100%" rx="64" fill="url(#g)"/>` +
      `<rect x="${C - textWidth(headline, cell) / 2 - 36}" y="40" width="${textWidth(headline, cell) + 72}" height="${7 * cell + 40}" rx="${(7 * cell + 40) / 2}" fill="#000000" fill-opacity="0.25"/>` +
      `<path d="${textPath(headline, C, 60, cell)}" fill="${style.text}"/>` +
      `<rect x="72" y="${top - 40}" width="${FRAME_SIDE - 144}" height="${side + 120}" rx="40" fill="#ffffff"/>` +
      `<path d="${textPath("SCAN TO EARN", C, top + side + 30, 6)}" fill="${style.to}"/>` +
      `<path d="${textPath("SVC BOOST", C, FRAME_SIDE - 66, 6)}" fill="${style.text}"/>`,
  );
  return { svg, box: { left: C - side / 2, top, side } };
}

export function frameSpec(name: FrameName): FrameSpec {
  if (name === "hexSeal") return hexSeal();
  if (name === "soundSeal") return soundSeal();
  return boostFrame(name);
}
