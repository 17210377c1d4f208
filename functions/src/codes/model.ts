// The account-owned QR code as stored and as returned by tools and endpoints.
import type { BoostFrame, Template } from "../qr/frames";
import type { ScanBeepSound } from "./fields";
import type { StoredDesign } from "../designs/design";
import { getConfig } from "../core/config";
import type { CodeRulesInput } from "../campaigns/rules";

export type CodeSource = "tool" | "bulk" | "sandbox-claim" | "console";

export interface QrCode {
  codeId: string;
  merchantId: string;
  uniqueQRCodeID: string;
  title: string;
  destinationUrl: string;
  campaign: string | null;
  tags: string[];
  dynamic: boolean;
  /** `{dynamic_link_url}/qr/<uniqueQRCodeID>` for dynamic codes, else null. */
  dynamicLink: string | null;
  template: Template | null;
  scanBeepSound: ScanBeepSound | null;
  boostFrame: BoostFrame | null;
  /** Brand design (docs/decisions.md, "Brand designs"); null or absent: the plain black-on-white code. */
  design?: StoredDesign | null;
  qrImageUrl: string;
  imagePath: string;
  imageToken: string;
  status: "draft" | "published";
  source: CodeSource;
  createdAt: Date;
  updatedAt: Date;
  /** Set by an operator's takedown (abuse/service.ts): scans see a warning page; absent otherwise. */
  takenDown?: TakenDown;
  /** A dynamic code's campaign settings as written (docs/campaign-rules.md); its link holds them parsed. Absent: none. */
  campaignRules?: CodeRulesInput;
}

/** Why and when an operator took a code down; on the code and its link, removed on restore. */
export interface TakenDown {
  reason: string;
  /** ISO time (a plain string, so the record reads back the same from either document). */
  at: string;
  reportId: string | null;
}

/** The code as print-ready SVG (served by the images function, drawn from the record): stable like qrImageUrl. */
export function svgUrlOf(code: Pick<QrCode, "merchantId" | "codeId" | "imageToken">): string {
  return `${getConfig().appUrl}/img/svg/${code.merchantId}/${code.codeId}.svg?token=${code.imageToken}`;
}

/** The code as a print PDF (vector modules; `&size=<mm>` or `&distance=<m>` choose its size), stable like qrImageUrl. */
export function pdfUrlOf(code: Pick<QrCode, "merchantId" | "codeId" | "imageToken">): string {
  return `${getConfig().appUrl}/img/pdf/${code.merchantId}/${code.codeId}.pdf?token=${code.imageToken}`;
}

/** A design as callers see it: the logo's storage path stays server-side. */
export function publicDesign(design: StoredDesign | null) {
  if (!design) return null;
  const { logo, ...style } = design;
  return { ...style, logo: logo ? { mediaType: "image/png" as const, width: logo.width, height: logo.height, sha256: logo.sha256 } : null };
}

/** A saved brand preset as callers see it (console Settings and svc.brand.list_presets). */
export function publicBrandPreset(preset: { name: string; design: StoredDesign; updatedAt: Date }) {
  return { name: preset.name, design: publicDesign(preset.design), updatedAt: preset.updatedAt.toISOString() };
}

/** What callers see: storage internals (image path and token) stay server-side. */
export function publicCode(code: QrCode) {
  return {
    codeId: code.codeId,
    uniqueQRCodeID: code.uniqueQRCodeID,
    title: code.title,
    destinationUrl: code.destinationUrl,
    campaign: code.campaign,
    tags: code.tags,
    dynamic: code.dynamic,
    dynamicLink: code.dynamicLink,
    template: code.template,
    scanBeepSound: code.scanBeepSound,
    boostFrame: code.boostFrame,
    design: publicDesign(code.design ?? null),
    qrImageUrl: code.qrImageUrl,
    /** Addition to the spec's fields: the same code as print-ready SVG, at a stable URL. */
    qrSvgUrl: svgUrlOf(code),
    /** Addition: the same code as a print PDF, sized for scanning from 1 m unless size or distance is given. */
    qrPdfUrl: pdfUrlOf(code),
    status: code.status,
    source: code.source,
    createdAt: code.createdAt.toISOString(),
    updatedAt: code.updatedAt.toISOString(),
  };
}

export type PublicCode = ReturnType<typeof publicCode>;
