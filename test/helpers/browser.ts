// Debian's Chromium, headless, as the browser tests drive it (playwright-core brings no browser of its own).
import { chromium, type Browser } from "playwright-core";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
}
