// Code search by word prefix, answered by Firestore: each code document carries `searchTokens`, the
// prefixes of the words of its title, destination, campaign and tags, folded (lower case, no accents,
// compatibility forms), so one `array-contains` finds the codes with a word starting with what was typed.
// The tokens are capped in count and bytes whatever the field lengths (docs/data-model.md, "Codes: bounds").
// Pure functions: no Firestore, no HTTP.

/** Longest prefix kept per word: a longer query word is matched on its first TOKEN_MAX_CHARS, then checked in full. */
export const TOKEN_MAX_CHARS = 12;
/** Tokens one code carries at most, and their UTF-8 bytes at most: the fields share them (searchTokensOf). */
export const TOKENS_MAX = 160;
export const TOKENS_MAX_BYTES = 2_000;
/** Characters of the title kept in `titleKey` (the title sort); ties beyond it fall back to the code id. */
export const TITLE_KEY_CHARS = 120;

/** Lower case, accents removed, compatibility-normalised: "Café", "CAFE" and "ｃａｆｅ" all fold to "cafe". */
export function foldText(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}+/gu, "").normalize("NFKC").toLocaleLowerCase("en");
}

// Scripts written without spaces between words: each character starts a "word" of its own, so a search
// for any run of characters inside a longer text finds it (東京 in 東京タワー and in 新東京).
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** The words of a folded text: runs of letters and digits; unspaced scripts give one word per character position. */
export function wordsOf(folded: string): string[] {
  const words: string[] = [];
  for (const run of folded.match(/[\p{L}\p{N}]+/gu) ?? []) {
    const chars = [...run];
    if (!chars.some((c) => UNSPACED.test(c))) {
      words.push(run);
      continue;
    }
    for (let i = 0; i < chars.length; i++) words.push(chars.slice(i, i + TOKEN_MAX_CHARS).join(""));
  }
  return words;
}

/** What a code is searched by, in the order its tokens are kept when the cap is reached. */
export interface Searchable {
  title: string;
  destinationUrl: string;
  campaign: string | null;
  tags: readonly string[];
}

function destinationText(url: string): string {
  // The host first (what people remember), then the rest of the address; the scheme is no word anyone types.
  try {
    const u = new URL(url);
    return `${u.hostname} ${u.pathname} ${u.search}`;
  } catch {
    return url;
  }
}

/** A field's tokens in reading order: every prefix (1 to TOKEN_MAX_CHARS characters) of each word in turn. */
function fieldTokens(text: string): string[] {
  const tokens = new Set<string>();
  for (const word of wordsOf(foldText(text))) {
    const chars = [...word].slice(0, TOKEN_MAX_CHARS);
    for (let n = 1; n <= chars.length; n++) tokens.add(chars.slice(0, n).join(""));
  }
  return [...tokens];
}

/**
 * The code's search tokens, capped. The fields (title, campaign, each tag, destination) take turns, one
 * token each, each field from its first word on: a long field (a 200-character CJK title gives thousands
 * of prefixes) fills only its share, so the other fields' first words stay searchable.
 */
export function searchTokensOf(code: Searchable): string[] {
  const fields = [code.title, code.campaign ?? "", ...code.tags, destinationText(code.destinationUrl)].map(fieldTokens).filter((f) => f.length);
  const next = fields.map(() => 0);
  const tokens = new Set<string>();
  let bytes = 0;
  for (let taken = true; taken; ) {
    taken = false;
    fields.forEach((field, f) => {
      while (next[f] < field.length && tokens.has(field[next[f]])) next[f]++;
      if (next[f] >= field.length) return;
      const token = field[next[f]++];
      const size = Buffer.byteLength(token);
      if (tokens.size >= TOKENS_MAX || bytes + size > TOKENS_MAX_BYTES) return;
      tokens.add(token);
      bytes += size;
      taken = true;
    });
  }
  return [...tokens];
}

/** The title as sorted: folded, so "apple" sorts with "Apple", cut to a bounded length. */
export function titleKeyOf(title: string): string {
  return [...foldText(title)].slice(0, TITLE_KEY_CHARS).join("");
}

/** A search as typed: its words, folded; empty when it has none. */
export function queryWordsOf(q: string | undefined): string[] {
  return q ? [...new Set(wordsOf(foldText(q.trim())))] : [];
}

/** The token the query asks Firestore for: the longest word's prefix (the most selective), or none. */
export function queryToken(words: readonly string[]): string | undefined {
  const longest = [...words].sort((a, b) => [...b].length - [...a].length || (a < b ? -1 : 1))[0];
  return longest === undefined ? undefined : [...longest].slice(0, TOKEN_MAX_CHARS).join("");
}

/** Whether every query word starts a word of the code (the check after Firestore's one-token answer). */
export function matchesWords(code: Searchable, words: readonly string[]): boolean {
  if (!words.length) return true;
  const own = new Set<string>();
  for (const text of [code.title, code.campaign ?? "", ...code.tags, destinationText(code.destinationUrl)]) for (const w of wordsOf(foldText(text))) own.add(w);
  return words.every((q) => [...own].some((w) => w.startsWith(q)));
}

/** Whether every query word occurs anywhere in the code's texts: the small-workspace search (substrings). */
export function containsWords(code: Searchable, words: readonly string[]): boolean {
  const hay = [code.title, code.destinationUrl, code.campaign ?? "", ...code.tags].map(foldText).join("\n");
  return words.every((w) => hay.includes(w));
}
