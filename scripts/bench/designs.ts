// Styled codes with a logo, each decoded by both decoders at three sizes before it counts as made (the
// guarantee is part of the figure), next to a peer-style baseline measured in the same run: qrcode's
// coloured 1024 px PNG at level H, which draws no logo and checks nothing.
import QRCode from "qrcode";
import sharp from "sharp";
import { DEFAULT_DESIGN, renderDesignedFiles, renderDesignedSvg, type StoredDesign } from "../../functions/src/designs/design";
import { normalizeLogo, storeLogo } from "../../functions/src/designs/logo";
import { fmt, percentile, timesMs } from "./measure";

const URL_SAMPLE = "https://shop.example.com/menu?table=12&utm_source=qr";
const GOAL_P95_MS = 50;

async function benchLogo(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="200"><rect x="8" y="8" width="224" height="184" rx="30" fill="#DC2626"/><circle cx="120" cy="100" r="50" fill="#ffffff"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

const line = (label: string, times: number[], extra = "") =>
  console.log(`  ${label.padEnd(52)} p50 ${fmt(percentile(times, 50)).padStart(6)} ms   p95 ${fmt(percentile(times, 95)).padStart(6)} ms${extra}`);

export async function benchDesigns(): Promise<void> {
  console.log("\n[qr] styled codes with a logo, decode checks included (sequential, a new payload each run)");
  const logo = await normalizeLogo((await benchLogo()).toString("base64"), "image/png");
  const stored = await storeLogo("bench", logo);
  const design: StoredDesign = { ...DEFAULT_DESIGN, foreground: "#1E3A8A", background: "#FEF3C7", moduleStyle: "rounded", eyeStyle: "circle", logo: stored };
  let i = 0;
  const payload = () => `${URL_SAMPLE}&n=${i++}`;
  // Lead-in: loads sharp, the WASM decoder and jsQR, as an instance's first design would.
  await renderDesignedFiles(payload(), design, null);
  const baseline = await timesMs(40, () => QRCode.toBuffer(payload(), { width: 1024, errorCorrectionLevel: "H", color: { dark: "#1E3A8AFF", light: "#FEF3C7FF" } }));
  const png = await timesMs(60, async () => (await renderDesignedFiles(payload(), design, null)).png);
  const svg = await timesMs(60, () => renderDesignedSvg(payload(), design, null));
  const framed = await timesMs(30, async () => (await renderDesignedFiles(payload(), design, "svc_x3_sunset")).png);
  const goal = (t: number[]) => `   goal p95 <= ${GOAL_P95_MS} ms: ${percentile(t, 95) <= GOAL_P95_MS ? "met" : "not met"}`;
  line("qrcode.toBuffer, 1024 px, colours, level H (baseline)", baseline);
  line("svc styled PNG with logo, 1024 px, checked", png, `   ${fmt(percentile(png, 50) / percentile(baseline, 50), 2)}x baseline${goal(png)}`);
  line("svc styled SVG with logo, checked", svg, goal(svg));
  line("svc styled PNG with logo in a boost frame, checked", framed, goal(framed));
}
