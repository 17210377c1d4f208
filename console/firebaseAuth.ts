// Firebase Auth for the site's pages (console, OAuth consent): the local stack's Auth emulator on the
// loopback hosts, else the deployed project's config that Firebase Hosting serves.
import { initializeApp } from "firebase/app";
import { connectAuthEmulator, getAuth, type Auth } from "firebase/auth";
import { LOCAL_PORTS, LOCAL_PROJECT_ID } from "../functions/src/core/constants";

export const LOCAL = ["127.0.0.1", "localhost"].includes(location.hostname);

export async function startFirebaseAuth(): Promise<Auth> {
  const config = LOCAL
    ? { apiKey: "demo-key", projectId: LOCAL_PROJECT_ID, authDomain: `${LOCAL_PROJECT_ID}.firebaseapp.com` }
    : await (await fetch("/__/firebase/init.json")).json();
  initializeApp(config);
  const auth = getAuth();
  if (LOCAL) connectAuthEmulator(auth, `http://${location.hostname}:${LOCAL_PORTS.auth}`, { disableWarnings: true });
  return auth;
}
