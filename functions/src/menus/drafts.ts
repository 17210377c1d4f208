// The domain actions on drafts (menus, audio codes, challenges): what a new draft holds and how a menu
// grows. Every surface that makes drafts calls these; the MCP tools only shape their answers.
import { randomBytes } from "node:crypto";
import { AppError } from "../core/errors";
import { createDraft, updateDraft, type AudioCodeRecord, type ChallengeRecord, type MenuItemRecord, type MenuRecord } from "../store/drafts";
import { LIMITS } from "./fields";

export async function draftMenu(merchantId: string, input: { name: string; description?: string; locationId?: string }, now = new Date()): Promise<MenuRecord> {
  return createDraft(merchantId, "menus", {
    name: input.name,
    description: input.description ?? null,
    locationId: input.locationId ?? null,
    sections: [],
    status: "draft",
    createdAt: now,
    updatedAt: now,
  });
}

export interface AddedMenuItem {
  menuId: string;
  sectionName: string;
  sectionCreated: boolean;
  /** 1-based place of the item in its section. */
  position: number;
  item: MenuItemRecord;
}

/**
 * Appends an item to a menu's section, made when first named (names match without regard to case); a menu
 * holds at most LIMITS.itemsPerMenu items, so its document stays small. Another workspace's menu is not found.
 */
export async function addMenuItem(
  merchantId: string,
  input: { menuId: string; sectionName: string; name: string; description?: string; price?: number },
  now = new Date(),
): Promise<AddedMenuItem> {
  return updateDraft(merchantId, "menus", input.menuId, (menu) => {
    const sections = menu.sections.map((s) => ({ ...s, items: [...s.items] }));
    const itemCount = sections.reduce((n, s) => n + s.items.length, 0);
    if (itemCount >= LIMITS.itemsPerMenu) throw new AppError("CONFLICT", `A menu holds at most ${LIMITS.itemsPerMenu} items`);
    const item: MenuItemRecord = { itemId: `item_${randomBytes(6).toString("hex")}`, name: input.name, description: input.description ?? null, price: input.price ?? null };
    let section = sections.find((s) => s.name.toLowerCase() === input.sectionName.toLowerCase());
    const sectionCreated = !section;
    if (!section) {
      section = { name: input.sectionName, items: [] };
      sections.push(section);
    }
    section.items.push(item);
    return {
      next: { ...menu, sections, updatedAt: now },
      result: { menuId: input.menuId, sectionName: section.name, sectionCreated, position: section.items.length, item },
    };
  });
}

const isUrl = (s: string) => /^https?:\/\/\S+$/i.test(s);

/** A draft audio code; its payload is a URL when it reads as one (http or https), else text. */
export async function draftAudioCode(merchantId: string, input: { title: string; payloadText: string; campaign?: string }, now = new Date()): Promise<AudioCodeRecord> {
  return createDraft(merchantId, "audioCodes", {
    title: input.title,
    payloadText: input.payloadText,
    payloadKind: isUrl(input.payloadText) ? "url" : "text",
    campaign: input.campaign ?? null,
    status: "draft",
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * A draft challenge. Its window, when given, must end after it starts (the tool's schema says so first;
 * this holds for every caller).
 */
export async function draftChallenge(
  merchantId: string,
  input: { name: string; challengeType: string; description?: string; rewardText?: string; startsAt?: string; endsAt?: string },
  now = new Date(),
): Promise<ChallengeRecord> {
  const startsAt = input.startsAt ? new Date(input.startsAt).toISOString() : null;
  const endsAt = input.endsAt ? new Date(input.endsAt).toISOString() : null;
  if (startsAt && endsAt && Date.parse(endsAt) <= Date.parse(startsAt)) throw new AppError("VALIDATION_FAILED", "endsAt must be after startsAt", { details: { path: ["endsAt"] } });
  return createDraft(merchantId, "challenges", {
    name: input.name,
    challengeType: input.challengeType,
    description: input.description ?? null,
    rewardText: input.rewardText ?? null,
    startsAt,
    endsAt,
    status: "draft",
    createdAt: now,
    updatedAt: now,
  });
}
