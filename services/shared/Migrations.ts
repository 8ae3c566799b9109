import { NodeContext } from "@effect/platform-node"
import { PgMigrator } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import agent0001 from "../agent/migrations/0001_agents.js"
import agent0002 from "../agent/migrations/0002_files_presets.js"
import auth0001 from "../auth/migrations/0001_auth.js"
import ingestion0001 from "../ingestion/migrations/0001_ingestion.js"
import ingestion0002 from "../ingestion/migrations/0002_embeddings.js"
import ingestion0003 from "../ingestion/migrations/0003_folder_labels.js"
import workflow0001 from "../workflow/migrations/0001_workflow.js"
import workflow0002 from "../workflow/migrations/0002_runs.js"
import workflow0003 from "../workflow/migrations/0003_llm_providers.js"
import workflow0004 from "../workflow/migrations/0004_legacy_steps.js"
import workflow0005 from "../workflow/migrations/0005_run_telemetry.js"
import workflow0006 from "../workflow/migrations/0006_held_runs.js"
import chat0001 from "../chat/migrations/0001_chat.js"
import run0001 from "../../runtime/run/migrations/0001_kernel.js"
import run0002 from "../../runtime/run/migrations/0002_journal.js"
import platform0001 from "./migrations/0001_platform.js"
import platform0002 from "./migrations/0002_rate_limits.js"

/** Each service owns its migrations and its own migrations table; they run in this order. */
const services = [
  { table: "platform_migrations", migrations: { "0001_platform": platform0001, "0002_rate_limits": platform0002 } },
  { table: "auth_migrations", migrations: { "0001_auth": auth0001 } },
  { table: "workflow_migrations", migrations: { "0001_workflow": workflow0001, "0002_runs": workflow0002, "0003_llm_providers": workflow0003, "0004_legacy_steps": workflow0004, "0005_run_telemetry": workflow0005, "0006_held_runs": workflow0006 } },
  { table: "run_migrations", migrations: { "0001_kernel": run0001, "0002_journal": run0002 } },
  { table: "agent_migrations", migrations: { "0001_agents": agent0001, "0002_files_presets": agent0002 } },
  { table: "ingestion_migrations", migrations: { "0001_ingestion": ingestion0001, "0002_embeddings": ingestion0002, "0003_folder_labels": ingestion0003 } },
  { table: "chat_migrations", migrations: { "0001_chat": chat0001 } }
] as const

export const runMigrations = Effect.forEach(
  services,
  ({ migrations, table }) => PgMigrator.run({ loader: PgMigrator.fromRecord(migrations), table }),
  { discard: true }
).pipe(Effect.provide(NodeContext.layer), Effect.orDie, Effect.withSpan("migrations.run"))

export const MigrationsLive = Layer.effectDiscard(runMigrations)
