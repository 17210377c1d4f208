// Link types of the GS1 Web Vocabulary (https://ref.gs1.org/voc/, "Link types"): the ones a link may carry,
// written as CURIEs (`gs1:pip`). The resolver accepts a requested linkType as a CURIE or as the full URI
// in the vocabulary's namespace, and writes full URIs as linkset relation types.

/** The namespace the linkset's relation types use (as GS1's model linkset does). */
export const GS1_VOC = "https://ref.gs1.org/voc/";
/** The namespace of the vocabulary's terms, also accepted in a request. */
const GS1_VOC_ALIASES = ["https://gs1.org/voc/", "http://gs1.org/voc/", "https://ref.gs1.org/voc/"];

export const GS1_LINK_TYPES = [
  "activityIdeas", "allergenInfo", "appDownload", "certificationInfo", "careersInfo", "consumerHandlingStorageInfo",
  "defaultLink", "defaultLinkMulti", "epcis", "epil", "eventsInfo", "faqs", "handledBy", "homepage", "hasRetailers",
  "ingredientsInfo", "instructions", "leaveReview", "locationInfo", "logisticsInfo", "loyaltyProgram", "masterData",
  "menuInfo", "nutritionalInfo", "paymentLink", "pip", "productSustainabilityInfo", "promotion", "purchaseSuppliesOrAccessories",
  "quickStartGuide", "recallStatus", "recipeInfo", "registerProduct", "relatedImage", "relatedVideo", "review", "safetyInfo",
  "scheduleTime", "serviceInfo", "smartLabel", "smpc", "socialMedia", "statisticInfo", "subscribe", "support", "sustainabilityInfo",
  "traceability", "tutorial", "userAgreement", "verificationService", "warrantyInfo", "whatsInTheBox", "dpp", "jws",
] as const;

export type Gs1LinkType = (typeof GS1_LINK_TYPES)[number];

/** Link types a stored link may carry: not the two the resolver writes itself. */
export const ASSIGNABLE_LINK_TYPES = GS1_LINK_TYPES.filter((t) => t !== "defaultLink" && t !== "defaultLinkMulti");

const KNOWN = new Set<string>(GS1_LINK_TYPES);

/**
 * The vocabulary term of a requested link type (`gs1:pip`, `https://gs1.org/voc/pip`), or undefined when it
 * is none of the vocabulary's (then nothing can match it: 404).
 */
export function linkTypeTermOf(requested: string): string | undefined {
  let term: string | undefined;
  if (requested.startsWith("gs1:")) term = requested.slice(4);
  else for (const ns of GS1_VOC_ALIASES) if (requested.startsWith(ns)) term = requested.slice(ns.length);
  return term !== undefined && KNOWN.has(term) ? term : undefined;
}

export const curieOf = (term: string) => `gs1:${term}`;
export const relationOf = (term: string) => `${GS1_VOC}${term}`;
