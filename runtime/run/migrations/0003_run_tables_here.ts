import { convergeRunTables } from "./RunTables.js"

/**
 * The run tables' columns and indexes that the workflow service's migrations used to add, for a
 * database whose kernel set was already applied when they moved here (issue 36).
 */
export default convergeRunTables
