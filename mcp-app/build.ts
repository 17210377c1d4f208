// Builds the inline app's three ui:// pages at build time: one esbuild bundle (ext-apps App, the views,
// qrcode) inlined with its CSS into a self-contained HTML page per view, written where the tool server
// reads them (functions/lib/mcp/ui/<view>.html). Run: npm run build:mcp-app.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { build, type Plugin } from "esbuild";

const OUT = join(__dirname, "..", "functions", "lib", "mcp", "ui");
const VIEWS = { code: "QR code", scans: "Scan chart", menu: "Menu preview" } as const;
/** The page loads nothing: inline script and style only, no origin named anywhere. */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
const MAX_GZIP_BYTES = 150 * 1024;

// zod (used by the ext-apps client) exports every locale's messages; the app needs English only.
const zodEnglishOnly: Plugin = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${"/"}zod${"/"}`) ? { path: join(dirname(args.importer), "..", "locales", "en.js"), namespace: "zod-en" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-en" }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)};`, resolveDir: dirname(args.path) }));
  },
};

async function main(): Promise<void> {
  const result = await build({
    entryPoints: [join(__dirname, "main.ts")],
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    write: false,
    plugins: [zodEnglishOnly],
    legalComments: "none",
  });
  // "</script" inside the bundle would end the inline script early.
  const js = result.outputFiles[0].text.replace(/<\/script/gi, "<\\/script");
  const css = readFileSync(join(__dirname, "app.css"), "utf8");
  mkdirSync(OUT, { recursive: true });
  for (const [view, title] of Object.entries(VIEWS)) {
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta http-equiv="Content-Security-Policy" content="${CSP}"><title>${title}</title><style>${css}</style></head><body data-view="${view}"><main id="app"><p class="waiting">Waiting for the tool result…</p></main><script type="module">${js}</script></body></html>`;
    const gzipped = gzipSync(html).length;
    if (gzipped > MAX_GZIP_BYTES) throw new Error(`${view}.html is ${gzipped} bytes gzipped, over ${MAX_GZIP_BYTES}`);
    writeFileSync(join(OUT, `${view}.html`), html);
    console.log(`mcp-app: ${view}.html ${html.length} bytes, ${gzipped} gzipped`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
