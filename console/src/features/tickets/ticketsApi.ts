import { queryOptions } from "@tanstack/react-query"
import { api } from "../../api/client"

export const OPEN_STATUSES = ["OPEN", "IN_PROGRESS", "HOLD"] as const

export const queuesQuery = queryOptions({
  queryKey: ["tickets", "queues"],
  queryFn: () => api((c) => c.ticketing.queues({ urlParams: { routable: true } })),
  staleTime: 30_000
})
