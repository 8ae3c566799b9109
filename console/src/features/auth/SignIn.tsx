import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useNavigate, useSearch } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import type { LoginResult } from "../../../../schemas/Auth"
import { api, ApiError } from "../../api/client"

type Step = { readonly kind: "email" } | { readonly kind: "password" } | { readonly kind: "otp" } | {
  readonly kind: "totp"
  readonly partial: string
  readonly enrolled: boolean
}

const partialFromHash = (): string | undefined => new URLSearchParams(window.location.hash.slice(1)).get("totp") ?? undefined

const messageOf = (error: unknown) =>
  error instanceof ApiError
    ? error.code === "TOO_MANY_ATTEMPTS" ? `Too many attempts: try again in ${error.retryAfterSeconds ?? 60} s.` : error.message
    : "The platform could not be reached."

/** This workspace requires an authenticator app the person has not set up: its secret, to add to the app, first. */
const TotpEnrollment = ({ partial }: { readonly partial: string }) => {
  const enroll = useMutation({ mutationFn: () => api((c) => c.authPublic.totpEnrollPartial({ payload: { partial_auth_token: partial } })) })
  if (enroll.data !== undefined) {
    return (
      <div className="enroll">
        <p>Add this key to your authenticator app (or open the link on the device that has it), then enter the code it shows.</p>
        <p>
          <code aria-label="Authenticator key">{enroll.data.secret}</code>
        </p>
        <p>
          <a href={enroll.data.otpauth_uri}>Open in the authenticator app</a>
        </p>
      </div>
    )
  }
  return (
    <div className="enroll">
      <p>This workspace requires an authenticator app, and yours is not set up yet.</p>
      <button type="button" onClick={() => enroll.mutate()} disabled={enroll.isPending}>Set up an authenticator app</button>
      {enroll.error !== null && <p role="alert" className="error-text">{messageOf(enroll.error)}</p>}
    </div>
  )
}

/**
 * Email first (`auth/begin`), then the method the platform names: a password, a code sent by
 * mail, or the workspace's identity provider (a full-page redirect); then TOTP when the workspace
 * requires it. Every step sets the session cookies, so nothing is kept here.
 */
export const SignIn = () => {
  const search = useSearch({ from: "/sign-in" })
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const partial = partialFromHash()
  const [step, setStep] = useState<Step>(partial !== undefined ? { kind: "totp", partial, enrolled: true } : { kind: "email" })
  const [email, setEmail] = useState("")
  const [secret, setSecret] = useState("")

  const done = async (result: LoginResult) => {
    if ("partial_auth_token" in result) {
      setSecret("")
      return setStep({ kind: "totp", partial: result.partial_auth_token, enrolled: result.totp_enrolled })
    }
    await queryClient.resetQueries()
    await navigate({ to: search.next !== undefined && search.next.startsWith("/") ? search.next : "/runs" })
  }

  const submit = useMutation({
    mutationFn: async () => {
      switch (step.kind) {
        case "email": {
          const begun = await api((c) => c.authPublic.begin({ payload: { email } }))
          if (begun.method === "sso" && begun.continue_url !== undefined) {
            window.location.assign(begun.continue_url)
            return
          }
          if (begun.method === "otp") {
            await api((c) => c.authPublic.otpRequest({ payload: { email } }))
            return setStep({ kind: "otp" })
          }
          return setStep({ kind: "password" })
        }
        case "password":
          return done(await api((c) => c.authPublic.login({ payload: { email, password: secret } })))
        case "otp":
          return done(await api((c) => c.authPublic.otpVerify({ payload: { email, code: secret } })))
        case "totp":
          return done(await api((c) => c.authPublic.totpVerify({ payload: { partial_auth_token: step.partial, code: secret } })))
      }
    }
  })

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    submit.mutate()
  }

  return (
    <main className="sign-in">
      <form onSubmit={onSubmit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Builder Platform</h1>
        {search.sso_error !== undefined && <p role="alert" className="error-text">Single sign-on did not complete ({search.sso_error}).</p>}
        {step.kind === "email" && (
          <label>
            Email
            <input type="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
          </label>
        )}
        {step.kind !== "email" && step.kind !== "totp" && (
          <p className="muted">
            {email} · <button type="button" className="link" onClick={() => setStep({ kind: "email" })}>change</button>
          </p>
        )}
        {step.kind === "password" && (
          <label>
            Password
            <input type="password" autoComplete="current-password" required autoFocus value={secret} onChange={(e) => setSecret(e.target.value)} />
          </label>
        )}
        {step.kind === "otp" && (
          <label>
            The code we emailed you
            <input inputMode="numeric" autoComplete="one-time-code" required autoFocus value={secret} onChange={(e) => setSecret(e.target.value)} />
          </label>
        )}
        {step.kind === "totp" && !step.enrolled && <TotpEnrollment partial={step.partial} />}
        {step.kind === "totp" && (
          <label>
            The code from your authenticator app
            <input inputMode="numeric" autoComplete="one-time-code" required autoFocus value={secret} onChange={(e) => setSecret(e.target.value)} />
          </label>
        )}
        {submit.error !== null && <p role="alert" className="error-text">{messageOf(submit.error)}</p>}
        <button type="submit" className="primary" disabled={submit.isPending}>{step.kind === "email" ? "Continue" : "Sign in"}</button>
      </form>
    </main>
  )
}
