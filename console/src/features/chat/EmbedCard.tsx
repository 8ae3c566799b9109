import { useMutation } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { api } from "../../api/client"
import { ErrorState } from "../../ui/States"
import { Copyable } from "../triggers/WebhooksCard"

const originsOf = (text: string) => text.split(/[\s,]+/).map((s) => s.trim().replace(/\/$/, "")).filter((s) => s !== "")

/**
 * The chat widget for a customer's site: a widget key for this AI Employee and the sites named
 * (made here, its secret shown once inside the snippet), and the script tag to paste.
 */
export const EmbedCard = ({ id, name, disabled }: { readonly id: string; readonly name: string; readonly disabled: boolean }) => {
  const [origins, setOrigins] = useState("")
  const create = useMutation({
    mutationFn: (allowed: ReadonlyArray<string>) =>
      api((c) =>
        c.apiKeys.create({
          payload: {
            name: `Chat widget: ${name}`,
            key_type: "user",
            widget: { allowed_origins: allowed as [string, ...Array<string>], workflow_ids: [id as never] }
          }
        })
      )
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    create.mutate(originsOf(origins))
  }
  const snippet = create.data === undefined
    ? undefined
    : `<script src="${location.origin}/widget.js" data-workflow-id="${id}" data-key="${create.data.key}" async></script>`
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="Chat widget">
      <h2>Chat widget on your site</h2>
      <p className="muted">
        A chat button for the pages of your own sites. Its key is published in the page, so it reaches only this AI Employee's widget, and only from the sites
        listed here.
      </p>
      <label>
        Sites (origins, one per line){" "}
        <textarea rows={2} value={origins} onChange={(e) => setOrigins(e.target.value)} placeholder="https://www.example.com" disabled={disabled} />
      </label>
      <button type="submit" className="primary" disabled={disabled || create.isPending || originsOf(origins).length === 0}>Make the widget's snippet</button>
      {create.error !== null && <ErrorState error={create.error} />}
      {snippet !== undefined && (
        <>
          <p className="notice ok" role="status">Paste this before the end of your pages' body. Its key is shown only now; revoke it under API keys.</p>
          <Copyable label="Widget snippet" text={snippet} />
        </>
      )}
    </form>
  )
}
