import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

// The console: React with TanStack Query and Router, built into console/dist and served by the
// gateway. No framework plugin: esbuild compiles TSX; the API client comes from ../schemas.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  // jsxDev off: Vite turns it on whenever NODE_ENV is not "production" (under vitest, "test").
  esbuild: { jsx: "automatic", jsxImportSource: "react", jsxDev: false },
  // React's production build whatever NODE_ENV the building process has (vitest sets "test", which
  // Vite would otherwise honour and ship React's development build: twice the size, and slower).
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    chunkSizeWarningLimit: 900,
    rollupOptions: {
      output: {
        // Long-lived vendor chunks cached across releases of the console's own code; React Flow
        // and dagre stay in the lazy chunk of the page that draws a DAG.
        manualChunks: (id) =>
          /node_modules\/(react|react-dom|scheduler)\//.test(id) ?
            "react"
            : /node_modules\/(effect|@effect)\//.test(id) ?
            "effect"
            : undefined
      },
      onwarn: (warning, warn) => {
        // Libraries' "use client" directives mean nothing outside React Server Components.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return
        warn(warning)
      }
    }
  },
  logLevel: "warn"
})
