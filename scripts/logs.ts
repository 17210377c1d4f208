// `npm run logs`: follows the emulators' log (what `npm start` and `npm test` write), from its last lines.
import { closeSync, existsSync, fstatSync, openSync, readSync, watchFile } from "node:fs";
import { LOG_FILE, tailOf } from "./lib/stack";

if (!existsSync(LOG_FILE)) {
  console.error(`no log yet at ${LOG_FILE}: start the stack with \`npm start\``);
  process.exit(1);
}
process.stdout.write(`${tailOf(LOG_FILE, 40)}\n`);
let offset = fstatSync(openSync(LOG_FILE, "r")).size;
watchFile(LOG_FILE, { interval: 300 }, () => {
  const fd = openSync(LOG_FILE, "r");
  try {
    const size = fstatSync(fd).size;
    if (size < offset) offset = 0; // a new start truncated it
    if (size > offset) {
      const buffer = Buffer.alloc(size - offset);
      readSync(fd, buffer, 0, buffer.length, offset);
      offset = size;
      process.stdout.write(buffer);
    }
  } finally {
    closeSync(fd);
  }
});
