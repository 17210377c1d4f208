// Appending the click id to a destination (docs/attribution.md, "On the redirect"): once, at the end of
// the query, so after any UTM template's parameters (campaigns/utm.ts runs first), and by string: every
// other part of the URL, its own parameters with their order and encoding, and the fragment, is left
// exactly as written (URL.href would re-encode it). A destination that already has the parameter keeps its
// own and gets none.

/** A click id parameter name: letters, digits, _ and -, starting with a letter (never needs encoding). */
export const CLICK_PARAM_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
export const DEFAULT_CLICK_PARAM = "svc_sid";

/** `url` with `name=value` added to its query (value: URL-safe characters only, as a click id is). */
export function appendClickId(url: string, name: string, value: string): string {
  if (!CLICK_PARAM_PATTERN.test(name) || !/^[A-Za-z0-9._~-]+$/.test(value)) throw new Error("a click id parameter needs no encoding");
  const hashAt = url.indexOf("#");
  const beforeHash = hashAt < 0 ? url : url.slice(0, hashAt);
  const fragment = hashAt < 0 ? "" : url.slice(hashAt);
  const queryAt = beforeHash.indexOf("?");
  const query = queryAt < 0 ? "" : beforeHash.slice(queryAt + 1);
  let present = false;
  try {
    for (const key of new URLSearchParams(query).keys()) if (key === name) present = true;
  } catch {
    return url; // a query URLSearchParams cannot read is left alone
  }
  if (present) return url;
  const joiner = queryAt < 0 ? "?" : query === "" || query.endsWith("&") ? "" : "&";
  return `${beforeHash}${joiner}${name}=${value}${fragment}`;
}
