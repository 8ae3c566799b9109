import { useQuery } from "@tanstack/react-query"
import { Link, useSearch } from "@tanstack/react-router"
import { useState } from "react"
import { api } from "../../api/client"
import { Empty, Query } from "../../ui/States"
import { OAUTH_PENDING } from "./IntegrationsTab"

/** Where an integration's authorization server sends the person back: the code exchanged for their connection. */
export const OAuthCallbackPage = () => {
  const search = useSearch({ from: "/app/integrations/oauth2/callback" })
  // Read once and forgotten once the exchange settles: the page opened again makes no second attempt.
  const [integration] = useState(() => sessionStorage.getItem(OAUTH_PENDING))
  const exchange = useQuery({
    queryKey: ["oauth-callback", search.state],
    enabled: integration !== null && search.code !== undefined && search.state !== undefined,
    queryFn: () =>
      api((c) => c.integrations.oauthCallback({ path: { id: integration! }, payload: { code: search.code!, state: search.state! } })).finally(() =>
        sessionStorage.removeItem(OAUTH_PENDING)
      ),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY
  })
  if (integration === null || search.code === undefined) {
    return (
      <Empty>
        No connection is being made here. <Link to="/admin" search={{ tab: "integrations" }}>Back to the integrations</Link>
      </Empty>
    )
  }
  return (
    <Query query={exchange}>
      {() => (
        <p className="notice ok" role="status">
          Your account is connected. <Link to="/admin" search={{ tab: "integrations" }}>Back to the integrations</Link>
        </p>
      )}
    </Query>
  )
}
