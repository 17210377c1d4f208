import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { strFromU8, unzipSync } from "fflate";
import Papa from "papaparse";
import { PDFArray, PDFDocument, PDFRawStream, StandardFonts, decodePDFRawStream } from "pdf-lib";
import type { QrCode } from "../../functions/src/codes/model";
import { encodedPayload, renderCodeSvg } from "../../functions/src/codes/service";
import { decodeSvgBeside } from "../../functions/src/designs/svgCheck";
import { AppError } from "../../functions/src/core/errors";
import { DEFAULT_DESIGN, type StoredDesign } from "../../functions/src/designs/design";
import { renderPdf } from "../../functions/src/codes/print";
import { CHECK_SIDES, MANIFEST_COLUMNS, PIPELINE_DEPTH, assemblePrintPackage, checkPdfDecodes, csvCell, readPackagePart, sheetLayout, shortIdOf, writePackagePart, writePrintPackage, type PrintPackageOptions } from "../../functions/src/jobs/printPackage";
import { renderPdfPage, ptToMm } from "../helpers/pdf";
import { decodePng, decodeSvg } from "../helpers/qr";
import { readZip } from "../helpers/zip";
import { atFullScale, scaled } from "../helpers/scale";


const BRAND: StoredDesign = { ...DEFAULT_DESIGN, foreground: "#1E3A8A", background: "#FEF3C7", moduleStyle: "rounded", eyeStyle: "circle" };
/** Grey on grey: refused when drawn (low contrast), as a stored design might be under a newer rule. */
const REFUSED: StoredDesign = { ...DEFAULT_DESIGN, foreground: "#777777", background: "#888888" };

function qrCode(i: number, fields: Partial<QrCode> = {}): QrCode {
  const uniqueQRCodeID = `Qx${String(i).padStart(4, "0")}Zk9mPw`;
  return {
    codeId: `code${String(i).padStart(5, "0")}`,
    merchantId: "merchant1",
    uniqueQRCodeID,
    title: `Table ${i}`,
    destinationUrl: `https://example.com/menu?table=${i}`,
    campaign: null,
    tags: [],
    dynamic: true,
    dynamicLink: `https://go.example.com/qr/${uniqueQRCodeID}`,
    template: null,
    scanBeepSound: null,
    boostFrame: null,
    design: null,
    qrImageUrl: "",
    imagePath: "",
    imageToken: "",
    status: "published",
    source: "tool",
    createdAt: new Date("2026-01-02T10:00:00Z"),
    updatedAt: new Date("2026-01-03T10:00:00Z"),
    ...fields,
  };
}

async function* paged(codes: QrCode[]): AsyncGenerator<QrCode> {
  for (const code of codes) yield code;
}

/** A Writable that keeps what it is given, taking it slowly (a small buffer, a turn of the event loop per chunk). */
function memoryOut() {
  const chunks: Buffer[] = [];
  let writes = 0;
  const out = new Writable({
    highWaterMark: 4096,
    write(chunk: Buffer, _encoding, done) {
      writes++;
      chunks.push(chunk);
      setImmediate(done);
    },
  });
  return { out, bytes: () => Buffer.concat(chunks), writes: () => writes };
}

async function build(codes: QrCode[], options: PrintPackageOptions) {
  const { out, bytes } = memoryOut();
  const result = await writePrintPackage(paged(codes), options, out);
  const zip = bytes();
  assert.equal(zip.length, result.bytes);
  const files = unzipSync(zip);
  // The central directory read independently (node's inflate) gives the same entries and bytes.
  const again = readZip(zip);
  assert.deepEqual([...again.keys()], Object.keys(files));
  for (const [name, data] of again) assert.ok(Buffer.from(files[name]).equals(data), name);
  return { result, files, zip };
}

function manifestRows(csv: Uint8Array): Record<string, string>[] {
  const text = Buffer.from(csv).toString("utf8"); // TextDecoder (strFromU8) would drop the byte-order mark
  assert.ok(text.startsWith("\ufeff"), "UTF-8 byte-order mark (spreadsheets read the titles as UTF-8)");
  const parsed = Papa.parse<Record<string, string>>(text.slice(1), { header: true, skipEmptyLines: true });
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(parsed.meta.fields, [...MANIFEST_COLUMNS]);
  return parsed.data;
}

/** Every content stream of every page of a PDF, as text. */
async function pageContents(pdf: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(pdf);
  return doc.getPages().map((page) => {
    const contents = page.node.Contents()!;
    const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => doc.context.lookup(ref)) : [contents];
    return streams.map((s) => Buffer.from(decodePDFRawStream(s as PDFRawStream).decode()).toString("latin1")).join("\n");
  });
}

/** The strings a page shows (pdf-lib writes Helvetica text as hex strings). */
const shownText = (content: string) => [...content.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)].map((m) => Buffer.from(m[1], "hex").toString("latin1"));
const operatorCount = (content: string, op: string) => content.split(/\s+/).filter((t) => t === op).length;

describe("print package (jobs/printPackage)", function () {
  this.timeout(120_000);

  const codes = [
    qrCode(1),
    qrCode(2, { dynamic: false, dynamicLink: null, title: '=HYPERLINK("http://evil.example","x")' }),
    qrCode(3, { design: BRAND, title: 'Patio, "north"\nside' }),
    qrCode(4, { boostFrame: "svc_x3_sunset", template: null, title: "+1 café ☕" }),
    qrCode(5, { template: "hexSeal", title: "@SUM(A1)" }),
    qrCode(6, { design: REFUSED, title: "-refused" }),
  ];

  it("streams a ZIP whose SVGs and PDFs decode to each code's payload, with a matching, formula-safe manifest", async () => {
    const { result, files } = await build(codes, { sideMm: 40, sheets: { paper: "a4" } });
    const drawn = codes.slice(0, 5);
    assert.deepEqual(result, { files: 2 * drawn.length + 2, codes: codes.length, undecoded: 1, sheetPages: 1, bytes: result.bytes });
    assert.deepEqual(Object.keys(files), [...drawn.flatMap((c) => [`${c.codeId}.svg`, `${c.codeId}.pdf`]), "sheets-001.pdf", "manifest.csv"]);

    for (const code of drawn) {
      const payload = encodedPayload(code);
      const svg = strFromU8(files[`${code.codeId}.svg`]);
      const pdf = Buffer.from(files[`${code.codeId}.pdf`]);
      assert.equal(svg, await renderCodeSvg(code), "the SVG the service serves");
      assert.ok(pdf.equals(await renderPdf(code, 40, code.title)), "the PDF the service serves, at 40 mm");
      // A third decoder (jsQR), independent of the two the package uses.
      assert.equal((await decodeSvg(svg, 800)).payload, payload, `${code.codeId}.svg`);
      const page = await renderPdfPage(pdf, 800); // rendered by poppler
      assert.equal(Math.round(ptToMm(page.widthPt) * 100) / 100, 40);
      assert.equal(decodePng(page.png).payload, payload, `${code.codeId}.pdf`);
    }

    const rows = manifestRows(files["manifest.csv"]);
    assert.deepEqual(
      rows.map((r) => [r.codeId, r.uniqueQRCodeID, r.scanUrl, r.svgDecoded, r.pdfDecoded]),
      codes.map((c, i) => [c.codeId, c.uniqueQRCodeID, encodedPayload(c), String(i < 5), String(i < 5)]),
    );
    assert.equal(rows[0].scanUrl, codes[0].dynamicLink, "a dynamic code encodes its link");
    assert.equal(rows[1].scanUrl, codes[1].destinationUrl, "a static code encodes its destination");
    assert.deepEqual(
      rows.map((r) => r.title),
      ["Table 1", `'=HYPERLINK("http://evil.example","x")`, 'Patio, "north"\nside', "'+1 café ☕", "'@SUM(A1)", "'-refused"],
      "formulas are neutralised with a leading quote; quotes, commas and line breaks survive",
    );
    assert.deepEqual(rows.slice(0, 5).map((r) => r.note), ["", "", "", "", ""]);
    assert.match(rows[5].note, /^no files: .*[Cc]ontrast/, "a refused design has no files, and says why");
    const raw = Buffer.from(files["manifest.csv"]).toString("utf8");
    assert.ok(raw.includes(`,"'=HYPERLINK(""http://evil.example"",""x"")",`), "RFC 4180 quoting, quotes doubled");
    assert.ok(raw.includes("\r\n"), "CRLF rows");
  });

  it("imposes label sheets: a grid per page, crop marks at each label's corners, each short id under its code", async () => {
    const many = Array.from({ length: 30 }, (_, i) => qrCode(100 + i));
    const layout = sheetLayout("a4", 40);
    assert.deepEqual([layout.columns, layout.rows], [4, 5], "40 mm labels on A4: 4 by 5");
    const expectedPages = Math.ceil(many.length / layout.perPage);
    assert.equal(expectedPages, 2);

    const one = await build(many, { sideMm: 40, sheets: { paper: "a4" } });
    assert.equal(one.result.sheetPages, 2);
    const sheet = one.files["sheets-001.pdf"];
    const doc = await PDFDocument.load(sheet);
    assert.equal(doc.getPageCount(), expectedPages);
    for (const page of doc.getPages()) {
      const { width, height } = page.getSize();
      assert.deepEqual([Math.round(ptToMm(width)), Math.round(ptToMm(height))], [210, 297]);
    }
    const pages = await pageContents(sheet);
    assert.deepEqual(
      pages.map((content) => shownText(content).length),
      [20, 10],
    );
    assert.deepEqual(pages.flatMap(shownText), many.map(shortIdOf), "each code's short id, in order");
    assert.equal(shortIdOf(many[0]), "Qx0100Zk");
    for (const [i, content] of pages.entries()) {
      const labels = i === 0 ? 20 : 10;
      assert.equal(operatorCount(content, "Do"), labels, "each label draws its code's PDF");
      assert.equal(operatorCount(content, "S"), labels * 8, "two crop marks at each of a label's four corners");
    }

    // Split into files of at most one page: the memory a sheets file takes is bounded.
    const split = await build(many, { sideMm: 40, sheets: { paper: "a4", pagesPerFile: 1 } });
    const sheetFiles = Object.keys(split.files).filter((name) => name.startsWith("sheets-"));
    assert.deepEqual(sheetFiles, ["sheets-001.pdf", "sheets-002.pdf"]);
    for (const name of sheetFiles) assert.equal((await PDFDocument.load(split.files[name])).getPageCount(), 1);
    assert.ok(Object.keys(split.files).indexOf("sheets-001.pdf") < Object.keys(split.files).indexOf(`${many[29].codeId}.svg`), "a full sheets file is written as soon as it is full");
  });

  it("gives the same ZIP from parts of a few codes, written and read back, as from one go: sheets across parts, refused and designed codes alike", async () => {
    const codes = Array.from({ length: 13 }, (_, i) => qrCode(40 + i, i === 3 ? { design: REFUSED } : i === 8 ? { design: BRAND } : { updatedAt: new Date(Date.UTC(2026, 0, 3 + (i % 4))) }));
    const options: PrintPackageOptions = { sideMm: 30, sheets: { paper: "a4", labelMm: 60, pagesPerFile: 1 } };
    const { zip: whole } = await build(codes, options);
    const parts: Buffer[] = [];
    for (let start = 0; start < codes.length; ) {
      const { out, bytes } = memoryOut();
      const part = await writePackagePart(paged(codes.slice(start)), options, out, { codes: 4, budgetMs: 600_000, bytes: 1 << 30 });
      assert.equal(part.exhausted, start + part.codes === codes.length);
      assert.equal(part.lastCodeId, codes[start + part.codes - 1].codeId);
      parts.push(bytes());
      start += part.codes;
    }
    assert.equal(parts.length, 4);
    async function* drawn() {
      for (const part of parts) yield* readPackagePart(part);
    }
    const { out, bytes } = memoryOut();
    await assemblePrintPackage(drawn(), options, out);
    assert.ok(bytes().equals(whole), "byte for byte the same ZIP");
    // A slice also ends at its time budget, after the code that reached it.
    let now = 0;
    const timed = await writePackagePart(paged(codes), options, memoryOut().out, { codes: 100, budgetMs: 3, bytes: 1 << 30 }, () => now++);
    assert.deepEqual([timed.codes, timed.exhausted], [3, false]);
  });

  it("refuses invalid options with VALIDATION_FAILED before writing anything", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ sideMm: 9 }, /sideMm must be a whole number of millimetres from 10 to 2000/],
      [{ sideMm: 40.5 }, /sideMm/],
      [{ sideMm: 2001 }, /sideMm/],
      [{ sideMm: "40" }, /sideMm/],
      [{ sideMm: 40, sheets: { paper: "a3" } }, /sheets.paper must be "a4" or "letter"/],
      [{ sideMm: 40, sheets: { paper: "a4", labelMm: 250 } }, /A 250 mm label .* does not fit on A4 paper: at most 190 mm/],
      [{ sideMm: 300, sheets: { paper: "letter" } }, /does not fit on Letter paper/],
      [{ sideMm: 40, sheets: { paper: "a4", labelMm: 5 } }, /sheets.labelMm/],
      [{ sideMm: 40, sheets: { paper: "a4", pagesPerFile: 0 } }, /sheets.pagesPerFile must be a whole number from 1 to 100/],
    ];
    for (const [options, message] of cases) {
      const { out, writes } = memoryOut();
      await assert.rejects(writePrintPackage(paged([qrCode(1)]), options as PrintPackageOptions, out), (error: unknown) => {
        assert.ok(error instanceof AppError, String(error));
        assert.equal(error.code, "VALIDATION_FAILED");
        assert.match(error.message, message);
        return true;
      });
      assert.equal(writes(), 0, JSON.stringify(options));
    }
    // A code id that would name a file outside the package, or a code given twice.
    for (const list of [[qrCode(1, { codeId: "../etc/passwd" })], [qrCode(1), qrCode(1)]]) {
      const { out } = memoryOut();
      await assert.rejects(writePrintPackage(paged(list), { sideMm: 40 }, out), (error: unknown) => error instanceof AppError && error.code === "VALIDATION_FAILED");
      assert.ok(out.destroyed, "a partial package is never finished");
    }
  });

  it("neutralises formulas and quotes CSV cells per RFC 4180", () => {
    assert.equal(csvCell("=1+2"), "'=1+2");
    assert.equal(csvCell("+33 1 23"), "'+33 1 23");
    assert.equal(csvCell("-5"), "'-5");
    assert.equal(csvCell("@cmd"), "'@cmd");
    assert.equal(csvCell("\tTab"), "'\tTab");
    assert.equal(csvCell("\r=x"), `"'\r=x"`);
    assert.equal(csvCell('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
    assert.equal(csvCell("a,b"), '"a,b"');
    assert.equal(csvCell("line\nbreak"), '"line\nbreak"');
    assert.equal(csvCell("plain 1=1"), "plain 1=1");
    assert.equal(csvCell(true), "true");
  });

  it("reports a PDF as decoded only when what it paints was read back and decoded; anything else is not guessed", async () => {
    const code = qrCode(7);
    const payload = encodedPayload(code);
    assert.deepEqual(await checkPdfDecodes(await renderPdf(code, 30, "t"), payload), { ok: true });
    assert.equal((await checkPdfDecodes(await renderPdf(code, 30, "t"), "https://other.example/")).ok, false, "another payload");

    // The same code with a caption in text: the reader does not interpret text, so it says so.
    const doc = await PDFDocument.load(await renderPdf(code, 30, "t"));
    doc.getPage(0).drawText("Scan me", { x: 2, y: 2, size: 4, font: await doc.embedFont(StandardFonts.Helvetica) });
    const withText = await checkPdfDecodes(await doc.save(), payload);
    assert.equal(withText.ok, false);
    assert.match(withText.why!, /text/);

    const blank = await PDFDocument.create();
    blank.addPage([100, 100]);
    const empty = await checkPdfDecodes(await blank.save(), payload);
    assert.equal(empty.ok, false);
    assert.match(empty.why!, /read nothing/);
  });

  it("loads fflate, pdf-lib, sharp and the decoders only when a package is made (cold starts)", () => {
    const module = path.resolve(__dirname, "../../functions/src/jobs/printPackage");
    const script = `
      require(${JSON.stringify(module)});
      const loaded = ["fflate", "pdf-lib", "sharp", "zxing-wasm"].filter((m) => Object.keys(require.cache).some((f) => f.includes("/node_modules/" + m + "/")));
      console.log(JSON.stringify(loaded));`;
    const file = path.join(mkdtempSync(path.join(tmpdir(), "print-package-lazy-")), "lazy.cjs");
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, ["--import", "tsx", file], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr + run.stdout);
    assert.deepEqual(JSON.parse(run.stdout.trim().split("\n").pop()!), []);
  });

  it("honours backpressure: no code beyond the pipeline's depth is drawn while the output is full", async () => {
    const held: Array<() => void> = [];
    let release = false;
    const out = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        if (release) setImmediate(done);
        else held.push(done);
      },
    });
    let pulled = 0;
    async function* counted() {
      for (let i = 0; i < PIPELINE_DEPTH + 3; i++) {
        pulled++;
        yield qrCode(200 + i);
      }
    }
    const writing = writePrintPackage(counted(), { sideMm: 30 }, out);
    const started = Date.now();
    while (held.length === 0 && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(pulled, PIPELINE_DEPTH, "stuck on the first code's files until the output drains, with the next codes drawn ahead");
    release = true;
    held.splice(0).forEach((done) => done());
    const result = await writing;
    assert.equal(pulled, PIPELINE_DEPTH + 3);
    assert.equal(result.codes, PIPELINE_DEPTH + 3);
  });

  it(`keeps memory flat: ${scaled(300, 100)} codes with label sheets stream out as they are drawn, retaining far less than the package`, async function () {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const settle = () => new Promise((resolve) => setTimeout(resolve, 30));
    /**
     * This thread's memory after collection (the SVG check worker's is its own): `buffers` (ArrayBuffers:
     * every file, chunk and Buffer the package makes) is exact once a GC has freed them, which it does
     * concurrently, hence the pauses; `heap` moves by ~0.5 MB either way with compiled and flushed code.
     */
    const retained = async () => {
      for (let i = 0; i < 2; i++) {
        gc();
        await settle();
      }
      const m = process.memoryUsage();
      return { heap: m.heapUsed, buffers: m.arrayBuffers };
    };
    const MB = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;
    // Six 60 mm labels a page, a page a file: what is held of the sheets at any time is small.
    // One code at a time: what the package keeps is then measured without the few codes drawn ahead of the
    // one being written (at most PIPELINE_DEPTH codes' files and rasters: the backpressure test bounds them).
    const options: PrintPackageOptions = { sideMm: 40, sheets: { paper: "a4", labelMm: 60, pagesPerFile: 1 }, pipelineDepth: 1 };
    // The output is counted and dropped, as a Cloud Storage upload sends it on.
    const countingOut = () => {
      const seen = { bytes: 0, chunks: 0 };
      const out = new Writable({
        highWaterMark: 16 * 1024,
        write(chunk: Buffer, _encoding, done) {
          seen.bytes += chunk.length;
          seen.chunks++;
          setImmediate(done);
        },
      });
      return { out, seen };
    };
    // Warm up: modules, the decoders' WASM, pools, and the JIT (its compiled code counts as heap).
    await writePrintPackage(paged(Array.from({ length: 20 }, (_, i) => qrCode(800 + i))), options, countingOut().out);

    // What checking a code leaves behind, wherever it runs: ZXing (zxing-wasm 3.1.4) keeps every result it
    // returns (readBarcodes never deletes its result vector), ~1.5 KB per decode, one ZXing decode per file (one size).
    // Measured here on the calls the package makes, on a code of the same size, so the bound below is
    // about the package itself. (Where the SVG check runs in its worker, that part is not on this thread.)
    const sample = qrCode(850);
    const payload = encodedPayload(sample);
    const [svg, pdf] = [await renderCodeSvg(sample), await renderPdf(sample, 40, sample.title)];
    const checks = () => Promise.all([decodeSvgBeside(svg, payload, CHECK_SIDES), checkPdfDecodes(pdf, payload)]);
    for (let i = 0; i < 5; i++) await checks();
    const K = scaled(40, 5);
    const calibrationStart = await retained();
    for (let i = 0; i < K; i++) await checks();
    const calibrationEnd = await retained();
    const checksPerCode = Math.max(0, (calibrationEnd.buffers - calibrationStart.buffers) / K);

    // 300 codes at full size (TEST_SCALE=1), over 2 MB of package, which the memory bounds below need to mean
    // something: they are held only then. Scaled (100 codes), the package must still stream as it is drawn.
    const N = scaled(300, 100);
    const before = await retained();
    const { out, seen } = countingOut();
    const samples: Array<{ codes: number; buffers: number; heap: number; received: number }> = [];
    async function* sampled() {
      for (let i = 0; i < N; i++) {
        if (i > 0 && i % 25 === 0) {
          const now = await retained();
          samples.push({ codes: i, buffers: now.buffers - before.buffers, heap: now.heap - before.heap, received: seen.bytes });
        }
        yield qrCode(1000 + i);
      }
    }
    const t0 = performance.now();
    const result = await writePrintPackage(sampled(), options, out);
    const elapsed = performance.now() - t0;
    const size = seen.bytes;
    // What the package holds beyond what the checks leave behind (measured above).
    const ownBuffers = samples.map((s) => s.buffers - checksPerCode * s.codes);
    const ownTotal = samples.map((s) => s.buffers + s.heap - checksPerCode * s.codes);
    const KB = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    console.log(
      `      ${N} codes: ${(elapsed / N).toFixed(1)} ms per code (SVG and PDF drawn, both decoded, label sheets), package ${MB(size)} (${KB(size / N)} per code) ` +
        `in ${seen.chunks} chunks, ${result.sheetPages} sheet pages in ${result.files - 2 * N - 1} files\n` +
        `      this thread's growth every 25 codes, buffers: ${samples.map((s) => MB(s.buffers)).join(", ")}\n` +
        `                                           heap: ${samples.map((s) => MB(s.heap)).join(", ")}\n` +
        `      the checks alone leave ${KB(checksPerCode)} of buffers per code here (ZXing's kept results; their heap part is too small to measure apart)\n` +
        `      the package itself: buffers peak ${MB(Math.max(...ownBuffers))}, heap and buffers peak ${MB(Math.max(...ownTotal))} (${KB(Math.max(...ownTotal) / N)} per code)`,
    );
    assert.equal(result.codes, N);
    assert.equal(result.undecoded, 0);
    assert.equal(result.bytes, size);
    // Streamed: by the time a code is asked for, the files of the codes before the last one have reached `out`.
    for (const s of samples) assert.ok(s.received >= (s.codes - 2) * 2000, `only ${s.received} bytes out after ${s.codes} codes`);
    // Buffering the package (its files, or the ZIP's bytes) would hold at least its size in buffers on top of
    // what streaming keeps: the ZIP's central directory (fflate: ~1.4 KB per entry, mostly heap), the
    // deflated manifest and one sheets file.
    if (!atFullScale) return;
    assert.ok(size > 2 * 1024 * 1024, `package ${MB(size)}: large enough for the bounds to mean something`);
    assert.ok(Math.max(...ownBuffers) < size / 4, `the package held ${MB(Math.max(...ownBuffers))} of buffers against a package of ${MB(size)}`);
    // Heap and buffers together: a coarser bound (the heap moves by ~0.5 MB with compiled code, and holds the
    // central directory and ZXing's result objects), still under what holding the package would add.
    assert.ok(Math.max(...ownTotal) < 2 * size, `the package held ${MB(Math.max(...ownTotal))} in all against a package of ${MB(size)}`);
  });
});
