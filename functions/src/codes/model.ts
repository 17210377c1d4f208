// The account-owned QR code as stored and as returned by tools and endpoints.
import type { BoostFrame, Template } from "../qr/frames";
import type { ScanBeepSound } from "./fields";

export type CodeSource = "tool" | "bulk" | "sandbox-claim";

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
  qrImageUrl: string;
  imagePath: string;
  imageToken: string;
  status: "draft" | "published";
  source: CodeSource;
  createdAt: Date;
  updatedAt: Date;
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
    qrImageUrl: code.qrImageUrl,
    status: code.status,
    source: code.source,
    createdAt: code.createdAt.toISOString(),
    updatedAt: code.updatedAt.toISOString(),
  };
}

