import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { useState } from "react"
import { api } from "../../api/client"
import { When } from "../../ui/Bits"
import { ErrorState } from "../../ui/States"

const sampleValue = (schema: unknown): unknown => {
  const s = (typeof schema === "object" && schema !== null ? schema : {}) as Record<string, unknown>
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0]
  return s.type === "number" || s.type === "integer" ? 1 : s.type === "boolean" ? true : s.type === "array" ? [] : s.type === "object" ? {} : "text"
}

/** A body of the AI Employee's input fields, each with a placeholder of its type. */
export const sampleInput = (inputSchema: unknown) => {
  const props = typeof inputSchema === "object" && inputSchema !== null && "properties" in inputSchema && typeof inputSchema.properties === "object" &&
      inputSchema.properties !== null
    ? inputSchema.properties as Record<string, unknown>
    : {}
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sampleValue(v)]))
}

/** A copy that signs the body with the secret as the platform checks it (HMAC-SHA256 of the raw body, hex). */
export const curlExample = (url: string, secret: string, body: unknown) => {
  const json = JSON.stringify(body).replace(/'/g, "'\\''")
  return [
    `BODY='${json}'`,
    `SECRET='${secret}'`,
    `SIG=$(printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$SECRET" -hex | sed 's/^.* //')`,
    `curl -X POST '${url}' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H "X-Signature-256: sha256=$SIG" \\`,
    `  -H "X-Webhook-Id: $(date +%s%N)" \\`,
    `  --data "$BODY"`
  ].join("\n")
}

/** A copy button: the clipboard where the page may use it, the text selected for copying otherwise. */
export const Copyable = ({ text, label }: { readonly text: string; readonly label: string }) => {
  const [copied, setCopied] = useState(false)
  return (
    <div className="copyable">
      <pre aria-label={label}>{text}</pre>
      <button
        type="button"
        onClick={() => {
          void navigator.clipboard?.writeText(text).then(() => setCopied(true), () => setCopied(false))
        }}
      >
        {copied ? "Copied" : "Copy"}
      </button>
    </div>
  )
}

/**
 * Inbound webhooks: each has its own URL and secret; the secret is shown once, when it is
 * created, with a ready `curl` that signs a sample body of the AI Employee's inputs.
 */
export const WebhooksCard = (
  { workflowId, inputSchema, canWrite }: { readonly workflowId: string; readonly inputSchema: unknown; readonly canWrite: boolean }
) => {
  const queryClient = useQueryClient()
  const key = ["ai-employee", workflowId, "webhooks"]
  const hooks = useQuery({ queryKey: key, queryFn: () => api((c) => c.webhooks.list({ path: { id: workflowId as never } })) })
  const [fresh, setFresh] = useState<{ readonly id: string; readonly url: string; readonly secret: string } | undefined>(undefined)
  const create = useMutation({
    mutationFn: () => api((c) => c.webhooks.create({ path: { id: workflowId as never } })),
    onSuccess: (w) => {
      setFresh({ id: w.id, url: w.url, secret: w.secret })
      void queryClient.invalidateQueries({ queryKey: key })
    }
  })
  const remove = useMutation({
    mutationFn: (id: string) => api((c) => c.webhooks.remove({ path: { id: workflowId as never, webhook_id: id as never } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: key })
  })
  return (
    <section className="card settings-form" aria-label="Webhooks">
      <header>
        <h2>Webhooks</h2>
        <button type="button" disabled={!canWrite || create.isPending} onClick={() => create.mutate()}>New webhook</button>
      </header>
      {fresh !== undefined && (
        <div className="notice" role="status">
          <p>
            <strong>Copy the secret now:</strong> it is not shown again.
          </p>
          <Copyable label="Webhook secret" text={fresh.secret} />
          <p>Deliver a run with:</p>
          <Copyable label="curl example" text={curlExample(fresh.url, fresh.secret, sampleInput(inputSchema))} />
        </div>
      )}
      {(create.error ?? remove.error) !== null && <ErrorState error={create.error ?? remove.error} />}
      {hooks.data?.items.length === 0 && <p className="muted">No webhook: a webhook lets another system start runs with a signed JSON body.</p>}
      <ul className="plain">
        {(hooks.data?.items ?? []).map((h) => (
          <li key={h.id}>
            <span className="mono">{h.url}</span>{" "}
            <span className="muted small">
              created <When at={h.created_at} />
            </span>{" "}
            {canWrite && <button type="button" className="link danger" onClick={() => remove.mutate(h.id)}>Delete</button>}
          </li>
        ))}
      </ul>
    </section>
  )
}
