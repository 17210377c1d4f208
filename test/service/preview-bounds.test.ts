// The CSV mapping preview takes the file's first 64 KiB, not a job's 9 MiB body (review 4, L2): the
// console sends previewHead(file), and the route refuses more before parsing anything.
import assert from "node:assert/strict";
import { consoleApi } from "../helpers/consoleApi";
import { createMerchant } from "../helpers/merchants";
import { PREVIEW_CSV_MAX_CHARS, previewHead } from "../../functions/src/core/limits";

describe("CSV mapping preview bounds", function () {
  this.timeout(60_000);

  it("previews the head of a big file as the whole file, and refuses a body past the preview's limit", async () => {
    const m = await createMerchant();
    const rows = Array.from({ length: 20_000 }, (_, i) => `Code ${i},https://example.com/p/${i}`);
    const file = `title,destinationUrl\n${rows.join("\n")}\n`;
    assert.ok(file.length > 10 * PREVIEW_CSV_MAX_CHARS);
    const head = previewHead(file);
    assert.ok(head.length <= PREVIEW_CSV_MAX_CHARS && head.endsWith("\n"), "cut after a whole line");
    const fromHead = await consoleApi("/jobs/preview", m.idToken, { body: { csv: head } });
    assert.equal(fromHead.status, 200, JSON.stringify(fromHead.body));
    assert.deepEqual(fromHead.body.sample.map((r: any) => r.cells.destinationUrl ?? Object.values(r.cells)[1]), rows.slice(0, 5).map((r) => r.split(",")[1]));
    const whole = await consoleApi("/jobs/preview", m.idToken, { body: { csv: file } });
    assert.ok(whole.status === 400 || whole.status === 413, `${whole.status}: ${JSON.stringify(whole.body).slice(0, 300)}`);
  });
});
