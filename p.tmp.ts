import { DEFAULT_DESIGN } from "./functions/src/designs/design";
import { designedSvg } from "./functions/src/designs/svg";
import { qrMatrixBestFit } from "./functions/src/qr/matrix";
import { decodeAtSides } from "./functions/src/designs/verify";
async function main() {
  for (const moduleStyle of ["dots"]) for (const eyeStyle of ["square"]) {
    let fails = 0;
    for (let i = 0; i < 8; i++) {
      const p = `https://example.com/p/${i}?campaign=${"x".repeat(i * 7)}`;
      const svg = designedSvg(qrMatrixBestFit(p, ["Q", "M"]), { ...DEFAULT_DESIGN, moduleStyle, eyeStyle } as any, null, i % 2 ? "svc_x3_sunset" : null);
      const o = await decodeAtSides(Buffer.from(svg), "svg");
      if (o.some((x) => x.jsqr !== p || x.zxing !== p)) fails++;
    }
    console.log(moduleStyle, eyeStyle, fails, "/8");
  }
}
main();
