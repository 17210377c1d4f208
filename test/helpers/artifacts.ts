// Files tests leave for people to look at, under test-artifacts/ (made on first use: a fresh clone has none).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export const ARTIFACTS_DIR = path.resolve(__dirname, "..", "..", "test-artifacts");

export function writeArtifact(name: string, data: Buffer | string): void {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  writeFileSync(path.join(ARTIFACTS_DIR, name), data);
}
