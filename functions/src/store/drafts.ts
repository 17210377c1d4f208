// Draft audio codes, menus and challenges, each under its workspace, as typed records: one converter per
// kind turns a stored document into its record (Timestamps into Dates, absent optional fields into null),
// so nothing above reads raw document data. The rules for making and changing drafts live in
// menus/drafts.ts; this module only stores them.
import type { DocumentData } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { COLLECTIONS } from "./collections";
import { timeOrderedPage } from "./pageCursor";
import { dateOf, dateOrNull, recordConverter, textOrNull } from "./records";

export type DraftStatus = "draft" | "published";

export interface MenuItemRecord {
  itemId: string;
  name: string;
  description: string | null;
  price: number | null;
}

export interface MenuSectionRecord {
  name: string;
  items: MenuItemRecord[];
}

interface DraftRecordBase {
  status: DraftStatus;
  createdAt: Date;
  updatedAt: Date;
  /** Set by the console's publish (store/publication.ts); null while a draft. */
  publishedAt: Date | null;
  publishedBy: string | null;
}

export interface MenuRecord extends DraftRecordBase {
  menuId: string;
  name: string;
  description: string | null;
  locationId: string | null;
  sections: MenuSectionRecord[];
}

export interface AudioCodeRecord extends DraftRecordBase {
  audioCodeId: string;
  title: string;
  payloadText: string;
  payloadKind: "url" | "text";
  campaign: string | null;
}

export interface ChallengeRecord extends DraftRecordBase {
  challengeId: string;
  name: string;
  challengeType: string;
  description: string | null;
  rewardText: string | null;
  /** ISO 8601 instants, as the caller gave them, normalised. */
  startsAt: string | null;
  endsAt: string | null;
}

export interface DraftRecords {
  menus: MenuRecord;
  audioCodes: AudioCodeRecord;
  challenges: ChallengeRecord;
}
export type DraftKind = keyof DraftRecords;

const ID_FIELD = { menus: "menuId", audioCodes: "audioCodeId", challenges: "challengeId" } as const satisfies { [K in DraftKind]: keyof DraftRecords[K] };
/** The draft collections under each workspace. */
export const DRAFT_KINDS = Object.keys(ID_FIELD) as DraftKind[];

/** The fields every kind shares, read from a stored document. */
const baseOf = (d: DocumentData): DraftRecordBase => ({
  status: d.status === "published" ? "published" : "draft",
  createdAt: dateOf(d.createdAt),
  updatedAt: dateOf(d.updatedAt),
  publishedAt: dateOrNull(d.publishedAt),
  publishedBy: textOrNull(d.publishedBy),
});

const READERS: { [K in DraftKind]: (d: DocumentData, id: string) => DraftRecords[K] } = {
  menus: (d, id) => ({
    ...baseOf(d),
    menuId: id,
    name: String(d.name ?? ""),
    description: textOrNull(d.description),
    locationId: textOrNull(d.locationId),
    sections: Array.isArray(d.sections) ? (d.sections as MenuSectionRecord[]) : [],
  }),
  audioCodes: (d, id) => ({
    ...baseOf(d),
    audioCodeId: id,
    title: String(d.title ?? ""),
    payloadText: String(d.payloadText ?? ""),
    payloadKind: d.payloadKind === "url" ? "url" : "text",
    campaign: textOrNull(d.campaign),
  }),
  challenges: (d, id) => ({
    ...baseOf(d),
    challengeId: id,
    name: String(d.name ?? ""),
    challengeType: String(d.challengeType ?? ""),
    description: textOrNull(d.description),
    rewardText: textOrNull(d.rewardText),
    startsAt: textOrNull(d.startsAt),
    endsAt: textOrNull(d.endsAt),
  }),
};

const converter = <K extends DraftKind>(kind: K) => recordConverter<DraftRecords[K]>(READERS[kind]);

const draftsOf = <K extends DraftKind>(merchantId: string, kind: K) =>
  db().collection(COLLECTIONS.workspaces).doc(merchantId).collection(kind).withConverter(converter(kind));

/** Stores a new draft (never published yet) under a fresh id and returns its record. */
export async function createDraft<K extends DraftKind>(
  merchantId: string,
  kind: K,
  data: Omit<DraftRecords[K], (typeof ID_FIELD)[K] | "publishedAt" | "publishedBy">,
): Promise<DraftRecords[K]> {
  const ref = draftsOf(merchantId, kind).doc();
  // The record is the data plus its kind's id field, which TypeScript cannot follow through the generic key.
  const record = { ...data, publishedAt: null, publishedBy: null, [ID_FIELD[kind]]: ref.id } as unknown as DraftRecords[K];
  await ref.create(record);
  return record;
}

export async function listDrafts<K extends DraftKind>(merchantId: string, kind: K, limit: number): Promise<DraftRecords[K][]> {
  const snap = await draftsOf(merchantId, kind).orderBy("createdAt", "desc").limit(limit).get();
  return snap.docs.map((d) => d.data());
}

/** One page of a workspace's drafts of a kind, newest first (createdAt, then id), after `cursor` (store/pageCursor.ts). */
export async function listDraftPage<K extends DraftKind>(merchantId: string, kind: K, page: { limit: number; cursor?: string }): Promise<{ items: DraftRecords[K][]; nextCursor: string | null }> {
  const { docs, nextCursor } = await timeOrderedPage(draftsOf(merchantId, kind), "createdAt", kind, page);
  return { items: docs.map((d) => d.data()), nextCursor };
}

/**
 * Read-modify-write of one draft of `merchantId`; another workspace's id is "not found". Merged, so a field
 * the record does not know (written by a newer release) is kept.
 */
export async function updateDraft<K extends DraftKind, R>(
  merchantId: string,
  kind: K,
  id: string,
  change: (current: DraftRecords[K]) => { next: DraftRecords[K]; result: R },
): Promise<R> {
  const ref = draftsOf(merchantId, kind).doc(id);
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    const current = snap.data();
    if (!current) throw new AppError("NOT_FOUND", `No such ${kind === "menus" ? "menu" : "draft"} in this workspace`);
    const { next, result } = change(current);
    tx.set(ref, next, { merge: true });
    return result;
  });
}
