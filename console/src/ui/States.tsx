import type { ReactNode } from "react"
import { ApiError } from "../api/client"

export const Loading = ({ label = "Loading" }: { readonly label?: string }) => (
  <div className="state" role="status" aria-live="polite">
    <span className="spinner" aria-hidden="true" /> {label}…
  </div>
)

export const Empty = ({ children }: { readonly children: ReactNode }) => <div className="state empty">{children}</div>

/** A refusal the caller can act on reads as one; only a failure of ours or the network is "went wrong". */
const errorTitle = (error: unknown) =>
  !(error instanceof ApiError) || error.status < 400 || error.status >= 500
    ? "Something went wrong."
    : error.status === 404
    ? "Not found."
    : error.status === 403
    ? "Not allowed."
    : "Could not do that."

export const ErrorState = ({ error, retry }: { readonly error: unknown; readonly retry?: () => void }) => {
  const message = error instanceof ApiError ? `${error.message} (${error.code})` : error instanceof Error ? error.message : String(error)
  return (
    <div className="state error" role="alert">
      <strong>{errorTitle(error)}</strong> {message}
      {retry !== undefined && <button type="button" onClick={retry}>Try again</button>}
    </div>
  )
}

/** A query's three states, then its data. */
export const Query = <A extends unknown>({ query, children, empty }: {
  readonly query: { readonly isPending: boolean; readonly error: unknown; readonly data: A | undefined; readonly refetch: () => unknown }
  readonly children: (data: A) => ReactNode
  readonly empty?: (data: A) => ReactNode | undefined
}) => {
  if (query.isPending) return <Loading />
  if (query.error !== null && query.error !== undefined) return <ErrorState error={query.error} retry={() => void query.refetch()} />
  if (query.data === undefined) return <Loading />
  const nothing = empty?.(query.data)
  return <>{nothing ?? children(query.data)}</>
}
