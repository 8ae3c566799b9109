import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query"
import { Capabilities, type Capability } from "../../../schemas/Authorization"
import type { Role } from "../../../schemas/Roles"
import { api, ApiError } from "./client"

/**
 * The signed-in person (`GET /users/me`); `null` when nobody is signed in. Every sign-in sets the
 * readable `csrf_token` cookie beside the session's HttpOnly ones: without it nobody is signed in,
 * and no request is made to find out.
 */
export const hasSessionCookie = () => document.cookie.split("; ").some((c) => c.startsWith("csrf_token="))

export const sessionQuery = queryOptions({
  queryKey: ["me"],
  queryFn: () =>
    !hasSessionCookie() ? Promise.resolve(null) : api((c) => c.authMe.me()).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 401) return null
      throw error
    }),
  staleTime: 60_000,
  retry: false
})

export const useSession = () => useQuery(sessionQuery)

export type Session = NonNullable<ReturnType<typeof useSession>["data"]>

/** Whether the signed-in role holds a capability of the API's authorization module. */
export const allows = (role: Role | undefined, capability: Capability) => role !== undefined && (Capabilities[capability] as ReadonlyArray<Role>).includes(role)

export const useTenants = () => useQuery({ queryKey: ["me", "tenants"], queryFn: () => api((c) => c.authMe.myTenants()), staleTime: 60_000 })

/** Everything cached belongs to the session: a new one starts from nothing. */
export const useResetSession = () => {
  const client = useQueryClient()
  return () => client.resetQueries()
}
