// Named brand presets of a workspace: workspaces/{merchantId}/brandPresets/{name}. A preset holds a
// resolved design (its logo already re-encoded and stored), so using one by name costs one read.
import { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import type { StoredDesign } from "./designRecord";
import { COLLECTIONS } from "./collections";
import { dateOf, recordConverter } from "./records";

interface BrandPreset {
  name: string;
  design: StoredDesign;
  updatedBy: string;
  updatedAt: Date;
}

/** Presets per workspace: a settings list, kept short so the console can show them all. */
export const BRAND_PRESETS_MAX = 50;

const presetRecord = recordConverter<BrandPreset>((data, name) => ({ name: data.name ?? name, design: data.design, updatedBy: data.updatedBy, updatedAt: dateOf(data.updatedAt) }));

const presetsOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("brandPresets");
const presetRecords = (merchantId: string) => presetsOf(merchantId).withConverter(presetRecord);

export async function readBrandPreset(merchantId: string, name: string): Promise<BrandPreset | undefined> {
  return (await presetRecords(merchantId).doc(name).get()).data();
}

export async function listBrandPresets(merchantId: string): Promise<BrandPreset[]> {
  const snap = await presetRecords(merchantId).orderBy("name").limit(BRAND_PRESETS_MAX).get();
  return snap.docs.map((d) => d.data());
}

/** Saves (or replaces) a preset; false when the workspace already has the maximum and this name is new. */
export async function saveBrandPreset(merchantId: string, preset: Omit<BrandPreset, "updatedAt">): Promise<boolean> {
  return db().runTransaction(async (tx) => {
    const ref = presetsOf(merchantId).doc(preset.name);
    const existing = await tx.get(ref);
    if (!existing.exists) {
      const count = (await tx.get(presetsOf(merchantId).count())).data().count;
      if (count >= BRAND_PRESETS_MAX) return false;
    }
    tx.set(ref, { ...preset, updatedAt: Timestamp.now() });
    return true;
  });
}

export async function deleteBrandPreset(merchantId: string, name: string): Promise<boolean> {
  const ref = presetsOf(merchantId).doc(name);
  return db().runTransaction(async (tx) => {
    const existing = await tx.get(ref);
    if (existing.exists) tx.delete(ref);
    return existing.exists;
  });
}
