import { queryOptions, useQuery } from "@tanstack/react-query"
import { RunStatus, TriggerType } from "../../../../schemas/Run"
import { api } from "../../api/client"

export const RUN_STATUSES = RunStatus.literals
export const TRIGGER_TYPES = TriggerType.literals
export const TERMINAL = new Set(["completed", "failed", "cancelled", "skipped"])

export interface RunSearch {
  readonly status?: string | undefined
  readonly trigger_type?: string | undefined
  readonly workflow_id?: string | undefined
  readonly since?: string | undefined
  readonly order?: string | undefined
  readonly cursor?: string | undefined
}

export const PAGE_SIZE = 50

/** A page of the run history with the page's filters and order; the first page of the newest follows new runs. */
export const runHistoryQuery = (search: RunSearch) =>
  queryOptions({
    queryKey: ["runs", "history", search],
    queryFn: () =>
      api((c) =>
        c.runs.history({
          urlParams: {
            page_size: PAGE_SIZE,
            ...(search.status !== undefined ? { status: search.status as (typeof RUN_STATUSES)[number] } : {}),
            ...(search.trigger_type !== undefined ? { trigger_type: search.trigger_type as (typeof TRIGGER_TYPES)[number] } : {}),
            ...(search.workflow_id !== undefined ? { workflow_id: search.workflow_id as never } : {}),
            ...(search.since !== undefined ? { since: new Date(search.since) } : {}),
            order: search.order === "oldest" ? "oldest" : "newest",
            ...(search.cursor !== undefined ? { cursor: search.cursor } : {})
          }
        })
      ),
    refetchInterval: search.cursor === undefined && search.order !== "oldest" ? 5_000 : false
  })

export const useRunHistory = (search: RunSearch) => useQuery({ ...runHistoryQuery(search), placeholderData: (previous) => previous })

/** The workspace's AI Employees by id and name (filters, links). */
export const useEmployeeNames = () =>
  useQuery({
    queryKey: ["ai-employees", "names"],
    queryFn: () => api((c) => c.workflows.list({ urlParams: { page_size: 100, archived: false } })),
    staleTime: 60_000
  })
