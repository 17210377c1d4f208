// Drafts (menus, audio codes, challenges) as every surface returns them (menus/schemas.ts declares them):
// times as ISO 8601, without the publication fields, which only the console's lists add (publicationOf).
import type { AudioCodeRecord, ChallengeRecord, MenuRecord } from "../store/drafts";
import type { CHALLENGE_TYPES } from "./fields";

export type { MenuSectionRecord as MenuSection } from "../store/drafts";

export function publicMenu(menu: MenuRecord) {
  return {
    menuId: menu.menuId,
    name: menu.name,
    description: menu.description,
    locationId: menu.locationId,
    status: menu.status,
    sections: menu.sections,
    itemCount: menu.sections.reduce((n, s) => n + s.items.length, 0),
    createdAt: menu.createdAt.toISOString(),
    updatedAt: menu.updatedAt.toISOString(),
  };
}

export function publicAudioCode(audio: AudioCodeRecord) {
  const { publishedAt: _publishedAt, publishedBy: _publishedBy, ...draft } = audio;
  return { ...draft, createdAt: audio.createdAt.toISOString(), updatedAt: audio.updatedAt.toISOString() };
}

export function publicChallenge(challenge: ChallengeRecord) {
  const { publishedAt: _publishedAt, publishedBy: _publishedBy, ...draft } = challenge;
  // Stored only by draftChallenge (menus/drafts.ts), whose callers give one of CHALLENGE_TYPES.
  const challengeType = challenge.challengeType as (typeof CHALLENGE_TYPES)[number];
  return { ...draft, challengeType, createdAt: challenge.createdAt.toISOString(), updatedAt: challenge.updatedAt.toISOString() };
}

/** When and by whom a draft was published (menus/schemas.ts publicationShape). */
export function publicationOf(draft: { publishedAt: Date | null; publishedBy: string | null }) {
  return { publishedAt: draft.publishedAt?.toISOString() ?? null, publishedBy: draft.publishedBy };
}
