import { useQuery } from "@tanstack/react-query"
import { api } from "../../api/client"

const TERMINAL = new Set(["completed", "failed", "cancelled", "skipped"])

export const useRun = (runId: string, enabled = true) =>
  useQuery({
    queryKey: ["run", runId],
    enabled,
    queryFn: () => api((c) => c.runs.get({ path: { run_id: runId } })),
    refetchInterval: (query) => (query.state.data !== undefined && TERMINAL.has(query.state.data.status) ? false : 3_000)
  })

/** Asked for once the run is known to exist (`enabled`); every 3 s while it runs (`live`). */
export const useSteps = (runId: string, { enabled, live }: { readonly enabled: boolean; readonly live: boolean }) =>
  useQuery({
    queryKey: ["run", runId, "steps"],
    enabled,
    queryFn: () => api((c) => c.runs.steps({ path: { run_id: runId } })),
    refetchInterval: live ? 3_000 : false
  })

/** The runs this run started (call_aie): its children in the run history. */
export const useChildRuns = (runId: string, enabled: boolean) =>
  useQuery({
    queryKey: ["run", runId, "children"],
    enabled,
    queryFn: () => api((c) => c.runs.history({ urlParams: { parent_run_id: runId, page_size: 100, order: "oldest" } }))
  })

export const useTrace = (runId: string, { enabled, live }: { readonly enabled: boolean; readonly live: boolean }) =>
  useQuery({
    queryKey: ["run", runId, "trace"],
    enabled,
    queryFn: () => api((c) => c.runs.trace({ path: { run_id: runId } })),
    refetchInterval: live ? 2_000 : false
  })

export const isTerminal = (status: string) => TERMINAL.has(status)
