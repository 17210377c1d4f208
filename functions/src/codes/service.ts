// Creating, listing and changing account QR codes. No HTTP here: tools and endpoints call these with a
// merchant id that they derived from the verified caller.
import { isDeepStrictEqual } from "node:util";
import { getConfig } from "../core/config";
import { AppError } from "../core/errors";
import { db } from "../core/firebase";
import { logError } from "../core/log";
import { imageStore, type StoredImage } from "../store/images";
import type { BoostFrame, FrameName, Template } from "../qr/frames";
import { effectiveLook } from "./look";
import { renderFramedPng, renderPlainPng } from "../qr/render";
import { renderSvg } from "../qr/svg";
import { addNewCodes, findCode, findCodeRecord, newCodeId, readCodes, updateCodeInTransaction, type CodeLookup } from "../store/codes";
import { readCodeCounts } from "../store/catalogue";
import { uniqueTags, type DesignInput, type ScanBeepSound } from "./fields";
import type { StoredDesign } from "../designs/design";
import { newUniqueQrId } from "./ids";
import type { CodeSource, QrCode } from "./model";
import { domainChoices, dynamicLinkFor, type CodeDomain } from "./domains";

export { dynamicLinkFor };

export interface NewCodeInput {
  title: string;
  destinationUrl: string;
  campaign?: string;
  tags?: string[];
  dynamic?: boolean;
  template?: Template;
  scanBeepSound?: ScanBeepSound;
  boostFrame?: BoostFrame;
  design?: DesignInput;
  /** One of the workspace's active domains for the link (dynamic codes); null: none; absent: the workspace's default. */
  domainId?: string | null;
}

/** Designs are drawn by designs/ (sharp, two decoders), loaded only when a code has one. */
const designs = () => require("../designs/design") as typeof import("../designs/design");
/** The blocklist loads its data on the first check, not at cold start. */
const abuse = () => require("../abuse/service") as typeof import("../abuse/service");

/** The frame drawn around a stored code (its template is already null when a boost frame replaced it). */
export const frameOf = (code: Pick<QrCode, "boostFrame" | "template">): FrameName | null => effectiveLook(code).frame;

/** What the image encodes: the dynamic link for dynamic codes, the destination itself for static ones. */
export function encodedPayload(code: Pick<QrCode, "dynamic" | "dynamicLink" | "destinationUrl">): string {
  return code.dynamic ? code.dynamicLink! : code.destinationUrl;
}

export type Drawn = Pick<QrCode, "dynamic" | "dynamicLink" | "destinationUrl" | "boostFrame" | "template" | "design">;

/** The code's PNG; a designed code's image has been decoded by both decoders before this returns. */
export async function renderCodePng(code: Drawn): Promise<Buffer> {
  const frame = frameOf(code);
  if (code.design) return (await designs().renderDesignedFiles(encodedPayload(code), code.design, frame)).png;
  return frame ? renderFramedPng(encodedPayload(code), frame) : renderPlainPng(encodedPayload(code));
}

/** The code's SVG file, drawn from its record (served at qrSvgUrl). */
export async function renderCodeSvg(code: Drawn): Promise<string> {
  const frame = frameOf(code);
  if (code.design) return designs().renderDesignedSvg(encodedPayload(code), code.design, frame);
  return renderSvg(encodedPayload(code), frame);
}

/** Resolves each distinct design input once (bulk calls share one design object across their rows). */
function designResolver(merchantId: string): (input: DesignInput | undefined) => Promise<StoredDesign | null> {
  const resolved = new Map<DesignInput, Promise<StoredDesign>>();
  return (input) => {
    if (!input) return Promise.resolve(null);
    let design = resolved.get(input);
    if (!design) {
      design = designs().resolveDesign(merchantId, input);
      resolved.set(input, design);
    }
    return design;
  };
}

/** Builds the record of a new code (ids, derived fields), before its image exists. */
function draftCode(merchantId: string, input: NewCodeInput, design: StoredDesign | null, source: CodeSource, now: Date, domain: CodeDomain): Omit<QrCode, "qrImageUrl" | "imagePath" | "imageToken"> {
  const scanBeepSound = input.scanBeepSound ?? null;
  const { template, boostFrame, dynamic } = effectiveLook(input);
  const uniqueQRCodeID = newUniqueQrId();
  return {
    codeId: newCodeId(merchantId),
    merchantId,
    uniqueQRCodeID,
    title: input.title,
    destinationUrl: input.destinationUrl,
    campaign: input.campaign ?? null,
    tags: uniqueTags(input.tags),
    dynamic,
    dynamicLink: dynamic ? dynamicLinkFor(uniqueQRCodeID, domain?.hostname) : null,
    ...(domain ? { domainId: domain.domainId, onDomainHost: true } : {}),
    template,
    scanBeepSound,
    boostFrame,
    design,
    status: "draft",
    source,
    createdAt: now,
    updatedAt: now,
  };
}

const imagePathOf = (merchantId: string, codeId: string) => `qr/${merchantId}/${codeId}.png`;

async function withImage(draft: Omit<QrCode, "qrImageUrl" | "imagePath" | "imageToken">): Promise<QrCode> {
  const png = await renderCodePng(draft);
  const image: StoredImage = await imageStore().put(imagePathOf(draft.merchantId, draft.codeId), png);
  return { ...draft, qrImageUrl: image.url, imagePath: image.path, imageToken: image.token };
}

/** Renders and stores the images of new codes; nothing is written to Firestore yet. */
export async function prepareCodes(merchantId: string, inputs: readonly NewCodeInput[], source: CodeSource): Promise<QrCode[]> {
  await assertCodeQuota(merchantId, inputs.length);
  await assertDestinationsAllowed(merchantId, inputs.map((i) => i.destinationUrl));
  const domains = await domainsOf(merchantId, inputs);
  const now = new Date();
  const designOf = designResolver(merchantId);
  const prepared = await Promise.allSettled(inputs.map(async (input, i) => withImage(draftCode(merchantId, input, await designOf(input.design), source, now, domains[i]))));
  const stored = prepared.flatMap((p) => (p.status === "fulfilled" ? [p.value] : []));
  const failed = prepared.find((p) => p.status === "rejected");
  if (failed) {
    await discardPrepared(stored);
    throw (failed as PromiseRejectedResult).reason;
  }
  return stored;
}

/** The domain of each new code; the whole call is refused (nothing rendered or written) when any input's is. */
async function domainsOf(merchantId: string, inputs: readonly NewCodeInput[]): Promise<CodeDomain[]> {
  const choices = await domainChoices(merchantId, inputs.map((input) => ({ domainId: input.domainId, dynamic: effectiveLook(input).dynamic })));
  return choices.map((c) => {
    if (!c.ok) throw c.error;
    return c.domain;
  });
}

/** Refuses the whole call when any destination is blocklisted (DESTINATION_BLOCKED), before anything is rendered. */
export async function assertDestinationsAllowed(merchantId: string, urls: readonly string[]): Promise<void> {
  for (const url of new Set(urls)) await abuse().assertDestinationAllowed(url, { merchantId });
}

/**
 * Refuses codes past the workspace's quota (WORKSPACE_CODE_QUOTA) before anything is rendered or written.
 * The totals are read outside the creating commit, so concurrent calls can pass it together by at most
 * their own sizes (50 codes a bulk call): a soft ceiling, documented in docs/operations.md.
 */
export async function assertCodeQuota(merchantId: string, adding: number): Promise<void> {
  const quota = getConfig().workspaceCodeQuota;
  const { total } = await readCodeCounts(merchantId);
  if (total + adding > quota) {
    throw new AppError("FORBIDDEN", `This workspace holds ${total} codes and its quota is ${quota}: ${adding} more would pass it`, {
      hint: "Nothing was created. Ask the service operator to raise the workspace code quota.",
      details: { quota, total, adding },
    });
  }
}

/** Deletes the images of prepared codes whose documents were not written. */
export async function discardPrepared(codes: readonly Pick<QrCode, "imagePath">[]): Promise<void> {
  await Promise.all(codes.map((c) => imageStore().delete(c.imagePath).catch((e) => logError("codes.image_cleanup_failed", "image cleanup failed", e))));
}

/** gRPC codes after which a commit may or may not have been applied. */
const AMBIGUOUS_CODES = new Set([1, 2, 4, 13, 14]); // CANCELLED, UNKNOWN, DEADLINE_EXCEEDED, INTERNAL, UNAVAILABLE

/**
 * After a commit that wrote prepared codes failed: "discarded" when it surely was not applied (refused
 * outright: its images are deleted), "written" when it was applied after all (an ambiguous failure, and
 * the first code is there: the caller succeeded), "kept" when nobody can tell yet (the images stay: an
 * orphan file costs little, a deleted image of a live code breaks every printed copy).
 */
export async function settleFailedCommit(merchantId: string, codes: readonly QrCode[], error: unknown): Promise<"written" | "discarded" | "kept"> {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "number" || !AMBIGUOUS_CODES.has(code)) {
    await discardPrepared(codes);
    return "discarded";
  }
  // Not seen yet is not proof: the commit may still be applied after this read.
  const landed = codes.length > 0 && (await readCodes(merchantId, [codes[0].codeId]).then((found) => found.length > 0, () => false));
  if (landed) return "written";
  logError("codes.commit_ambiguous", "ambiguous commit of new codes: images kept", error);
  return "kept";
}

/**
 * Creates codes all or nothing: images are stored first, then every code and link document is written
 * in one batch; if the batch fails, the images are deleted again and no document exists.
 * `extraWrites` joins the same batch (the bulk endpoint's idempotency record).
 */
export async function createCodes(
  merchantId: string,
  inputs: readonly NewCodeInput[],
  source: CodeSource,
  extraWrites?: (batch: FirebaseFirestore.WriteBatch, codes: QrCode[]) => void,
): Promise<QrCode[]> {
  const codes = await prepareCodes(merchantId, inputs, source);
  try {
    const batch = db().batch();
    addNewCodes(batch, merchantId, codes);
    extraWrites?.(batch, codes);
    await batch.commit();
  } catch (error) {
    if ((await settleFailedCommit(merchantId, codes, error)) !== "written") throw error;
  }
  await emitCodeEvents("code.created", codes);
  return codes;
}

/** Tells webhook subscribers about changed codes; the webhook modules load on the first change, not at cold start. */
export function emitCodeEvents(event: "code.created" | "code.updated" | "code.published", codes: readonly QrCode[]): Promise<void> {
  return (require("../webhooks/service") as typeof import("../webhooks/service")).emitCodeEvents(event, codes);
}

export async function createCode(merchantId: string, input: NewCodeInput, source: CodeSource = "tool"): Promise<QrCode> {
  const [code] = await createCodes(merchantId, [input], source);
  return code;
}

interface CodeChanges {
  destinationUrl?: string;
  title?: string;
  scanBeepSound?: ScanBeepSound | "none";
  /** A new design (replaces the whole design), or null to return to the plain code. */
  design?: DesignInput | null;
  /** With a design that brings no logo of its own: keep the code's current logo (the console's design panel). */
  keepLogo?: boolean;
  /** Put the code's link on one of the workspace's active domains, or (null) back on the service's own host. */
  domainId?: string | null;
}

/** The link fields a domain change gives a code, after checking the domain may be named. */
async function domainChangeOf(merchantId: string, code: Pick<QrCode, "dynamic" | "uniqueQRCodeID">, domainId: string | null): Promise<Partial<Pick<QrCode, "domainId" | "onDomainHost" | "dynamicLink">>> {
  const [choice] = await domainChoices(merchantId, [{ domainId, dynamic: code.dynamic }]);
  if (!choice.ok) throw choice.error;
  if (!code.dynamic) return {};
  return { domainId: choice.domain?.domainId ?? null, onDomainHost: choice.domain !== null, dynamicLink: dynamicLinkFor(code.uniqueQRCodeID, choice.domain?.hostname) };
}

/**
 * The design a change gives a code, resolved as on create. With keepLogo, a design that brings no logo
 * (neither its own nor its preset's) keeps the code's current one: a logo cannot be sent back as a file.
 */
export async function changedDesign(merchantId: string, current: Pick<QrCode, "design">, input: DesignInput, keepLogo = false): Promise<StoredDesign> {
  const design = await designs().resolveDesign(merchantId, input);
  return keepLogo && !design.logo && current.design?.logo ? { ...design, logo: current.design.logo } : design;
}

/**
 * Applies changes to a code of `merchantId`. A dynamic code's link document changes in the same
 * transaction, so the very next scan follows. A static code encodes its URL, so a new destination is
 * re-rendered into the same image path with the same token: the qrImageUrl stays valid.
 */
export async function updateCode(merchantId: string, lookup: CodeLookup, changes: CodeChanges): Promise<QrCode> {
  if (changes.destinationUrl === undefined && changes.title === undefined && changes.scanBeepSound === undefined && changes.design === undefined && changes.domainId === undefined) {
    throw new AppError("VALIDATION_FAILED", "Nothing to update: give destinationUrl, title, scanBeepSound, design or domainId");
  }
  if (changes.destinationUrl !== undefined) await assertDestinationsAllowed(merchantId, [changes.destinationUrl]);
  // Render first: a destination the code cannot hold, or a design that does not scan, fails here, before
  // anything is written, and the image that goes out after the commit is the one that was checked.
  let rendered: { url: string; link: string | null; design: StoredDesign | null; png: Buffer } | undefined;
  const design =
    changes.design === undefined || changes.design === null
      ? changes.design
      : await changedDesign(merchantId, changes.keepLogo ? await findCode(merchantId, lookup) : { design: null }, changes.design, changes.keepLogo);
  let domainChange: Partial<Pick<QrCode, "domainId" | "onDomainHost" | "dynamicLink">> | undefined;
  if (changes.destinationUrl !== undefined || design !== undefined || changes.domainId !== undefined) {
    const current = await findCode(merchantId, lookup);
    if (changes.domainId !== undefined) domainChange = await domainChangeOf(merchantId, current, changes.domainId);
    const next = { ...current, ...domainChange, destinationUrl: changes.destinationUrl ?? current.destinationUrl, design: design === undefined ? (current.design ?? null) : design };
    if (design !== undefined || next.dynamicLink !== current.dynamicLink || (!current.dynamic && next.destinationUrl !== current.destinationUrl)) {
      rendered = { url: next.destinationUrl, link: next.dynamicLink, design: next.design, png: await renderCodePng(next) };
    }
  }
  const updated = await db().runTransaction(async (tx) => {
    const { code, stored } = await findCodeRecord(merchantId, lookup, tx);
    if (changes.destinationUrl !== undefined || design !== undefined) abuse().assertNotTakenDown(code);
    if (changes.scanBeepSound && changes.scanBeepSound !== "none" && !code.dynamic) {
      throw new AppError("VALIDATION_FAILED", "scanBeepSound needs a dynamic code; this code is static", {
        hint: "Create a dynamic code (dynamic: true) to play a sound on scan.",
      });
    }
    const next: QrCode = {
      ...code,
      title: changes.title ?? code.title,
      destinationUrl: changes.destinationUrl ?? code.destinationUrl,
      scanBeepSound: changes.scanBeepSound === undefined ? code.scanBeepSound : changes.scanBeepSound === "none" ? null : changes.scanBeepSound,
      design: design === undefined ? (code.design ?? null) : design,
      ...(code.dynamic ? domainChange : undefined),
      updatedAt: new Date(),
    };
    updateCodeInTransaction(tx, next, stored);
    return { before: code, after: next };
  });
  const { before, after } = updated;
  if (design !== undefined || after.dynamicLink !== before.dynamicLink || (!after.dynamic && after.destinationUrl !== before.destinationUrl)) {
    // Re-render from the committed state so the last writer's image reflects the last committed URL and design.
    const latest = await findCode(merchantId, { codeId: after.codeId });
    const same = rendered?.url === latest.destinationUrl && rendered.link === latest.dynamicLink && isDeepStrictEqual(rendered.design, latest.design ?? null);
    const png = same ? rendered!.png : await renderCodePng(latest);
    await imageStore().put(latest.imagePath, png, latest.imageToken);
    await emitCodeEvents("code.updated", [latest]);
    return latest;
  }
  await emitCodeEvents("code.updated", [after]);
  return after;
}
