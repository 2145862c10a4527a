// ESLint for the web console's modules (make lint): the recommended rules, in a browser.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["build/", "cdk.out/", "node_modules/", ".venv/", ".venv-scan/", "test-artifacts/"] },
  {
    files: ["lambdas/fencepost/http/console/**/*.js"],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
  },
];
