// Creating many codes at once, all or nothing, and exactly once under an Idempotency-Key. Images are
// stored first; the documents follow in one commit. What a failed commit leaves behind depends on
// whether it may have landed: images are deleted only when the codes are provably not written.
import type { Transaction, WriteBatch } from "firebase-admin/firestore";
import { AppError } from "../core/errors";
import { db } from "../core/firebase";
import { logError } from "../core/log";
import type { QrCode, CodeSource } from "../codes/model";
import { discardPrepared, emitCodeEvents, prepareCodes, settleFailedCommit, type NewCodeInput } from "../codes/service";
import { addNewCodes } from "../store/codes";
import { claimIdempotencyKey, completeUnderClaim, settleClaim } from "../store/idempotency";

/** Builds the answer for the codes and adds writes of its own (publishing, ...) to the same commit. */
type FinishCodes<T> = (writer: WriteBatch, codes: QrCode[]) => T;

const WAIT_FOR_OTHER_CALL_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function conflict(): AppError {
  return new AppError("CONFLICT", "This Idempotency-Key was used with a different request body", {
    hint: "Use a new Idempotency-Key for a new request.",
  });
}

/**
 * Claims the key, or answers with what another call holding it produced: its response for the same
 * body (after waiting for it to finish), 409 for a different body.
 */
async function claimOrReplay<T>(merchantId: string, key: string, requestHash: string): Promise<{ claimId: string } | { replay: T }> {
  const deadline = Date.now() + WAIT_FOR_OTHER_CALL_MS;
  for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
    const claim = await claimIdempotencyKey<T>(merchantId, key, requestHash);
    if (claim.state === "claimed") return { claimId: claim.claimId };
    if (!claim.sameRequest) throw conflict();
    if (claim.state === "done") return { replay: claim.response };
    if (Date.now() + wait > deadline) {
      throw new AppError("CONFLICT", "Another request with this Idempotency-Key is still in progress", {
        hint: "Retry with the same Idempotency-Key in a few seconds to get its result.",
      });
    }
    await sleep(wait);
  }
}

/**
 * Creates the codes once per key: claims it (or replays the call that holds it), stores the images, then
 * writes the codes and completes the key in one transaction that checks the claim is still this call's.
 * A call that stalled past its lease while another call took the key over writes nothing and answers
 * with that call's result. After a failed commit the key's record tells whether it landed.
 */
export async function createCodesOnce<T>(
  merchantId: string,
  key: string,
  requestHash: string,
  inputs: readonly NewCodeInput[],
  source: CodeSource,
  finish: FinishCodes<T>,
): Promise<{ response: T; replayed: boolean }> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const claim = await claimOrReplay<T>(merchantId, key, requestHash);
    if ("replay" in claim) return { response: claim.replay, replayed: true };
    let codes: QrCode[];
    try {
      codes = await prepareCodes(merchantId, inputs, source);
    } catch (error) {
      await settleClaim(merchantId, key, claim.claimId).catch(() => undefined);
      throw error;
    }
    let written;
    try {
      written = await completeUnderClaim(merchantId, key, claim.claimId, (tx) => {
        addNewCodes(tx, merchantId, codes);
        return finish(asWriter(tx), codes);
      });
    } catch (error) {
      const settled = await settleClaim<T>(merchantId, key, claim.claimId).catch((e) => {
        logError("bulk.idempotency_unreadable", "idempotency record unreadable after a failed commit: images kept", e);
        return undefined;
      });
      if (settled?.state === "completed") return { response: settled.response, replayed: false };
      if (settled) await discardPrepared(codes);
      throw error;
    }
    if (written.state === "completed") {
      await emitCodeEvents("code.created", codes);
      return { response: written.response, replayed: false };
    }
    await discardPrepared(codes); // lost the claim: nothing of ours was written
  }
  throw new AppError("CONFLICT", "Another request with this Idempotency-Key is still in progress", {
    hint: "Retry with the same Idempotency-Key in a few seconds to get its result.",
  });
}

/**
 * Creates the codes all or nothing without an Idempotency-Key, in one batch. A batch refused outright
 * leaves no documents, so its images are deleted; after an ambiguous failure the images are kept unless
 * the codes are seen written, in which case the call succeeded.
 */
export async function createCodesInBatch<T>(merchantId: string, inputs: readonly NewCodeInput[], source: CodeSource, finish: FinishCodes<T>): Promise<T> {
  const codes = await prepareCodes(merchantId, inputs, source);
  let response: T;
  try {
    const batch = db().batch();
    addNewCodes(batch, merchantId, codes);
    response = finish(batch, codes);
    await batch.commit();
    await emitCodeEvents("code.created", codes);
  } catch (error) {
    if ((await settleFailedCommit(merchantId, codes, error)) === "written") return response!;
    throw error;
  }
  return response;
}

/** A transaction takes the same create/set/update calls as a batch; FinishCodes callers only use those. */
function asWriter(tx: Transaction): WriteBatch {
  return tx as unknown as WriteBatch;
}
