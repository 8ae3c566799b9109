/**
 * The layering of ARCHITECTURE.md, checked by `npm run check:deps` (part of `npm run build`, so
 * CI fails on an import that breaks it). From the bottom: schemas/ (the contract), platform/
 * (infrastructure), runtime/ and otel/, services/<name>/, services/gateway/ (composition).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "schemas-is-the-contract",
      comment: "schemas/ holds the contract only: it imports nothing of the implementation.",
      severity: "error",
      from: { path: "^schemas/" },
      to: { path: "^(platform|runtime|otel|services|test|bench)/" }
    },
    {
      name: "platform-is-the-bottom",
      comment: "platform/ is infrastructure: configuration, database, Redis, bus, cipher, mailer, migrations runner.",
      severity: "error",
      from: { path: "^platform/" },
      to: { path: "^(runtime|otel|services|test|bench)/" }
    },
    {
      name: "runtime-and-otel-below-services",
      comment: "runtime/ and otel/ know platform/ and schemas/, never a service: services reach them through ports.",
      severity: "error",
      from: { path: "^(runtime|otel)/" },
      to: { path: "^(services|test|bench)/" }
    },
    {
      name: "services-through-ports",
      comment: "A service uses another through a port (a Context.Tag its owner implements), never its files; the gateway composes them.",
      severity: "error",
      from: { path: "^services/([^/]+)/", pathNot: "^services/gateway/" },
      to: { path: "^services/", pathNot: ["^services/$1/", "^services/ports/"] }
    },
    {
      name: "product-without-tests",
      comment: "Product code never imports tests or benchmarks.",
      severity: "error",
      from: { path: "^(schemas|platform|runtime|otel|services)/" },
      to: { path: "^(test|bench)/" }
    },
    {
      name: "console-over-the-contract",
      comment: "The console knows the platform only through the contract (schemas/) and the API it describes.",
      severity: "error",
      from: { path: "^console/" },
      to: { path: "^(platform|runtime|otel|services|test|bench)/" }
    },
    {
      name: "client-over-the-contract",
      comment: "The typed client users import is derived from the contract alone: nothing of the server goes with it.",
      severity: "error",
      from: { path: "^client/" },
      to: { path: "^(platform|runtime|otel|services|test|bench|console)/" }
    },
    {
      name: "product-without-client",
      comment: "The server never depends on its own client.",
      severity: "error",
      from: { path: "^(schemas|platform|runtime|otel|services)/" },
      to: { path: "^client/" }
    },
    {
      name: "product-without-console",
      comment: "The server serves the console's built files; it never imports its sources.",
      severity: "error",
      from: { path: "^(schemas|platform|runtime|otel|services)/" },
      to: { path: "^console/" }
    },
    {
      name: "no-circular",
      comment: "Module cycles make layers' initialization order fragile.",
      severity: "error",
      from: {},
      to: { circular: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|test/fixtures|console/dist)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js"] }
  }
}
