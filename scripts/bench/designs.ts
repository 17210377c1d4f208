// Styled codes with a logo, each decoded by both decoders at three sizes before it counts as made (the
// guarantee is part of the figure), next to baselines measured in the same run: qrcode's coloured 1024 px
// PNG at level H (draws no logo, checks nothing), and, with `npm run bench designs`, the plain and framed
// PNG figures. No emulator is needed: the logo is handed over as the service's logo cache would.
import QRCode from "qrcode";
import sharp from "sharp";
import { checkedFiles, checkedSvg, DEFAULT_DESIGN, drawDesign, type StoredDesign } from "../../functions/src/designs/design";
import { normalizeLogo } from "../../functions/src/designs/logo";
import { renderFramedPng, renderPlainPng, warmFrames } from "../../functions/src/qr/render";
import { fmt, medianMs, percentile, timesMs } from "./measure";

const URL_SAMPLE = "https://shop.example.com/menu?table=12&utm_source=qr";
const GOAL_P95_MS = 50;

async function benchLogo(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="200"><rect x="8" y="8" width="224" height="184" rx="30" fill="#DC2626"/><circle cx="120" cy="100" r="50" fill="#ffffff"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

const line = (label: string, times: number[], extra = "") =>
  console.log(`  ${label.padEnd(52)} p50 ${fmt(percentile(times, 50)).padStart(6)} ms   p95 ${fmt(percentile(times, 95)).padStart(6)} ms${extra}`);

/** The plain 512 px PNG and a framed one beside their baseline, so the designed figures sit next to them. */
async function plainAndFramed(payload: () => string): Promise<void> {
  console.log("\n[qr] plain and framed PNGs (median)");
  const baseline = await medianMs(60, () => QRCode.toBuffer(payload(), { width: 512 }));
  const plain = await medianMs(2000, () => renderPlainPng(payload()));
  await warmFrames(["svc_x3_sunset"]);
  const framed = await medianMs(100, () => renderFramedPng(payload(), "svc_x3_sunset"));
  console.log(`  qrcode.toBuffer, 512 px, default options (baseline)  ${fmt(baseline, 3)} ms`);
  console.log(`  svc plain PNG, 512 px                                ${fmt(plain, 3)} ms   ratio ${fmt(baseline / plain, 1)}x faster`);
  console.log(`  svc framed 1024 px PNG, svc_x3_sunset                ${fmt(framed, 2)} ms`);
}

export async function benchDesigns(options: { withPlain?: boolean } = {}): Promise<void> {
  let i = 0;
  const payload = () => `${URL_SAMPLE}&n=${i++}`;
  if (options.withPlain) await plainAndFramed(payload);
  console.log("\n[qr] styled codes with a logo, decode checks included (sequential, a new payload each run)");
  const logo = await normalizeLogo((await benchLogo()).toString("base64"), "image/png");
  const design: StoredDesign = {
    ...DEFAULT_DESIGN,
    foreground: "#1E3A8A",
    background: "#FEF3C7",
    moduleStyle: "rounded",
    eyeStyle: "circle",
    logo: { path: "bench", sha256: logo.sha256, width: logo.width, height: logo.height },
  };
  const png = (frame: "svc_x3_sunset" | null) => {
    const p = payload();
    return checkedFiles(p, design, logo, frame);
  };
  const svg = () => {
    const p = payload();
    return checkedSvg(drawDesign(p, design, logo, null), p);
  };
  // Lead-in: loads sharp, the WASM decoder and qr, and draws the frame and the logo's pixels once, as an
  // instance's first design would.
  for (let k = 0; k < 5; k++) await Promise.all([png(null), png("svc_x3_sunset"), svg()]);
  const baseline = await timesMs(40, () => QRCode.toBuffer(payload(), { width: 1024, errorCorrectionLevel: "H", color: { dark: "#1E3A8AFF", light: "#FEF3C7FF" } }));
  const pngTimes = await timesMs(100, () => png(null));
  const svgTimes = await timesMs(100, svg);
  const framed = await timesMs(60, () => png("svc_x3_sunset"));
  const goal = (t: number[]) => `   goal p95 <= ${GOAL_P95_MS} ms: ${percentile(t, 95) <= GOAL_P95_MS ? "met" : "not met"}`;
  const ratio = (t: number[]) => `   ${fmt(percentile(t, 50) / percentile(baseline, 50), 2)}x baseline`;
  line("qrcode.toBuffer, 1024 px, colours, level H (baseline)", baseline);
  line("svc styled PNG with logo, 1024 px, PNG and SVG checked", pngTimes, `${ratio(pngTimes)}${goal(pngTimes)}`);
  line("svc styled SVG with logo, checked (the SVG route)", svgTimes, `${ratio(svgTimes)}${goal(svgTimes)}`);
  line("svc styled PNG with logo in a boost frame, both checked", framed, `${ratio(framed)}${goal(framed)}`);
}
