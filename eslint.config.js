// The project's linter (`npm run lint`, part of `npm run build` and of CI): typescript-eslint with
// type information (floating promises, `any`), Effect's own plugin with its dprint formatter,
// React's hooks rules in the console, and the house limits (a file under 400 lines).
import effect from "@effect/eslint-plugin"
import reactHooks from "eslint-plugin-react-hooks"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["node_modules/", "console/dist/", "scratch/", ".data/", "docs/", "test/fixtures/", "**/*.js", "**/*.mjs", "**/*.cjs"] },
  {
    files: ["**/*.ts", "**/*.tsx"],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ["console/vite.config.ts", "console/vite.widget.config.ts"] }, tsconfigRootDir: import.meta.dirname }
    },
    plugins: { "@effect": effect },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "max-lines": ["error", { max: 400 }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: false }],
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports", disallowTypeAnnotations: false }],
      "no-restricted-imports": ["error", { paths: [{ name: "@effect/schema", message: "Schemas come from effect/Schema." }] }],
      "no-restricted-properties": ["error", {
        object: "AbortSignal",
        property: "any",
        message: "Node 20 can garbage-collect a timeout signal inside AbortSignal.any before it fires: use withinDeadline (platform/outbound/Deadline.ts)."
      }],
      "@effect/no-import-from-barrel-package": "off",
      // The formatter: dprint's TypeScript plugin, as the Effect repositories run it.
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 160,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  },
  {
    files: ["console/src/**/*.tsx", "console/src/**/*.ts"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error"
    }
  }
)
