// A keyless sandbox call (validation, quota transaction, render, JSON) next to rendering the same PNG alone.
import type { AddressInfo } from "node:net";
import express from "express";
import { sandboxApp } from "../../functions/src/sandbox/app";
import { renderPlainPng } from "../../functions/src/qr/render";
import { fmt, medianMs, post } from "./measure";

export async function benchSandbox() {
  console.log("\n[sandbox] POST /api/generate-qr-code served in-process, Firestore emulator (sequential, median)");
  // The salt is a deployed secret; in-process the function reads it from the environment (else it warns per call).
  process.env.SANDBOX_IP_SALT ??= "bench-only-salt";
  const server = (sandboxApp as unknown as express.Express).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/generate-qr-code`;
  let n = 0;
  const call = async () => {
    n++;
    // A new client address per call (as Google's front end would append it), so the daily limit stays out of the way.
    const res = await post(url, JSON.stringify({ url: `https://example.com/sandbox?n=${n}` }), {
      "Content-Type": "application/json",
      "X-Forwarded-For": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}, 35.191.0.1`,
    });
    if (res.status !== 200) throw new Error(res.text);
  };
  await medianMs(20, call);
  const render = await medianMs(500, () => renderPlainPng(`https://example.com/sandbox?n=${n++}`));
  const sandbox = await medianMs(100, call);
  console.log(`  render the same 512 px PNG alone (baseline)   ${fmt(render, 3)} ms`);
  console.log(`  full sandbox call                             ${fmt(sandbox)} ms   (${fmt(sandbox / render, 1)}x the render; the rest is the quota transaction and HTTP)`);
  server.close();
}
