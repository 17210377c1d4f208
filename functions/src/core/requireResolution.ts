// Node resolves a package's `exports` map again on every `require` of it: Module._findPath returns that
// answer before storing it in its path cache, so a module that calls `require("pkg/sub")` inside a function
// walks directories (stat, realpath, package.json) each time. The Firestore client does so on every commit
// (`require("google-gax/fallback")` for the commit's retry options): 3% of a busy tool server's CPU
// (docs/performance.md, issue 62). Storing the answer where `_findPath` looks first makes that `require` a
// lookup, with the very file Node would have resolved. Where Node's loader is shaped otherwise, nothing
// changes: the answer is stored only if the loader has the parts this relies on.

interface LoaderModule {
  filename: string;
  paths: string[];
}

interface CjsLoader {
  _pathCache?: Record<string, string>;
  _resolveLookupPaths?: (request: string, parent: LoaderModule) => string[] | null;
  _findPath?: (request: string, paths: string[], isMain: boolean) => string | false;
  _cache?: Record<string, LoaderModule | undefined>;
}

/**
 * Remembers how `request` resolves from the loaded module `fromFile` (an absolute file name), so that its
 * later `require(request)` calls skip resolution. Returns whether it did.
 */
export function rememberResolution(fromFile: string, request: string): boolean {
  const loader = require("node:module") as CjsLoader;
  const parent = loader._cache?.[fromFile];
  if (!parent || !loader._pathCache || !loader._resolveLookupPaths || !loader._findPath) return false;
  const paths = loader._resolveLookupPaths(request, parent);
  if (!paths || paths.length === 0) return false;
  let filename: string | false;
  try {
    filename = loader._findPath(request, paths, false);
  } catch {
    return false; // a subpath the package does not export: the require itself will say so
  }
  if (!filename) return false;
  loader._pathCache[`${request}\x00${paths.join("\x00")}`] = filename;
  return true;
}
