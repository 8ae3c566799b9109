import { useQuery } from "@tanstack/react-query"
import { api } from "../../api/client"

const TERMINAL = new Set(["completed", "failed", "cancelled", "skipped"])

export const useRun = (runId: string) =>
  useQuery({
    queryKey: ["run", runId],
    queryFn: () => api((c) => c.runs.get({ path: { run_id: runId } })),
    refetchInterval: (query) => (query.state.data !== undefined && TERMINAL.has(query.state.data.status) ? false : 3_000)
  })

export const useSteps = (runId: string, live: boolean) =>
  useQuery({
    queryKey: ["run", runId, "steps"],
    queryFn: () => api((c) => c.runs.steps({ path: { run_id: runId } })),
    refetchInterval: live ? 3_000 : false
  })

/** The runs this run started (call_aie): its children in the run history. */
export const useChildRuns = (runId: string) =>
  useQuery({
    queryKey: ["run", runId, "children"],
    queryFn: () => api((c) => c.runs.history({ urlParams: { parent_run_id: runId, page_size: 100, order: "oldest" } }))
  })

export const useTrace = (runId: string, live: boolean) =>
  useQuery({
    queryKey: ["run", runId, "trace"],
    queryFn: () => api((c) => c.runs.trace({ path: { run_id: runId } })),
    refetchInterval: live ? 2_000 : false
  })

export const isTerminal = (status: string) => TERMINAL.has(status)
