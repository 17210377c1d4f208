// Addresses of the emulator stack, exported by scripts/test.ts for the test process.
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through \`npm test\`, which starts the emulators`);
  return value;
}

export const baseUrl = () => required("TEST_BASE_URL");
export const appUrl = () => required("TEST_APP_URL");
export const mcpUrl = () => `${appUrl()}/api/mcp`;
export const projectId = () => required("GCLOUD_PROJECT");
export const functionsUrl = () => required("TEST_FUNCTIONS_URL");
/** The functions' URLs on the functions' own port, behind the front (as Google's front end calls them). */
export const functionsDirectUrl = () => required("TEST_FUNCTIONS_DIRECT_URL");
