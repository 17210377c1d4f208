// GS1's Digital Link grammar, through digital-link.js (Apache-2.0; docs/decisions.md, "GS1 Digital Link
// syntax library"): the library checks a whole URI against the ABNF grammar GS1 publishes and
// (de)compresses URIs. It is loaded on first use only (~60 ms to load, ~40 ms for the first parse), so
// functions that never meet a GS1 URI never pay for it.

interface DigitalLinkModule {
  DigitalLink: (input: string) => { isValid(): boolean };
  Utils: {
    compressWebUri(uri: string): string;
    decompressWebUri(uri: string): string;
    isCompressedWebUri(uri: string): boolean;
  };
}

let loaded: DigitalLinkModule | undefined;
const library = (): DigitalLinkModule => (loaded ??= require("digital-link.js") as DigitalLinkModule);

/** Whether `uri` (https://host/01/…) is a GS1 Digital Link URI by GS1's grammar, check digits included. */
export function matchesGs1Grammar(uri: string): boolean {
  try {
    return library().DigitalLink(uri).isValid();
  } catch {
    return false;
  }
}

/** The compressed form of a GS1 Digital Link URI (GS1 Digital Link: Compression), same origin. */
export function compressDigitalLink(uri: string): string {
  return library().Utils.compressWebUri(uri);
}

/** The uncompressed URI of a compressed one, or undefined when `uri` is not a compressed GS1 Digital Link URI. */
export function decompressDigitalLink(uri: string): string | undefined {
  try {
    const utils = library().Utils;
    return utils.isCompressedWebUri(uri) ? utils.decompressWebUri(uri) : undefined;
  } catch {
    return undefined;
  }
}
