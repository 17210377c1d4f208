// GS1 keys for tests: one owner per key per host, so each run makes keys no other run has.
import { randomInt } from "node:crypto";
import { checkDigitOf } from "../../functions/src/gs1/keys";

/** A fresh GTIN-14 with its check digit. */
export function newGtin(): string {
  const body = `0${Array.from({ length: 12 }, () => String(randomInt(10))).join("")}`;
  return body + String(checkDigitOf(body));
}
