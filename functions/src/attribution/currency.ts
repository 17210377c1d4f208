// ISO 4217 currencies and their minor-unit exponents (no maintained permissive package for them is in
// node_modules). Which codes exist comes from the runtime's ICU (Intl.supportedValuesOf); the exponent from
// ISO 4217's own list, where it differs from 2, kept here (CLDR's digits differ from ISO's for a few
// currencies, so Intl's fraction digits are not used). Codes without a currency (gold, test, no currency)
// are refused. test/unit/attribution-currency.test.ts checks known values.
const ZERO = ["BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF"];
const THREE = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"];
const FOUR = ["CLF", "UYW"];
/** ISO 4217 codes that are not a currency one counts sales in (their minor unit is "N.A."). */
const NOT_MONEY = new Set(["XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XDR", "XPD", "XPT", "XSU", "XTS", "XUA", "XXX"]);

// ICU leaves out some funds codes (CLF, UYI, UYW): the table above names them.
const known = new Set([...Intl.supportedValuesOf("currency"), ...ZERO, ...THREE, ...FOUR]);

/** The minor-unit exponent of an ISO 4217 currency code, or undefined when it is not one sales are counted in. */
export function currencyExponent(code: string): number | undefined {
  if (!/^[A-Z]{3}$/.test(code) || NOT_MONEY.has(code) || !known.has(code)) return undefined;
  if (ZERO.includes(code)) return 0;
  if (THREE.includes(code)) return 3;
  if (FOUR.includes(code)) return 4;
  return 2;
}
