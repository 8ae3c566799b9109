import { Effect } from "effect"
import { partitionInPlace } from "../../../runtime/run/PartitionInPlace.js"

/**
 * Eval results grow with every scored row: eval_results is partitioned by day on its eval run's id
 * (a version-7 id), so an eval run's results stay together (issue 38). The primary key holds the
 * partition key ((run_id, id)); a result is looked up by its id through a plain index.
 */
export default partitionInPlace({
  name: "eval_results",
  key: "run_id",
  constraints: [
    "eval_results_pkey PRIMARY KEY (run_id, id)",
    "eval_results_run_id_row_id_key UNIQUE (run_id, row_id)",
    "eval_results_run_id_fkey FOREIGN KEY (run_id) REFERENCES eval_runs(id) ON DELETE CASCADE"
  ],
  indexes: [
    "INDEX eval_results_id ON eval_results (id)",
    "INDEX eval_results_claimable ON eval_results (run_id, position) WHERE status IN ('pending', 'running')"
  ]
}).pipe(Effect.asVoid)
