// Brand designs in the console: the design panel (create page and code page), the code page's live
// preview and print downloads, and brand presets in Settings. Every preview is the backend's own render
// of the exact final image (POST /api/console/codes/preview or /codes/<id>/preview), never an imitation.
import { downloadUrl } from "./files";
import { field, fileField, h, handled, oneOf, pendingImage, select } from "./dom";
import { send, type Answer, type Api, type Request } from "./api";
import { PRESET_NAME_MAX } from "../functions/src/core/limits";
import { PRESET_NAME_HTML_PATTERN } from "../functions/src/core/rules";
import { EYE_STYLES, LOGO_MAX_BYTES, LOGO_MEDIA_TYPES, MODULE_STYLES, QUIET_ZONE_MAX, QUIET_ZONE_MIN } from "../functions/src/core/constants";
import type { PrintHintSchema } from "../functions/src/images/printRoutes";
import type { z } from "zod";

type PrintHint = z.output<typeof PrintHintSchema>;

export interface DesignContext {
  api: Api;
  act: (label: string, onClick: () => unknown, attrs?: Record<string, string>) => HTMLButtonElement;
  authHeader: () => Promise<Record<string, string>>;
  flash: (message: string, isError?: boolean) => void;
  render: () => Promise<void>;
  slug: (s: string) => string;
}

/** A code as its page shows it. */
export type ShownCode = Answer<"GET /codes/:codeId">;
/** A design as the API shows it (publicDesign): the logo is described, not sent back. */
type ShownDesign = NonNullable<ShownCode["design"]>;
/** A design as a code's body sends it (a preset by name, fields that override it, a new logo). */
export type DesignValue = NonNullable<NonNullable<Request<"POST /codes">["body"]>["design"]>;

export interface DesignPanel {
  element: HTMLElement;
  /** The design to send: null for the plain black-on-white code. */
  value(): DesignValue | null;
  /** Whether the code's current logo stays (the code page, when no other logo is chosen). */
  keepsLogo(): boolean;
}

const STYLE_FIELDS = ["foreground", "background", "moduleStyle", "eyeStyle", "quietZone"] as const;
type StyleField = (typeof STYLE_FIELDS)[number];

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(new Error("The logo file could not be read"));
    reader.readAsDataURL(file);
  });
}

/**
 * The design panel. `initial` is the code's current design (code page); `alwaysOn` drops the on/off
 * switch (Settings, where a preset is always a design); `presets` offers the workspace's saved presets.
 */
export function designPanel(ctx: DesignContext, opts: { id: string; initial?: ShownDesign | null; onChange: () => void; presets: boolean; alwaysOn?: boolean }): DesignPanel {
  const p = opts.id;
  const initial = opts.initial ?? null;
  const on = h("input", { type: "checkbox", id: `${p}-on`, ...(initial || opts.alwaysOn ? { checked: "" } : {}) });
  const preset = field("Brand preset", select(`${p}-preset`, [["", "None"]]));
  const fg = field("Module colour", h("input", { type: "color", id: `${p}-fg`, value: (initial?.foreground ?? "#000000").toLowerCase() }));
  const bg = field("Background colour", h("input", { type: "color", id: `${p}-bg`, value: (initial?.background ?? "#FFFFFF").toLowerCase() }));
  const moduleStyle = field("Module style", select(`${p}-modules`, MODULE_STYLES.map((s) => [s, s] as [string, string])));
  const eyeStyle = field("Eye style", select(`${p}-eyes`, EYE_STYLES.map((s) => [s, s] as [string, string])));
  const quietZone = field(`Quiet zone (modules, ${QUIET_ZONE_MIN} to ${QUIET_ZONE_MAX})`, h("input", { type: "number", id: `${p}-quiet`, min: String(QUIET_ZONE_MIN), max: String(QUIET_ZONE_MAX), value: String(initial?.quietZone ?? 4) }));
  moduleStyle.input.value = initial?.moduleStyle ?? "square";
  eyeStyle.input.value = initial?.eyeStyle ?? "square";
  const logoInput = h("input", { type: "file", id: `${p}-logo`, accept: LOGO_MEDIA_TYPES.join(",") });
  const logo = fileField(`Logo (PNG, JPEG or WebP, at most ${LOGO_MAX_BYTES / 1024} KB)`, logoInput, "Choose a logo…");
  const logoNote = h("p", { class: "muted", id: `${p}-logo-note`, "aria-live": "polite" }, initial?.logo ? "The code's current logo is kept." : "");
  let uploaded: { data: string; mediaType: (typeof LOGO_MEDIA_TYPES)[number] } | undefined;
  let keepCurrent = Boolean(initial?.logo);
  const removeLogo = ctx.act("Remove logo", () => {
    uploaded = undefined;
    keepCurrent = false;
    logoInput.value = "";
    logo.showChosen();
    const fromPreset = presets.find((x) => x.name === preset.input.value)?.design?.logo;
    logoNote.textContent = fromPreset ? "The preset's logo stays: it is part of the preset (choose None to drop it)." : "No logo.";
    opts.onChange();
  }, { id: `${p}-logo-remove` });
  // Fields that override the chosen preset: those the user set since choosing it, and all of a code's own
  // design until another preset is chosen (its fields may differ from the preset it started from).
  const dirty = new Set<StyleField>(initial ? STYLE_FIELDS : []);
  const inputs: Record<StyleField, HTMLInputElement | HTMLSelectElement> = { foreground: fg.input, background: bg.input, moduleStyle: moduleStyle.input, eyeStyle: eyeStyle.input, quietZone: quietZone.input };
  let presets: Answer<"GET /brand-presets">["presets"] = [];

  const body = h(
    "div",
    { class: "design-fields", id: `${p}-fields` },
    ...(opts.presets ? [preset.wrap] : []),
    fg.wrap,
    bg.wrap,
    moduleStyle.wrap,
    eyeStyle.wrap,
    quietZone.wrap,
    logo.wrap,
    h("div", { class: "logo-row" }, logoNote, removeLogo),
  );
  const show = () => (body.hidden = !on.checked);
  show();

  for (const name of STYLE_FIELDS) {
    inputs[name].addEventListener("input", () => {
      dirty.add(name);
      opts.onChange();
    });
  }
  on.addEventListener("change", () => {
    show();
    opts.onChange();
  });
  logoInput.addEventListener("change", handled(async () => {
    const file = logoInput.files?.[0];
    if (!file) return;
    if (file.size > LOGO_MAX_BYTES) {
      logoInput.value = "";
      ctx.flash(`The logo is ${Math.ceil(file.size / 1024)} KB; at most ${LOGO_MAX_BYTES / 1024} KB is accepted.`, true);
      return;
    }
    const mediaType = oneOf(LOGO_MEDIA_TYPES, file.type);
    if (!mediaType) {
      logoInput.value = "";
      ctx.flash(`The logo is ${file.type || "of an unknown type"}; a PNG, JPEG or WebP file is accepted.`, true);
      return;
    }
    uploaded = { data: await readBase64(file), mediaType };
    keepCurrent = false;
    logoNote.textContent = `${file.name}, ${Math.ceil(file.size / 1024)} KB: drawn in the centre (error correction H).`;
    opts.onChange();
  }, (message) => ctx.flash(message, true)));
  preset.input.addEventListener("change", () => {
    const chosen = presets.find((x) => x.name === preset.input.value);
    dirty.clear();
    if (chosen?.design) {
      fg.input.value = chosen.design.foreground.toLowerCase();
      bg.input.value = chosen.design.background.toLowerCase();
      moduleStyle.input.value = chosen.design.moduleStyle;
      eyeStyle.input.value = chosen.design.eyeStyle;
      quietZone.input.value = String(chosen.design.quietZone);
      if (!uploaded) logoNote.textContent = chosen.design.logo ? `The preset's logo.` : logoNote.textContent;
    }
    opts.onChange();
  });
  if (opts.presets) {
    void ctx.api("GET /brand-presets").then((r) => {
      presets = r.presets;
      for (const x of presets) preset.input.append(h("option", { value: x.name }, x.name));
      if (initial?.preset && presets.some((x) => x.name === initial.preset)) preset.input.value = initial.preset;
    });
  }

  const value = (): DesignValue | null => {
    if (!on.checked) return null;
    const design: DesignValue = {};
    const chosen = opts.presets ? preset.input.value : "";
    if (chosen) design.preset = chosen;
    // Without a preset every field is sent; with one, only those set since choosing it.
    const sent = (name: StyleField) => !chosen || dirty.has(name);
    if (sent("foreground")) design.foreground = inputs.foreground.value.toUpperCase();
    if (sent("background")) design.background = inputs.background.value.toUpperCase();
    if (sent("moduleStyle")) design.moduleStyle = oneOf(MODULE_STYLES, inputs.moduleStyle.value);
    if (sent("eyeStyle")) design.eyeStyle = oneOf(EYE_STYLES, inputs.eyeStyle.value);
    if (sent("quietZone")) design.quietZone = Number(inputs.quietZone.value);
    if (uploaded) design.logo = uploaded;
    return design;
  };

  const element = h(
    "fieldset",
    { class: "design-panel", id: p },
    h("legend", {}, "Brand design"),
    opts.alwaysOn ? "" : h("label", { class: "check" }, on, " Use a brand design: colours, logo, module and eye styles"),
    body,
  );
  return { element, value, keepsLogo: () => keepCurrent && !uploaded && on.checked };
}

/** Says in `note` why there is no preview (the service could not be reached). */
function refusePreview(note: HTMLElement, message: string): void {
  note.textContent = `No preview: ${message}`;
  note.classList.add("refused");
}

/** Shows a PNG answer in `img`, or the refusal's message (reason and suggestion) in `note`. */
export async function showPreview(res: Response, img: HTMLImageElement, note: HTMLElement, okText: string): Promise<boolean> {
  if (!res.ok) {
    const problem: { message?: unknown; hint?: unknown } = await res.json().catch(() => ({}));
    note.textContent = `No preview: ${typeof problem.message === "string" ? problem.message : res.statusText}${typeof problem.hint === "string" ? ` ${problem.hint}` : ""}`;
    note.classList.add("refused");
    return false;
  }
  if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(await res.blob());
  note.textContent = okText;
  note.classList.remove("refused");
  return true;
}

const PNG_SIZES = [512, 1024, 2048, 4096];

/** Print downloads of a code: the smallest PDF for a scanning distance (the print hint), and PNGs by size. */
function printFiles(ctx: DesignContext, c: ShownCode): HTMLElement {
  const distance = field("Scanning distance (metres)", h("input", { type: "number", id: "print-distance", min: "0.1", max: "100", step: "0.1", value: "1" }));
  const hintText = h("p", { id: "print-hint", "aria-live": "polite" });
  const size = field("PNG size (pixels)", select("png-size", PNG_SIZES.map((s) => [String(s), `${s} px`] as [string, string])));
  size.input.value = "2048";
  const hintUrl = () => `${c.qrPdfUrl.replace("/img/pdf/", "/img/print-hint/").replace(".pdf?", ".json?")}&distance=${encodeURIComponent(distance.input.value)}`;
  let sideMm: number | undefined;
  const refresh = async () => {
    const res = await fetch(hintUrl());
    // The public print hint (GET /img/print-hint/..., images/printRoutes.ts PrintHintSchema), or an error's message.
    const hint: PrintHint & { message?: string } = await res.json();
    if (!res.ok) {
      hintText.textContent = hint.message ?? "Enter a distance from 0.1 to 100 m.";
      sideMm = undefined;
      return;
    }
    sideMm = hint.sideMm;
    hintText.textContent = `Scans from ${hint.distanceM} m when printed at least ${hint.sideMm} mm wide (code ${hint.symbolMm} mm, modules ${hint.moduleMm} mm). ${hint.rule}`;
  };
  distance.input.addEventListener("input", () => void refresh());
  void refresh();
  return h(
    "section",
    { id: "print-files", "aria-labelledby": "print-h" },
    h("h2", { id: "print-h" }, "Print files"),
    h("div", { class: "form-row" }, distance.wrap),
    hintText,
    h(
      "div",
      { class: "actions" },
      ctx.act("Download PDF at this size", () => downloadUrl(`${c.qrPdfUrl}&size=${sideMm ?? 50}`, `${ctx.slug(c.title)}-${sideMm ?? 50}mm.pdf`), { id: "dl-print-pdf" }),
      size.wrap,
      ctx.act("Download PNG", () => downloadUrl(`${c.qrSvgUrl.replace("/img/svg/", "/img/png/").replace(".svg?", ".png?")}&px=${size.input.value}`, `${ctx.slug(c.title)}-${size.input.value}px.png`), { id: "dl-sized-png" }),
    ),
  );
}

/** The code page's design section: the panel, a live preview of this code's exact image, save, and print files. */
export function codeDesignSection(ctx: DesignContext, c: ShownCode): HTMLElement[] {
  const preview = h("img", { id: "design-preview", alt: `Preview of ${c.title} with this design`, width: "256", height: "256", src: c.qrImageUrl });
  const note = h("p", { class: "muted", id: "design-preview-note", "aria-live": "polite" }, "The code's current image.");
  let timer: ReturnType<typeof setTimeout> | undefined;
  let seq = 0;
  const panel: DesignPanel = designPanel(ctx, {
    id: "code-design",
    initial: c.design,
    presets: true,
    onChange: () => {
      clearTimeout(timer);
      timer = setTimeout(handled(async () => {
        const mine = ++seq;
        const res = await send(ctx.authHeader, "POST /codes/:codeId/preview", { params: { codeId: c.codeId }, body: { design: panel.value(), keepLogo: panel.keepsLogo() } });
        if (mine === seq) await showPreview(res, preview, note, "Exactly the image this code gets when you save, checked by two decoders.");
      }, (message) => refusePreview(note, message)), 250);
    },
  });
  const save = ctx.act("Save design", async () => {
    await ctx.api("POST /codes/:codeId", { params: { codeId: c.codeId }, body: { design: panel.value(), keepLogo: panel.keepsLogo() } });
    // The image keeps its address: refresh the browser's cached copy so the page shows the new design.
    await fetch(c.qrImageUrl, { cache: "reload" });
    ctx.flash("Design saved: the code's PNG, SVG and PDF now show it, at the same addresses.");
    await ctx.render();
  }, { id: "save-design", class: "primary" });
  return [
    h(
      "section",
      { id: "code-design-section", "aria-labelledby": "design-h" },
      h("h2", { id: "design-h" }, "Design"),
      h("div", { class: "create" }, h("div", {}, panel.element, h("div", { class: "actions" }, save)), h("figure", { class: "preview" }, preview, h("figcaption", {}, note))),
    ),
    printFiles(ctx, c),
  ];
}

/** Settings: the workspace's brand presets, saved once and used by name by people, imports and agents. */
export async function brandPresetsSection(ctx: DesignContext): Promise<HTMLElement> {
  const { presets } = await ctx.api("GET /brand-presets");
  const swatch = (hex: string) => {
    const chip = h("span", { class: "swatch", "aria-hidden": "true" });
    chip.style.backgroundColor = hex; // through the CSSOM: the console's CSP refuses style attributes
    return h("span", { class: "swatch-row" }, chip, hex);
  };
  const rows = presets.flatMap((x) => (x.design ? [{ name: x.name, design: x.design }] : [])).map((x) => [
    h("strong", {}, x.name),
    h("span", {}, swatch(x.design.foreground), " on ", swatch(x.design.background)),
    `${x.design.moduleStyle} modules, ${x.design.eyeStyle} eyes, quiet zone ${x.design.quietZone}`,
    x.design.logo ? `logo ${x.design.logo.width}×${x.design.logo.height}` : "no logo",
    ctx.act("Delete", async () => {
      await ctx.api("DELETE /brand-presets/:name", { params: { name: x.name } });
      ctx.flash(`Brand preset ${x.name} deleted. Codes made with it keep their design.`);
      await ctx.render();
    }, { "aria-label": `Delete brand preset ${x.name}`, class: "delete-preset" }),
  ]);
  const name = field("Preset name", h("input", { id: "preset-name", maxlength: String(PRESET_NAME_MAX), pattern: PRESET_NAME_HTML_PATTERN }));
  // An example code in the preset, drawn by the backend like every preview, so a preset is seen before it is saved.
  // A neutral box until the first example has loaded: an image without a picture shows its alt text.
  const { box: exampleBox, img: example } = pendingImage({ id: "preset-preview", alt: "Example code in this preset", width: "200", height: "200" });
  const exampleNote = h("p", { class: "muted", id: "preset-preview-note", "aria-live": "polite" }, "An example code in this design.");
  let timer: ReturnType<typeof setTimeout> | undefined;
  let seq = 0;
  const drawExample = () => {
    clearTimeout(timer);
    timer = setTimeout(handled(async () => {
      const mine = ++seq;
      const design = panel.value();
      const res = await send(ctx.authHeader, "POST /codes/preview", { body: { destinationUrl: "https://example.com/", ...(design ? { design } : {}) } });
      if (mine === seq && (await showPreview(res, example, exampleNote, "An example code in this design, checked by two decoders."))) example.dataset.for = JSON.stringify(design);
    }, (message) => refusePreview(exampleNote, message)), 250);
  };
  const panel: DesignPanel = designPanel(ctx, { id: "preset-design", presets: false, alwaysOn: true, onChange: drawExample });
  drawExample();
  return h(
    "section",
    { id: "brand-presets", "aria-labelledby": "presets-h" },
    h("h2", { id: "presets-h" }, "Brand presets"),
    h("p", { class: "muted" }, "Save your colours, logo and styles once; use them by name on new codes, imports, and from agents (design: { preset: \"<name>\" })."),
    rows.length ? h("div", { id: "preset-rows" }, ...rows.map((cells) => h("div", { class: "preset-row", "data-preset": String((cells[0] as HTMLElement).textContent) }, ...cells.map((cell) => h("span", {}, cell))))) : h("p", { class: "muted" }, "No presets yet."),
    h("div", { class: "form-row" }, name.wrap),
    h("div", { class: "create" }, panel.element, h("figure", { class: "preview" }, exampleBox, h("figcaption", {}, exampleNote))),
    h(
      "div",
      { class: "actions" },
      ctx.act("Save preset", async () => {
        const presetName = name.input.value.trim();
        const design = panel.value();
        if (!design) return; // the panel is always on here
        await ctx.api("POST /brand-presets/:name", { params: { name: presetName }, body: { design } });
        ctx.flash(`Brand preset ${presetName} saved.`);
        await ctx.render();
      }, { id: "save-preset", class: "primary" }),
    ),
  );
}
