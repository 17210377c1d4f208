// The small HTML page of an unknown dynamic link.
export const NOT_FOUND_STYLE = "body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#111}";

export function notFoundPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>QR code not found</title>
<style>${NOT_FOUND_STYLE}</style></head>
<body><h1>This QR code is not active</h1><p>The code you scanned is unknown or has been removed. Ask the business for a new one.</p></body></html>`;
}
