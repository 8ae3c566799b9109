import { migrationsLayer, runMigrations } from "../../platform/Migrations.js"
import { platformMigrations } from "../../platform/migrations/index.js"
import { clusterTables } from "../../runtime/run/ClusterTables.js"
import { runMigrationSet } from "../../runtime/run/migrations/index.js"
import { agentMigrations } from "../agent/migrations/index.js"
import { authMigrations } from "../auth/migrations/index.js"
import { chatMigrations } from "../chat/migrations/index.js"
import { docgenMigrations } from "../docgen/migrations/index.js"
import { evalMigrations } from "../eval/migrations/index.js"
import { ingestionMigrations } from "../ingestion/migrations/index.js"
import { integrationMigrations } from "../integrations/migrations/index.js"
import { ticketingMigrations } from "../ticketing/migrations/index.js"
import { workflowMigrations } from "../workflow/migrations/index.js"

/** Every owner's migrations, in the order they run (an owner's tables before those that refer to them). */
export const allMigrations = [
  platformMigrations,
  authMigrations,
  workflowMigrations,
  runMigrationSet,
  agentMigrations,
  ingestionMigrations,
  chatMigrations,
  integrationMigrations,
  evalMigrations,
  docgenMigrations,
  ticketingMigrations
]

export const migrateAll = runMigrations(allMigrations, clusterTables)

export const MigrationsLive = migrationsLayer(allMigrations, clusterTables)
