// A generated block inside a hand-written file: everything from its start marker to its end marker is
// replaced by the generator's output; the rest of the file is left as written.
export function withGeneratedBlock(text: string, markers: { start: string; end: string }, block: string, file: string): string {
  const start = text.indexOf(markers.start);
  const end = text.indexOf(markers.end);
  if (start < 0 || end < start) throw new Error(`${file} lacks its generated-block markers`);
  return text.slice(0, start) + block + text.slice(end + markers.end.length);
}
