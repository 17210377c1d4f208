// The console checks a spreadsheet before sending it with the server's own rules (core/rules.ts,
// core/limits.ts): each row the console passes, the server's schema accepts, and each row it refuses,
// the server refuses, at every limit's edge.
import assert from "node:assert/strict";
import { z } from "zod";
import { checkCsv } from "../../console/csv";
import { effectiveLook } from "../../functions/src/codes/look";
import { newCodeShape } from "../../functions/src/codes/fields";
import { CAMPAIGN_MAX, TAG_MAX, TAGS_MAX, TITLE_MAX, URL_MAX_LENGTH } from "../../functions/src/core/limits";
import { utf8Bytes } from "../../functions/src/core/rules";

const server = z.object(newCodeShape).strict();
const csvCell = (value: string) => `"${value.replace(/"/g, '""')}"`;

function consoleVerdict(row: { title: string; url: string; campaign?: string; tags?: string[] }): string[] {
  const line = [row.title, row.url, row.campaign ?? "", (row.tags ?? []).join(";")].map(csvCell).join(",");
  const { rows, fatal } = checkCsv(`title,url,campaign,tags\n${line}\n`);
  assert.equal(fatal, null);
  return rows[0].errors;
}

function serverAccepts(row: { title: string; url: string; campaign?: string; tags?: string[] }): boolean {
  return server.safeParse({ title: row.title, destinationUrl: row.url, ...(row.campaign ? { campaign: row.campaign } : {}), ...(row.tags?.length ? { tags: row.tags } : {}) }).success;
}

describe("console rules equal the server's", () => {
  const base = { title: "Menu", url: "https://example.com/menu" };
  const urlOfBytes = (bytes: number, unit: string) => {
    // "é" is 6 bytes once percent-encoded (%C3%A9): the server counts the normalised form.
    const head = "https://example.com/";
    const per = utf8Bytes(new URL(`${head}${unit}`).href) - utf8Bytes(head);
    const url = `${head}${unit.repeat(Math.floor((bytes - head.length) / per))}`;
    return url + "a".repeat(bytes - utf8Bytes(new URL(url).href));
  };
  const cases: Record<string, { title: string; url: string; campaign?: string; tags?: string[] }> = {
    ok: base,
    "title at the limit": { ...base, title: "t".repeat(TITLE_MAX) },
    "title over the limit": { ...base, title: "t".repeat(TITLE_MAX + 1) },
    "title with a zero-width space": { ...base, title: "Me\u200Bnu" },
    "url at the byte limit, ASCII": { ...base, url: urlOfBytes(URL_MAX_LENGTH, "a") },
    "url over the byte limit, ASCII": { ...base, url: urlOfBytes(URL_MAX_LENGTH + 1, "a") },
    "url at the byte limit, non-ASCII": { ...base, url: urlOfBytes(URL_MAX_LENGTH, "é") },
    "url over the byte limit in bytes, under it in characters": { ...base, url: `https://example.com/${"é".repeat(400)}` },
    "url not http": { ...base, url: "ftp://example.com/x" },
    "url with a bidi override": { ...base, url: "https://example.com/\u202Eevil" },
    "campaign at the limit": { ...base, campaign: "c".repeat(CAMPAIGN_MAX) },
    "campaign over the limit": { ...base, campaign: "c".repeat(CAMPAIGN_MAX + 1) },
    "tags at the limit": { ...base, tags: Array.from({ length: TAGS_MAX }, (_, i) => `t${i}`) },
    "tags over the limit": { ...base, tags: Array.from({ length: TAGS_MAX + 1 }, (_, i) => `t${i}`) },
    "tag at the length limit": { ...base, tags: ["g".repeat(TAG_MAX)] },
    "tag over the length limit": { ...base, tags: ["g".repeat(TAG_MAX + 1)] },
  };
  for (const [name, row] of Object.entries(cases)) {
    it(name, () => {
      const errors = consoleVerdict(row);
      const refused = /over|with|not/.test(name);
      assert.equal(serverAccepts(row), !refused, "server");
      assert.equal(errors.length === 0, !refused, `console: ${errors.join("; ") || "OK"}`);
    });
  }

  it("the over-limit non-ASCII URL is refused for its bytes, as the server words it", () => {
    const errors = consoleVerdict({ ...base, url: `https://example.com/${"é".repeat(400)}` });
    assert.match(errors.join(), /at most 2048 bytes once normalised/);
  });

  it("the look rule gives the console's hint what create stores", () => {
    assert.deepEqual(effectiveLook({ template: "soundSeal" }), { template: "soundSeal", boostFrame: null, frame: "soundSeal", dynamic: true, forcedDynamicBy: "soundSeal", templateReplaced: false });
    assert.deepEqual(effectiveLook({ template: "soundSeal", boostFrame: "svc_x5_gold" }), { template: null, boostFrame: "svc_x5_gold", frame: "svc_x5_gold", dynamic: false, forcedDynamicBy: null, templateReplaced: true });
    assert.equal(effectiveLook({ scanBeepSound: "chime" }).forcedDynamicBy, "scanBeepSound");
    assert.equal(effectiveLook({ dynamic: true }).forcedDynamicBy, null);
    assert.equal(effectiveLook({}).dynamic, false);
  });
});
