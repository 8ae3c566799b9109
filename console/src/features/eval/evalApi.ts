import { queryOptions } from "@tanstack/react-query"
import { api } from "../../api/client"

export const ENDED = new Set(["completed", "failed", "cancelled"])

export const datasetsQuery = (workflowId: string) =>
  queryOptions({ queryKey: ["eval", "datasets", workflowId], queryFn: () => api((c) => c.eval.datasets({ urlParams: { workflow_id: workflowId } })) })

export const rubricsQuery = (workflowId: string) =>
  queryOptions({ queryKey: ["eval", "rubrics", workflowId], queryFn: () => api((c) => c.eval.rubrics({ urlParams: { workflow_id: workflowId } })) })

export const configsQuery = (workflowId: string) =>
  queryOptions({ queryKey: ["eval", "configs", workflowId], queryFn: () => api((c) => c.eval.configs({ urlParams: { workflow_id: workflowId } })) })

/** An AI Employee's eval runs, newest first; read again every 2 s while one of them is still going. */
export const evalRunsQuery = (workflowId: string) =>
  queryOptions({
    queryKey: ["eval", "runs", workflowId],
    queryFn: () => api((c) => c.eval.runs({ urlParams: { workflow_id: workflowId, page: 1, page_size: 50 } })),
    refetchInterval: (q) => (q.state.data?.items.some((r) => !ENDED.has(r.status)) === true ? 2_000 : false)
  })

export const evalRunQuery = (runId: string) =>
  queryOptions({
    queryKey: ["eval", "run", runId],
    queryFn: () => api((c) => c.eval.run({ path: { id: runId } })),
    refetchInterval: (q) => (q.state.data !== undefined && ENDED.has(q.state.data.status) ? false : 1_000)
  })
