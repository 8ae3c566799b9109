import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

// The embeddable chat widget (src/widget): one classic script, /widget.js, that a customer's page
// loads with a <script> tag; built beside the console by scripts/build-console.mjs.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  build: {
    emptyOutDir: false,
    target: "es2022",
    sourcemap: false,
    copyPublicDir: false,
    lib: {
      entry: fileURLToPath(new URL("src/widget/main.ts", import.meta.url)),
      name: "BuilderPlatformChatWidget",
      formats: ["iife"],
      fileName: () => "widget.js"
    }
  },
  logLevel: "warn"
})
