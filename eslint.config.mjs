// Lint and format: `npm run lint` checks, `npm run format` fixes (eslint --fix).
//
// - Rules: ESLint's and typescript-eslint's recommended sets, without type information (type-aware
//   linting of this tree is too slow for CI), minus the few that fight the code's idioms (listed
//   below with their reason). The compiler already reports unused locals and undefined names.
// - Formatting: eslint-stylistic, set to the house style (2 spaces, double quotes, no semicolons, no
//   trailing commas, flat ternary chains, lines not reflowed, type members packed on a line as written).
// - The Effect plugin: `@effect/no-import-from-barrel-package` for the packages whose index loads
//   far more than one module needs (the Node platform pulls in undici, cluster, … at start; the
//   PostgreSQL client its migrator and more): import the module (`@effect/platform-node/NodeHttpServer`).
//   Its `dprint` rule is not used: eslint-stylistic keeps the house style with a far smaller diff.
// - `no-restricted-imports` states the dependency rule (docs/architecture.md#dependency-rule) per
//   package; packages/http-adapter/test/server/Architecture.test.ts checks it exhaustively (allowed lists, cycles).
import effect from "@effect/eslint-plugin"
import js from "@eslint/js"
import stylistic from "@stylistic/eslint-plugin"
import tseslint from "typescript-eslint"

const mustNotImport = (...packages) =>
  packages.map((name) => ({
    group: [`@switchboard/${name}`, `@switchboard/${name}/*`],
    message: `The dependency rule (docs/architecture.md#dependency-rule): this package must not import @switchboard/${name}.`
  }))

export default tseslint.config(
  {
    ignores: ["**/node_modules/**", "**/.tsbuild/**", "**/.data/**", "**/dist/**", "packages/http-adapter/bin/**"]
  },
  {
    files: ["packages/*/src/**/*.ts", "packages/*/test/**/*.ts", "bench/**/*.ts", "bench/**/*.mjs", "*.ts", "*.mjs"]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { "@stylistic": stylistic, "@effect": effect },
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module"
    },
    rules: {
      // `_`-prefixed names are deliberately unused (destructuring a field away, an ignored parameter).
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        destructuredArrayIgnorePattern: "^_",
        caughtErrors: "none",
        ignoreRestSiblings: true
      }],
      // Off: 244 `any`s today, mostly test helpers and SQL rows (the row helpers are yet to be
      // typed); the house rule "no `any` unless unavoidable and commented" is kept by review.
      "@typescript-eslint/no-explicit-any": "off",
      // Off: `{}` is the idiom for an empty case of `Data.TaggedEnum` / `Data.TaggedError`.
      "@typescript-eslint/no-empty-object-type": "off",
      // Off: the sanitizers match control characters on purpose (`/[\x00-\x1f]/`) to reject them.
      "no-control-regex": "off",
      // Off: `Effect.gen(function*() { ... })` without a `yield*` is legitimate.
      "require-yield": "off",

      "@effect/no-import-from-barrel-package": ["error", { packageNames: ["@effect/platform-node", "@effect/sql-pg"] }],

      "@stylistic/indent": ["error", 2, {
        SwitchCase: 1,
        flatTernaryExpressions: true,
        offsetTernaryExpressions: false,
        ignoredNodes: ["TSUnionType", "TSIntersectionType", "ConditionalExpression", "TemplateLiteral *"]
      }],
      "@stylistic/quotes": ["error", "double", { avoidEscape: true, allowTemplateLiterals: "always" }],
      "@stylistic/semi": ["error", "never"],
      "@stylistic/comma-dangle": ["error", "never"],
      "@stylistic/no-trailing-spaces": "error",
      "@stylistic/eol-last": "error",
      "@stylistic/no-multiple-empty-lines": ["error", { max: 1, maxBOF: 0, maxEOF: 0 }],
      "@stylistic/no-tabs": "error",
      "@stylistic/linebreak-style": ["error", "unix"],
      "@stylistic/object-curly-spacing": ["error", "always"],
      "@stylistic/array-bracket-spacing": ["error", "never"],
      "@stylistic/comma-spacing": "error",
      "@stylistic/key-spacing": "error",
      "@stylistic/keyword-spacing": "error",
      "@stylistic/space-infix-ops": "error",
      "@stylistic/arrow-spacing": "error",
      "@stylistic/arrow-parens": ["error", "always"],
      "@stylistic/space-before-blocks": "error",
      "@stylistic/brace-style": ["error", "1tbs", { allowSingleLine: true }],
      "@stylistic/generator-star-spacing": ["error", { before: false, after: false }],
      "@stylistic/space-before-function-paren": ["error", { anonymous: "never", named: "never", asyncArrow: "always" }],
      "@stylistic/type-annotation-spacing": "error",
      "@stylistic/no-multi-spaces": ["error", { ignoreEOLComments: true }],
      "@stylistic/space-in-parens": ["error", "never"],
      "@stylistic/block-spacing": "error",
      "@stylistic/template-curly-spacing": "error",
      "@stylistic/semi-spacing": "error",
      "@stylistic/rest-spread-spacing": "error"
    }
  },
  {
    // Ambient declarations declare globals with `var` (what puts them on `globalThis`).
    files: ["**/*.d.ts"],
    rules: { "no-var": "off" }
  },
  {
    // TypeScript reports undefined names in .ts files; the plain-JS bench scripts run on Node.
    files: ["**/*.mjs"],
    languageOptions: {
      globals: {
        Buffer: "readonly",
        URL: "readonly",
        clearTimeout: "readonly",
        console: "readonly",
        fetch: "readonly",
        performance: "readonly",
        process: "readonly",
        setTimeout: "readonly"
      }
    }
  },
  {
    // Request fibers carry the settings declared with core's `Setting`, not every context entry
    // (http-adapter's serveLean): a bare `Context.Reference` read in a handler would fall back to
    // its default.
    files: ["packages/*/src/**/*.ts"],
    ignores: ["packages/core/src/internal/Settings.ts"],
    rules: {
      "no-restricted-properties": ["error", {
        object: "Context",
        property: "Reference",
        message: "Declare settings with Setting from core/internal/Settings.ts (request fibers carry only those)."
      }]
    }
  },
  {
    files: ["packages/core/src/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [
          { group: ["node:*"], message: "The dependency rule (docs/architecture.md#dependency-rule): core runs in any JS runtime: no node:* (use WebCrypto or jose)." },
          {
            group: ["@effect/*", "pg", "pg/*", "@electric-sql/*", "vitest", "vitest/*"],
            message: "The dependency rule (docs/architecture.md#dependency-rule): core imports only effect and jose."
          },
          { group: ["@switchboard/*"], message: "The dependency rule (docs/architecture.md#dependency-rule): core imports no other package." },
          {
            group: ["effect/http", "effect/http/*", "effect/http-api", "effect/http-api/*", "effect/sql", "effect/sql/*", "effect/testing", "effect/testing/*"],
            message: "The dependency rule (docs/architecture.md#dependency-rule): core has no HTTP or SQL (effect's adapter modules belong to the adapters, effect/testing to the tests)."
          }
        ]
      }]
    }
  },
  {
    files: ["packages/testkit/src/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: mustNotImport("sql-adapter", "http-adapter") }] }
  },
  {
    // The server ships the simulated providers (@switchboard/testkit/simulated): no test runner there,
    // and nothing of the rest of the testkit, which loads one.
    files: ["packages/testkit/src/simulated/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [
          ...mustNotImport("sql-adapter", "http-adapter"),
          {
            group: ["vitest", "vitest/*", "@effect/vitest", "@effect/vitest/*", "effect/testing", "effect/testing/*", "../*", "@switchboard/testkit", "@switchboard/testkit/*"],
            message: "testkit/src/simulated/ is shipped by the server: it imports only core, effect and its own files."
          }
        ]
      }]
    }
  },
  {
    files: ["packages/sql-adapter/src/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: mustNotImport("testkit", "http-adapter") }] }
  },
  {
    // Only the composition root (src/server/) picks the storage layers; the surfaces use core's ports.
    files: ["packages/http-adapter/src/**/*.ts"],
    ignores: ["packages/http-adapter/src/server/**"],
    rules: { "no-restricted-imports": ["error", { patterns: mustNotImport("sql-adapter", "testkit") }] }
  },
  {
    // The composition root may use the simulated providers, never the rest of the testkit (its
    // root loads the test runner).
    files: ["packages/http-adapter/src/server/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          regex: "^@switchboard/testkit(?!/simulated$)(?:/.*)?$",
          message: "src/server/ may import @switchboard/testkit/simulated only (docs/architecture.md)."
        }]
      }]
    }
  }
)
