// Small DOM helpers for the console. Text is always appended as text nodes: no HTML injection.
import { messageFor } from "./errors";

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.append(c);
  return el;
}

/** A button that is disabled while its action runs; failures go to `onError`. */
export function button(label: string, onClick: () => unknown, onError: (message: string) => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = h("button", { type: "button", ...attrs }, label);
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- it catches every failure itself
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      await onClick();
    } catch (e) {
      onError(messageFor(e));
    } finally {
      b.disabled = false;
    }
  });
  return b;
}

/** An event or timer callback running `run`: a failure goes to `onError` instead of going unhandled. */
export function handled<A extends unknown[]>(run: (...args: A) => Promise<unknown>, onError: (message: string) => void): (...args: A) => void {
  return (...args) => void run(...args).catch((e: unknown) => onError(messageFor(e)));
}

let fieldCount = 0;

const NO_FILE = "No file chosen";

/**
 * A labelled file picker drawn as a button and the chosen file's name. Chromium cuts its own control's
 * "No file chosen" mid-word in a narrow cell; the native input stays (transparent, focusable, so
 * keyboards and tests use it as before). Call `showChosen` after clearing the input from code.
 */
export function fileField(label: string, input: HTMLInputElement, choose = "Choose file…"): { wrap: HTMLElement; input: HTMLInputElement; showChosen: () => void } {
  if (!input.id) input.id = `field-${++fieldCount}`;
  input.classList.add("file-native");
  const chosen = h("span", { class: "file-name", id: `${input.id}-name` }, NO_FILE);
  const showChosen = () => (chosen.textContent = input.files?.[0]?.name ?? NO_FILE);
  input.addEventListener("change", showChosen);
  input.setAttribute("aria-describedby", chosen.id);
  const picker = h("div", { class: "file-pick" }, input, h("label", { for: input.id, class: "button", "aria-hidden": "true" }, choose), chosen);
  return { wrap: h("div", { class: "field file-field" }, h("label", { for: input.id }, label), picker), input, showChosen };
}

/** A labelled form control (every control has a visible label). */
export function field<T extends HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(label: string, input: T): { wrap: HTMLElement; input: T } {
  if (!input.id) input.id = `field-${++fieldCount}`;
  return { wrap: h("div", { class: "field" }, h("label", { for: input.id }, label), input), input };
}

export function select(id: string, options: Array<[string, string]>): HTMLSelectElement {
  return h("select", { id }, ...options.map(([value, label]) => h("option", { value }, label)));
}

/**
 * A table that becomes a list of labelled blocks on narrow screens (CSS uses data-label), so a phone
 * never scrolls sideways.
 */
export function table(
  headers: string[],
  rows: Array<Array<Node | string>>,
  attrs: { id?: string; caption?: string } = {},
  rowAttrs: (i: number) => Record<string, string> = () => ({}),
): HTMLTableElement {
  return h(
    "table",
    { class: "responsive" },
    ...(attrs.caption ? [h("caption", { class: "sr-only" }, attrs.caption)] : []),
    h("thead", {}, h("tr", {}, ...headers.map((t) => h("th", { scope: "col" }, t || h("span", { class: "sr-only" }, "Actions"))))),
    h("tbody", attrs.id ? { id: attrs.id } : {}, ...rows.map((cells, i) => h("tr", rowAttrs(i), ...cells.map((c, j) => h("td", headers[j] ? { "data-label": headers[j] } : {}, c))))),
  );
}

/** `value` as one of `options` (a select's value as the type its options have), or undefined. */
export function oneOf<T extends string>(options: readonly T[], value: string): T | undefined {
  return options.find((o) => o === value);
}

/**
 * An image whose picture comes later (a preview drawn by the service): a neutral box of the image's size
 * until the picture has loaded, never a broken-image icon or its alt text. Set `img.src` as usual; the box
 * gives way to the picture once it loads, and comes back if a picture fails to load.
 */
export function pendingImage(attrs: Record<string, string> & { width: string; height: string }): { box: HTMLElement; img: HTMLImageElement } {
  const img = h("img", { ...attrs, hidden: "" });
  const wait = h("span", { class: "img-wait", "aria-hidden": "true" });
  // Its width is the CSS's (as the image's); its shape the image's, through the CSSOM (the CSP refuses style attributes).
  wait.style.aspectRatio = `${attrs.width} / ${attrs.height}`;
  img.addEventListener("load", () => {
    img.hidden = false;
    wait.hidden = true;
  });
  img.addEventListener("error", () => {
    img.hidden = true;
    wait.hidden = false;
  });
  return { box: h("span", { class: "img-box" }, img, wait), img };
}
