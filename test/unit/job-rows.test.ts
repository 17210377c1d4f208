import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { AppError } from "../../functions/src/core/errors";
import { TAG_MAX, TAGS_MAX, TITLE_MAX, CAMPAIGN_MAX } from "../../functions/src/core/limits";
import {
  EXTERNAL_REF_MAX,
  JOB_MAX_INPUT_BYTES,
  JOB_MAX_ROWS,
  PREVIEW_ROWS,
  parseJobInput,
  previewMapping,
  type JobInput,
  type ParsedJobInput,
} from "../../functions/src/jobs/rows";

const csv = (text: string | Uint8Array, extra: Partial<Extract<JobInput, { format: "csv" }>> = {}) => parseJobInput({ format: "csv", text, ...extra });
const json = (items: unknown) => parseJobInput({ format: "json", items });

/** The AppError a call throws; fails when it returns or throws anything else. */
function fileError(fn: () => unknown, problem?: string): AppError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof AppError, `expected AppError, got ${String(e)}`);
    assert.equal(e.code, "VALIDATION_FAILED");
    assert.ok(e.hint && e.hint.length > 10, "a file error carries a hint");
    if (problem) assert.equal(e.details?.problem, problem, e.message);
    return e;
  }
  assert.fail("expected a file error");
}

const errorsOf = (parsed: ParsedJobInput, row: number) => parsed.errors.filter((e) => e.row === row);

/** Every data row is either returned or has at least one error, never both. */
function assertPartition(parsed: ParsedJobInput): void {
  const ok = new Set(parsed.rows.map((r) => r.row));
  const bad = new Set(parsed.errors.map((e) => e.row));
  for (const r of ok) assert.ok(!bad.has(r), `row ${r} is both returned and refused`);
  assert.equal(ok.size + bad.size, parsed.total);
}

describe("job rows: CSV columns", () => {
  it("reads the console import's header (title, url, campaign, tags) as before", () => {
    const parsed = csv("title,url,campaign,tags\nMenu,https://Example.com/menu,spring,a;b|c\nOffers,https://example.com/offers,,\n");
    assert.deepEqual(parsed.mapping, { title: "title", url: "destinationUrl", campaign: "campaign", tags: "tags" });
    assert.equal(parsed.format, "csv");
    assert.equal(parsed.delimiter, ",");
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(parsed.rows, [
      { row: 1, line: 2, value: { title: "Menu", destinationUrl: "https://example.com/menu", campaign: "spring", tags: ["a", "b", "c"], externalRef: null } },
      { row: 2, line: 3, value: { title: "Offers", destinationUrl: "https://example.com/offers", externalRef: null } },
    ]);
  });

  it("knows synonyms whatever their case, spaces, underscores or dashes", () => {
    const parsed = csv('NAME,Long_URL,Campaign Name,TAG,is-dynamic,External ID\nShop,https://shop.example/x,q3,"x, y, x",Yes,sku-1\n');
    assert.deepEqual(parsed.mapping, { NAME: "title", Long_URL: "destinationUrl", "Campaign Name": "campaign", TAG: "tags", "is-dynamic": "dynamic", "External ID": "externalRef" });
    assert.deepEqual(parsed.rows[0].value, { title: "Shop", destinationUrl: "https://shop.example/x", campaign: "q3", tags: ["x", "y"], dynamic: true, externalRef: "sku-1" });
    for (const [header, field] of [
      ["link", "destinationUrl"],
      ["Destination", "destinationUrl"],
      ["long url", "destinationUrl"],
      ["external_id", "externalRef"],
      ["externalRef", "externalRef"],
      ["id", "externalRef"],
      ["Key", "externalRef"],
      ["SKU", "externalRef"],
      ["Title", "title"],
    ] as const) {
      const cols = field === "destinationUrl" ? header : `url,${header}`;
      const cells = field === "destinationUrl" ? "https://a.example" : "https://a.example,v1";
      assert.equal(csv(`${cols}\n${cells}\n`).mapping[header], field, header);
    }
  });

  it("uses the more specific of two candidate columns and says so", () => {
    const parsed = csv("Link,URL,Name,Title\nhttps://a.example/link,https://a.example/url,n,t\n");
    assert.equal(parsed.mapping.URL, "destinationUrl");
    assert.equal(parsed.mapping.Title, "title");
    assert.deepEqual(parsed.unmapped, ["Link", "Name"]);
    assert.equal(parsed.warnings.length, 2);
    assert.match(parsed.warnings.join(" "), /"Link" also looks like destinationUrl; "URL" is used/);
    assert.equal(parsed.rows[0].value.destinationUrl, "https://a.example/url");
  });

  it("reports unknown columns as unmapped and ignores them", () => {
    const parsed = csv("url,Clicks,Notes\nhttps://a.example,3,hello\n");
    assert.deepEqual(parsed.unmapped, ["Clicks", "Notes"]);
    assert.deepEqual(parsed.rows[0].value, { destinationUrl: "https://a.example/", title: "a.example", externalRef: null });
  });

  it("refuses a header naming the same field twice", () => {
    const e = fileError(() => csv("url,URL\nhttps://a.example,https://b.example\n"), "duplicate_column");
    assert.match(e.message, /"url" \(column 1\) and "URL" \(column 2\)/);
  });

  it("an explicit mapping overrides the guess, can ignore columns, and is checked", () => {
    const text = "Target,url,Label,Code\nhttps://target.example,https://other.example,Spring,c1\n";
    const parsed = csv(text, { mapping: { Target: "destinationUrl", url: "ignore", Label: "campaign", Code: "externalRef" } });
    assert.deepEqual(parsed.mapping, { Target: "destinationUrl", Label: "campaign", Code: "externalRef" });
    assert.deepEqual(parsed.unmapped, ["url"]);
    assert.deepEqual(parsed.rows[0].value, { destinationUrl: "https://target.example/", campaign: "Spring", externalRef: "c1", title: "target.example" });
    // Explicit beats auto without a warning; header names match loosely when unambiguous.
    const loose = csv(text, { mapping: { target: "destinationurl" } });
    assert.equal(loose.mapping.Target, "destinationUrl");
    assert.ok(loose.unmapped.includes("url"));
    assert.deepEqual(loose.warnings, []);
    fileError(() => csv(text, { mapping: { Nope: "title" } }), "mapping");
    fileError(() => csv(text, { mapping: { Target: "colour" } }), "mapping");
    fileError(() => csv(text, { mapping: { Target: "destinationUrl", url: "destinationUrl" } }), "mapping");
    fileError(() => csv(text, { mapping: [] as unknown as Record<string, string> }), "mapping");
  });

  it("makes the title from the URL when the file has none", () => {
    const parsed = csv("url,title\nhttps://www.example.com/menu/,\n");
    assert.equal(parsed.rows[0].value.title, "example.com/menu");
  });

  it("reads dynamic as true/false, yes/no or 1/0 and refuses anything else", () => {
    const parsed = csv("url,dynamic\nhttps://a.example,TRUE\nhttps://a.example,no\nhttps://a.example,1\nhttps://a.example,0\nhttps://a.example,\nhttps://a.example,maybe\n");
    assert.deepEqual(parsed.rows.map((r) => r.value.dynamic), [true, false, true, false, undefined]);
    assert.match(errorsOf(parsed, 6)[0].message, /^dynamic: Must be true or false/);
  });

  it("accepts template, scanBeepSound and boostFrame in any case", () => {
    const parsed = csv("url,template,scan_beep_sound,boost frame\nhttps://a.example,HEXSEAL,Chime,svc_x3_sunset\nhttps://a.example,circle,,\n");
    assert.deepEqual(parsed.rows[0].value, { destinationUrl: "https://a.example/", template: "hexSeal", scanBeepSound: "chime", boostFrame: "svc_x3_sunset", title: "a.example", externalRef: null });
    assert.equal(errorsOf(parsed, 2)[0].column, "template");
  });
});

describe("job rows: other services' exports", () => {
  const BITLY =
    "Link,Custom Link,Date created,Title,Destination URL,Engagements,Status\n" +
    'https://bit.ly/AbC123,https://go.example.com/Launch,2026-06-01T08:30:00Z,"Launch, ""Summer""",https://dest.example/p?c=summer,1234,Active\n' +
    "https://bit.ly/Old1,,2025-01-01T00:00:00Z,,https://dest.example/old,0,Archived\n";
  const DUB =
    "Short link,Destination URL,Clicks,Created at,Link ID,Tags\n" +
    'https://dub.sh/launch,https://example.com/a,3,2026-01-01T00:00:00.000Z,link_1,"spring, promo"\n' +
    "https://acme.link/b/,https://example.com/b,0,2026-01-02T00:00:00.000Z,link_2,\n";

  it("detects a Bitly dashboard export and keys rows by their bitlink", () => {
    const parsed = csv(BITLY);
    assert.equal(parsed.format, "bitly");
    assert.deepEqual(parsed.mapping, { Link: "externalRef", Title: "title", "Destination URL": "destinationUrl" });
    assert.deepEqual(parsed.unmapped, ["Custom Link", "Date created", "Engagements", "Status"]);
    assert.deepEqual(parsed.warnings, []);
    assert.deepEqual(parsed.rows.map((r) => r.value), [
      { externalRef: "bit.ly/AbC123", title: 'Launch, "Summer"', destinationUrl: "https://dest.example/p?c=summer" },
      { externalRef: "bit.ly/Old1", title: "dest.example/old", destinationUrl: "https://dest.example/old" },
    ]);
  });

  it("detects Bitly's API field names (long_url, link, tags)", () => {
    const parsed = csv("id,link,long_url,title,tags,created_at\nbit.ly/x1,https://bit.ly/x1,https://example.com/x,X,a|b,2026-01-01\n");
    assert.equal(parsed.format, "bitly");
    assert.deepEqual(parsed.rows[0].value, { externalRef: "bit.ly/x1", destinationUrl: "https://example.com/x", title: "X", tags: ["a", "b"] });
  });

  it("detects a Dub export (column labels) and keys rows by the short link", () => {
    const parsed = csv(DUB);
    assert.equal(parsed.format, "dub");
    assert.deepEqual(parsed.mapping, { "Short link": "externalRef", "Destination URL": "destinationUrl", Tags: "tags" });
    assert.deepEqual(parsed.unmapped, ["Clicks", "Created at", "Link ID"]);
    assert.deepEqual(parsed.rows.map((r) => r.value), [
      { externalRef: "dub.sh/launch", destinationUrl: "https://example.com/a", title: "example.com/a", tags: ["spring", "promo"] },
      { externalRef: "acme.link/b", destinationUrl: "https://example.com/b", title: "example.com/b" },
    ]);
  });

  it("detects Dub's column ids and uses Link ID when there is no short link", () => {
    assert.equal(csv("link,url,createdAt\nhttps://dub.sh/k,https://example.com/k,2026-01-01\n").rows[0].value.externalRef, "dub.sh/k");
    const parsed = csv("Destination URL,Link ID\nhttps://example.com/k,link_9\n", { source: "dub" });
    assert.equal(parsed.format, "dub");
    assert.equal(parsed.rows[0].value.externalRef, "link_9");
  });

  it("importing the same export twice gives the same references", () => {
    for (const text of [BITLY, DUB]) {
      assert.deepEqual(csv(text).rows.map((r) => r.value.externalRef), csv(Buffer.from(text)).rows.map((r) => r.value.externalRef));
    }
  });

  it("source generic turns detection off; a mapping still overrides an export's columns", () => {
    const generic = csv(BITLY, { source: "generic" });
    assert.equal(generic.format, "csv");
    assert.equal(generic.mapping["Destination URL"], "destinationUrl");
    assert.equal(generic.mapping.Link, undefined);
    const mapped = csv(BITLY, { mapping: { "Custom Link": "externalRef", Link: "ignore" } });
    assert.equal(mapped.format, "bitly");
    assert.equal(mapped.rows[0].value.externalRef, "go.example.com/Launch");
    assert.equal(mapped.rows[1].value.externalRef, null); // an empty reference is no reference
  });

  it("plain spreadsheets with a Link column are not taken for an export", () => {
    assert.equal(csv("Link,Title\nhttps://a.example,A\n").format, "csv");
    assert.equal(csv("Link,Destination URL\nhttps://bit.ly/a,https://a.example\n").format, "csv");
  });
});

describe("job rows: separators, encodings and line endings", () => {
  it("reads a semicolon file (commas inside values stay) and reports the separator", () => {
    const parsed = csv("titel;url;tags\nA;https://a.example/?q=1,2;x,y\n");
    assert.equal(parsed.delimiter, ";");
    assert.equal(parsed.rows[0].value.destinationUrl, "https://a.example/?q=1,2");
    assert.deepEqual(parsed.rows[0].value.tags, ["x", "y"]);
    assert.deepEqual(parsed.unmapped, ["titel"]);
  });

  it("reads a tab-separated file", () => {
    const parsed = csv("Title\tURL\tCampaign\nA, B\thttps://a.example\tQ1\n");
    assert.equal(parsed.delimiter, "\t");
    assert.deepEqual(parsed.rows[0].value, { title: "A, B", destinationUrl: "https://a.example/", campaign: "Q1", externalRef: null });
  });

  it("honours Excel's sep= line and keeps line numbers", () => {
    const parsed = csv("sep=;\r\nurl;title\r\nhttps://a.example;A\r\njavascript:alert(1);B\r\n");
    assert.equal(parsed.delimiter, ";");
    assert.deepEqual(parsed.rows[0], { row: 1, line: 3, value: { destinationUrl: "https://a.example/", title: "A", externalRef: null } });
    assert.equal(errorsOf(parsed, 2)[0].line, 4);
    fileError(() => csv("sep=|\nurl|title\n"), "malformed_csv");
  });

  it("strips a UTF-8 BOM, from text and from bytes", () => {
    for (const input of ["\uFEFFurl,title\nhttps://a.example,A\n", Buffer.from("\uFEFFurl,title\nhttps://a.example,A\n")]) {
      const parsed = csv(input);
      assert.deepEqual(parsed.mapping, { url: "destinationUrl", title: "title" });
      assert.equal(parsed.rows.length, 1);
    }
  });

  it("reads Excel's UTF-16 'Unicode text' (BOM, tabs)", () => {
    const body = Buffer.from("Title\tURL\nCafé\thttps://a.example\n", "utf16le");
    const parsed = csv(Buffer.concat([Buffer.from([0xff, 0xfe]), body]));
    assert.equal(parsed.delimiter, "\t");
    assert.equal(parsed.rows[0].value.title, "Café");
  });

  it("reads CRLF, CR and mixed line endings, with the line each row starts on", () => {
    const text = 'url,title\r\nhttps://a.example,"two\nlines"\r\n\r\n , \r\nhttps://b.example,B\nhttps://c.example,C\rhttps://d.example,D';
    const parsed = csv(text);
    assert.deepEqual(parsed.rows.map((r) => [r.row, r.line, r.value.title]), [
      [1, 2, "two\nlines"],
      [2, 6, "B"],
      [3, 7, "C"],
      [4, 8, "D"],
    ]);
    assert.equal(parsed.total, 4);
  });

  it("refuses bytes that are not UTF-8, naming the line", () => {
    const latin1 = Buffer.from("url,title\nhttps://a.example,Cafe\nhttps://b.example,Caf\xe9\n", "latin1");
    const e = fileError(() => csv(latin1), "encoding");
    assert.match(e.message, /line 3/);
    assert.match(e.hint!, /CSV UTF-8/);
    fileError(() => csv("url,title\nhttps://a.example,Caf\uFFFD\n"), "encoding");
    fileError(() => csv("url,title\nhttps://a.example,x\ud800y\n"), "encoding");
  });
});

describe("job rows: file errors", () => {
  it("refuses empty input", () => {
    for (const text of ["", "   ", "\n\r\n", "\uFEFF", ",,,\n , \n"]) fileError(() => csv(text), "empty");
    fileError(() => csv(new Uint8Array()), "empty");
  });

  it("refuses a header with no data rows", () => {
    fileError(() => csv("url,title\n"), "no_rows");
    fileError(() => csv("url,title\n,\n , \n"), "no_rows");
  });

  it("refuses a file without a URL column, listing its columns", () => {
    const e = fileError(() => csv("title,campaign\nA,B\n"), "no_url_column");
    assert.match(e.message, /"title", "campaign"/);
    const piped = fileError(() => csv("url|title\nhttps://a.example|A\n"), "no_url_column");
    assert.match(piped.hint!, /separator/);
  });

  it("refuses unbalanced quotes with the line number", () => {
    const e = fileError(() => csv('url,title\nhttps://a.example,ok\nhttps://b.example,"unclosed\nhttps://c.example,C\n'), "malformed_csv");
    assert.match(e.message, /^Line 3: /);
    assert.equal(e.details?.line, 3);
    const long = fileError(() => csv(`url,title\nhttps://a.example,A\nhttps://b.example,"${"x\n".repeat(40_000)}`), "malformed_csv");
    assert.match(long.message, /^Line 3: .*64 KB/);
    // A quote inside an unquoted value is just a character.
    assert.equal(csv('url,title\nhttps://a.example,5" screen\n').rows[0].value.title, '5" screen');
  });

  it("refuses input over the byte cap, quickly", () => {
    const big = `url\n${"https://example.com/a-fairly-long-path\n".repeat(Math.ceil(JOB_MAX_INPUT_BYTES / 38))}`;
    const start = performance.now();
    const e = fileError(() => csv(big), "too_large");
    assert.ok(performance.now() - start < 500);
    assert.match(e.message, /at most 8 MB/);
    fileError(() => csv(Buffer.from(big)), "too_large");
  });

  it("refuses 10 MB of random bytes with a clear error, fast", () => {
    const junk = randomBytes(10 * 1024 * 1024);
    for (const input of [junk, junk.toString("utf8"), junk.toString("latin1")]) {
      const start = performance.now();
      const e = fileError(() => csv(input));
      const ms = performance.now() - start;
      assert.ok(ms < 1_000, `took ${ms.toFixed(0)} ms`); // the refusal reads a few bytes, not the file
      assert.ok(["too_large", "binary"].includes(String(e.details?.problem)), e.message);
    }
  });

  it("refuses binary files under the cap: random bytes, NULs, workbooks, PDFs", () => {
    const junk = randomBytes(2 * 1024 * 1024);
    for (const input of [junk, junk.toString("latin1"), junk.toString("utf8")]) {
      const start = performance.now();
      fileError(() => csv(input), "binary");
      assert.ok(performance.now() - start < 1_000);
    }
    assert.match(fileError(() => csv(Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3])), "binary").message, /Excel workbook/);
    fileError(() => csv(Buffer.from("%PDF-1.7\n...")), "binary");
    fileError(() => csv("url,title\nhttps://a.example,A\u0000\n"), "binary");
    fileError(() => csv(Buffer.from("url\nhttps://a.example\u0000\n")), "binary");
  });

  it(`reads ${JOB_MAX_ROWS.toLocaleString("en-US")} rows and refuses one more`, () => {
    const line = (i: number) => `https://example.com/products/${i}?utm_source=qr,Product ${i},spring,"a,b",sku-${i}\n`;
    let text = "url,title,campaign,tags,sku\n";
    for (let i = 1; i <= JOB_MAX_ROWS; i++) text += line(i);
    const start = performance.now();
    const parsed = csv(text);
    const ms = performance.now() - start;
    assert.equal(parsed.rows.length, JOB_MAX_ROWS);
    assert.deepEqual(parsed.errors, []);
    assert.equal(parsed.rows.at(-1)!.value.externalRef, `sku-${JOB_MAX_ROWS}`);
    assert.equal(parsed.rows.at(-1)!.line, JOB_MAX_ROWS + 1);
    assert.ok(ms < 10_000, `took ${ms.toFixed(0)} ms`); // about 0.7 s on an idle machine; this catches a quadratic slip
    const e = fileError(() => csv(text + line(JOB_MAX_ROWS + 1)), "too_many_rows");
    assert.match(e.message, /more than 10,000 rows/);
    // Blank lines are not rows.
    assert.equal(csv(`${text}\n\n,,,,\n`).rows.length, JOB_MAX_ROWS);
  });

  it("refuses malformed calls with AppError", () => {
    fileError(() => parseJobInput(null as unknown as JobInput), "invalid_input");
    fileError(() => parseJobInput({ format: "xml" } as unknown as JobInput), "invalid_input");
    fileError(() => parseJobInput({ format: "csv", text: 42 } as unknown as JobInput), "invalid_input");
    fileError(() => parseJobInput({ format: "csv", text: "url\nhttps://a.example", source: "x" } as unknown as JobInput), "invalid_input");
  });
});

describe("job rows: per-row errors", () => {
  it("refuses invalid and non-http URLs, naming the column", () => {
    const parsed = csv('Link,title\nhttps://ok.example,OK\nnot a url,A\njavascript:alert(1),B\n"data:text/html;base64,PHNjcmlwdD4=",C\nftp://files.example,D\n,E\n');
    assert.deepEqual(parsed.rows.map((r) => r.row), [1]);
    for (const row of [2, 3, 4, 5, 6]) {
      const [e] = errorsOf(parsed, row);
      assert.equal(e.column, "Link");
      assert.equal(e.field, "destinationUrl");
      assert.match(e.message, /^Link: /);
      assert.equal(e.line, row + 1);
    }
    assert.match(errorsOf(parsed, 3)[0].message, /http:\/\/ or https:\/\//);
    assert.match(errorsOf(parsed, 6)[0].message, /URL is required/);
    assertPartition(parsed);
  });

  it("refuses too-long fields with the limit", () => {
    const rows = [
      `https://a.example/${"p".repeat(2100)},A,,,`,
      `https://a.example,${"t".repeat(TITLE_MAX + 1)},,,`,
      `https://a.example,A,${"c".repeat(CAMPAIGN_MAX + 1)},,`,
      `https://a.example,A,,ok;${"g".repeat(TAG_MAX + 1)},`,
      `https://a.example,A,,${Array.from({ length: TAGS_MAX + 1 }, (_, i) => `t${i}`).join(";")},`,
      `https://a.example,A,,,${"r".repeat(EXTERNAL_REF_MAX + 1)}`,
      `https://a.example,${"t".repeat(TITLE_MAX)},${"c".repeat(CAMPAIGN_MAX)},${"g".repeat(TAG_MAX)},${"r".repeat(EXTERNAL_REF_MAX)}`,
    ];
    const parsed = csv(`url,title,campaign,tags,ref\n${rows.join("\n")}\n`);
    assert.match(errorsOf(parsed, 1)[0].message, /^url: URL must be at most 2048 bytes/);
    assert.match(errorsOf(parsed, 2)[0].message, /^title: Must be at most 200 characters/);
    assert.match(errorsOf(parsed, 3)[0].message, /^campaign: Must be at most 100 characters/);
    assert.match(errorsOf(parsed, 4)[0].message, /^tags: tag 2 \("g+…"\): Must be at most 50 characters/);
    assert.match(errorsOf(parsed, 5)[0].message, /^tags: At most 20 tags/);
    assert.match(errorsOf(parsed, 6)[0].message, /^ref: Must be at most 200 characters/);
    assert.deepEqual(parsed.rows.map((r) => r.row), [7]);
    assertPartition(parsed);
  });

  it("refuses a duplicate external reference on its second occurrence", () => {
    const parsed = csv("url,external_id\nhttps://a.example,A1\nhttps://b.example, A1 \nhttps://c.example,a1\nhttps://d.example,\nhttps://e.example,\nhttps://f.example,A1\n");
    assert.deepEqual(parsed.rows.map((r) => [r.row, r.value.externalRef]), [
      [1, "A1"],
      [3, "a1"],
      [4, null],
      [5, null],
    ]);
    assert.deepEqual(parsed.errors.map((e) => [e.row, e.field]), [
      [2, "externalRef"],
      [6, "externalRef"],
    ]);
    assert.match(parsed.errors[0].message, /^external_id: "A1" is already the external reference of row 1/);
  });

  it("refuses external references with tabs or line breaks", () => {
    const parsed = csv('url,ref\nhttps://a.example,"a\tb"\nhttps://b.example,"a\nb"\n');
    assert.equal(parsed.rows.length, 0);
    assert.match(errorsOf(parsed, 1)[0].message, /^ref: Must be printable/);
  });

  it("refuses cells a spreadsheet would run as a formula, naming the column", () => {
    const cells = ['=HYPERLINK(""http://evil"")', "+1+1", "-2+3", "@SUM(A1)", "\tTab", "\rCR", " =spaced"];
    for (const column of ["title", "campaign", "tags"]) {
      const body = cells.map((c) => `https://a.example,"${c}"`).join("\n");
      const parsed = csv(`url,${column}\n${body}\n`);
      assert.equal(parsed.rows.length, 0, column);
      assert.equal(parsed.errors.length, cells.length, column);
      for (const e of parsed.errors) {
        assert.equal(e.column, column);
        assert.match(e.message, new RegExp(`^${column}: .*starts with .*formula`));
      }
    }
    const later = csv('url,tags\nhttps://a.example,"ok, =cmd"\n');
    assert.match(later.errors[0].message, /^tags: Tag 2 starts with "="/);
    // Not at the start: fine. Nothing is altered.
    const fine = csv('url,title,tags\nhttps://a.example,"A = B, +1",x-y\n');
    assert.deepEqual(fine.rows[0].value, { destinationUrl: "https://a.example/", title: "A = B, +1", tags: ["x-y"], externalRef: null });
  });

  it("takes JSON values that start like a formula as they are: they are no spreadsheet cells", () => {
    const parsed = json([{ destinationUrl: "https://a.example", title: "-20% off", campaign: "+1 week", tags: ["@shop"] }]);
    assert.deepEqual(parsed.errors, []);
    assert.equal(parsed.rows[0].value.title, "-20% off");
  });

  it("refuses a row with more cells than the header", () => {
    const parsed = csv("url,title\nhttps://a.example,A,extra\n");
    assert.match(parsed.errors[0].message, /3 cells; the header names 2 columns/);
    assert.equal(parsed.errors[0].column, undefined);
  });

  it("refuses hidden characters and keeps every error of a row", () => {
    const parsed = csv("url,title,campaign\nnope,A\u200bB,=x\n");
    assert.deepEqual(parsed.errors.map((e) => e.field).sort(), ["campaign", "destinationUrl", "title"]);
  });
});

describe("job rows: JSON", () => {
  it("validates items with the same row rules", () => {
    const parsed = json([
      { destinationUrl: "https://a.example/x", title: "A", tags: ["t", "t", "u"], dynamic: true, externalRef: " r1 " },
      { destinationUrl: "https://b.example", externalRef: null },
      { destinationUrl: "javascript:alert(1)", title: "C" },
      { destinationUrl: "https://d.example", colour: "red" },
      { destinationUrl: "https://e.example", design: { foreground: "#000000" } },
      { destinationUrl: "f.example", title: "F" },
      { destinationUrl: "https://g.example", externalRef: "r1" },
      "https://h.example",
      null,
      [],
      { destinationUrl: "https://i.example", dynamic: "yes" },
    ]);
    assert.equal(parsed.format, "json");
    assert.deepEqual(parsed.rows, [
      { row: 1, value: { destinationUrl: "https://a.example/x", title: "A", tags: ["t", "u"], dynamic: true, externalRef: "r1" } },
      { row: 2, value: { destinationUrl: "https://b.example/", title: "b.example", externalRef: null } },
    ]);
    assert.equal(errorsOf(parsed, 3)[0].column, "destinationUrl");
    assert.match(errorsOf(parsed, 4)[0].message, /Unknown field\(s\): colour/);
    assert.match(errorsOf(parsed, 5)[0].message, /Unknown field\(s\): design/);
    assert.deepEqual(errorsOf(parsed, 6).map((e) => e.column), ["destinationUrl"], "no scheme");
    assert.match(errorsOf(parsed, 7)[0].message, /already the external reference of row 1/);
    for (const row of [8, 9, 10]) assert.match(errorsOf(parsed, row)[0].message, /must be an object/);
    assert.equal(errorsOf(parsed, 11)[0].field, "dynamic");
    assertPartition(parsed);
  });

  it("refuses items that are not a usable array", () => {
    fileError(() => json({ destinationUrl: "https://a.example" }), "invalid_input");
    fileError(() => json(undefined), "invalid_input");
    fileError(() => json([]), "no_rows");
    const e = fileError(() => json(Array.from({ length: JOB_MAX_ROWS + 1 }, () => ({ destinationUrl: "https://a.example" }))), "too_many_rows");
    assert.match(e.message, /10,001 rows/);
    assert.equal(json(Array.from({ length: JOB_MAX_ROWS }, (_, i) => ({ destinationUrl: `https://a.example/${i}` }))).rows.length, JOB_MAX_ROWS);
  });
});

describe("job rows: mapping preview", () => {
  it("shows headers, mapping, unmapped columns and the first rows", () => {
    const rows = Array.from({ length: 20 }, (_, i) => `P${i};https://a.example/${i};x`).join("\n");
    const preview = previewMapping(`Name;Long URL;Colour\n${rows}\n`);
    assert.equal(preview.delimiter, ";");
    assert.equal(preview.format, "csv");
    assert.deepEqual(preview.headers, ["Name", "Long URL", "Colour"]);
    assert.deepEqual(preview.mapping, { Name: "title", "Long URL": "destinationUrl" });
    assert.deepEqual(preview.unmapped, ["Colour"]);
    assert.deepEqual(preview.missing, []);
    assert.equal(preview.sample.length, PREVIEW_ROWS);
    assert.deepEqual(preview.sample[0], { row: 1, line: 2, cells: { Name: "P0", "Long URL": "https://a.example/0", Colour: "x" } });
    assert.ok(preview.fields.includes("externalRef"));
  });

  it("reports a missing URL column instead of throwing, and takes a mapping and a source", () => {
    const text = "Name,Where\nA,https://a.example\n";
    assert.deepEqual(previewMapping(text).missing, ["destinationUrl"]);
    const mapped = previewMapping(text, { mapping: { Where: "destinationUrl" } });
    assert.deepEqual(mapped.missing, []);
    assert.equal(mapped.mapping.Where, "destinationUrl");
    assert.equal(previewMapping("Short link,Destination URL\nhttps://dub.sh/a,https://a.example\n").format, "dub");
    assert.equal(previewMapping("url,title\nhttps://a.example,A\n", { source: "bitly" }).format, "bitly");
  });

  it("refuses the same files as a whole", () => {
    fileError(() => previewMapping(""), "empty");
    fileError(() => previewMapping(randomBytes(4096)), "binary");
    fileError(() => previewMapping('url,title\n"https://a.example,A\n'), "malformed_csv");
  });
});

describe("job rows: fuzz", function () {
  this.timeout(120_000);

  /** Deterministic PRNG (mulberry32), so a failing case can be replayed from its index. */
  function random(seed: number): () => number {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  const PIECES = [",", ";", "\t", '"', '""', "\r", "\n", "\r\n", " ", "=", "+", "-", "@", "|", "a", "Z", "0", "é", "😀", "\uFEFF", "\u0000", "\u200b", "\ud800", "\uFFFD",
    "https://a.example/", "javascript:alert(1)", "http://", "url", "title", "tags", "dynamic", "externalRef", "Short link", "Destination URL", "Link", "Custom Link", "long_url", "sep=;", "true", "x".repeat(300)];
  const HEADERS = ["url,title,tags,dynamic,externalRef\n", "Link,Custom Link,Title,Destination URL\n", "Short link;Destination URL;Tags\n", "URL\tName\tSKU\n", ""];

  it("4,000 random inputs: parseJobInput returns or throws AppError, nothing else", () => {
    const rand = random(7);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
    let returned = 0;
    let refused = 0;
    for (let i = 0; i < 4_000; i++) {
      let input: JobInput;
      const kind = rand();
      if (kind < 0.6) {
        let text = pick(HEADERS);
        const n = Math.floor(rand() * 60);
        for (let k = 0; k < n; k++) text += pick(PIECES);
        const mapping = rand() < 0.1 ? { [pick(["url", "Link", "x", ""])]: pick(["destinationUrl", "title", "ignore", "bogus"]) } : undefined;
        input = { format: "csv", text: rand() < 0.2 ? Buffer.from(text) : text, mapping, source: pick(["auto", "dub", "bitly", "generic", undefined] as const) };
      } else if (kind < 0.8) {
        input = { format: "csv", text: randomBytes(Math.floor(rand() * 400)) };
      } else {
        const value = () => pick<unknown>([null, 1, true, "", "https://a.example", "=x", [], {}, ["a", 1], "x".repeat(300), undefined]);
        const items = rand() < 0.1 ? value() : Array.from({ length: Math.floor(rand() * 5) }, () =>
          rand() < 0.2 ? value() : Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [pick(["destinationUrl", "title", "tags", "dynamic", "externalRef", "campaign", "zzz"]), value()])),
        );
        input = { format: "json", items };
      }
      try {
        const parsed = parseJobInput(input);
        assertPartition(parsed);
        for (const r of parsed.rows) assert.match(r.value.destinationUrl, /^https?:\/\//);
        returned++;
      } catch (e) {
        if (!(e instanceof AppError)) {
          throw new Error(`case ${i}: ${String(e)} for ${JSON.stringify(input).slice(0, 300)}`);
        }
        assert.equal(e.code, "VALIDATION_FAILED", `case ${i}`);
        refused++;
      }
    }
    assert.ok(returned > 100 && refused > 100, `returned ${returned}, refused ${refused}`);
  });
});
