// ESLint over all TypeScript (issue 53): @eslint/js and typescript-eslint recommended, plus the type-aware
// promise rules this async code needs. `npm run lint` (cached in node_modules/.cache/eslint/) lints
// functions/src and the rest in two processes side by side: nearly all the time of a cold run is TypeScript
// typing the two programs (functions/tsconfig.json, tsconfig.json), one per core; ESLint's own --concurrency
// would build both programs in each worker.
import js from "@eslint/js";
import comments from "@eslint-community/eslint-plugin-eslint-comments/configs";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  {
    // This lints TypeScript only: the JavaScript here is build output (functions/lib, the hosting/ bundles)
    // or configuration; test-artifacts/ and scratch/ are written by runs.
    ignores: ["**/*.js", "**/*.cjs", "**/*.mjs", "functions/lib/", "test-artifacts/", "scratch/", ".emulator-data/", ".firebase/"],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  {
    files: ["**/*.ts"],
    extends: [js.configs.recommended, tseslint.configs.recommended, comments.recommended],
    languageOptions: {
      parserOptions: {
        // Each file is typed by its nearest tsconfig.json: functions/tsconfig.json for functions/src, the
        // root tsconfig.json for test/, scripts/, console/ and mcp-app/.
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      // Express 5's types let a handler return a promise (and Express 5 sends a rejection to the app's error
      // handler, see mountEndpoints in functions/src/http/endpoint.ts), so routes need no exception here; an
      // async DOM listener, timer or emitter callback is still reported, as nothing handles its rejection.
      "@typescript-eslint/no-misused-promises": "error",
      // Promise.all over values some of which are promises (a cached answer or a request) is deliberate.
      "@typescript-eslint/await-thenable": ["error", { allowMixedPromiseArrays: true }],
      // `return promise` inside try (or before finally) lets its rejection escape the catch: it must be awaited.
      "@typescript-eslint/return-await": ["error", "error-handling-correctness-only"],
      // A leading underscore names what is deliberately unused (a parameter kept for its position, a property
      // left out of a rest object).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      "@eslint-community/eslint-comments/require-description": "error",
    },
  },
  {
    // functions/src loads its heavy modules with require() at first use, typed `as typeof import("…")`, so a
    // cold start (functions/src/index.ts) pays only for what the function it serves uses: require() is the style.
    files: ["functions/src/**/*.ts"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    files: ["test/**/*.ts", "scripts/**/*.ts"],
    rules: {
      // Tests and benches load the functions' modules with require(): the built functions/lib as deployed (in
      // a process of its own), or functions/src/index.ts for the functions it declares.
      "@typescript-eslint/no-require-imports": ["error", { allow: ["^(\\.\\./)+functions/(lib|src)/"] }],
    },
  },
  {
    // Tests, the smoke check and benches read untyped JSON answers (REST, MCP, webhooks) as `any`, field by field.
    files: ["test/**/*.ts", "scripts/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
