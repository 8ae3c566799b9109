import { useState } from "react"

const STATUS_TONE: Record<string, string> = {
  completed: "ok",
  published: "ok",
  running: "busy",
  pending: "busy",
  claimed: "busy",
  paused: "wait",
  failed: "bad",
  cancelled: "muted",
  skipped: "muted",
  draft: "muted",
  open: "busy",
  responded: "ok",
  expired: "muted",
  closed: "muted",
  active: "ok",
  disabled: "muted"
}

export const StatusBadge = ({ status }: { readonly status: string }) => <span className={`badge ${STATUS_TONE[status] ?? "muted"}`}>{status}</span>

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" })

/**
 * An id short enough to show: its last eight hex digits (run ids are version-7 UUIDs, whose first
 * digits are their time, the same for runs started in the same minute).
 */
export const shortId = (id: string) => id.slice(-8)

export const formatDate = (d: Date | string | undefined) => (d === undefined ? "—" : new Date(d).toLocaleString())

/** A time shown relative to now ("3 minutes ago"), the exact time on hover. */
export const When = ({ at }: { readonly at: Date | string | undefined }) => {
  if (at === undefined) return <span>—</span>
  const date = new Date(at)
  const seconds = Math.round((date.getTime() - Date.now()) / 1000)
  const [value, unit]: [number, Intl.RelativeTimeFormatUnit] = Math.abs(seconds) < 60
    ? [seconds, "second"]
    : Math.abs(seconds) < 3600
    ? [Math.round(seconds / 60), "minute"]
    : Math.abs(seconds) < 86400
    ? [Math.round(seconds / 3600), "hour"]
    : [Math.round(seconds / 86400), "day"]
  return <time dateTime={date.toISOString()} title={date.toLocaleString()}>{rtf.format(value, unit)}</time>
}

export const duration = (from: Date | string | undefined, to: Date | string | undefined) => {
  if (from === undefined || to === undefined) return "—"
  const ms = new Date(to).getTime() - new Date(from).getTime()
  return ms < 1000 ? `${ms} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
}

/** A value as indented JSON, folded when long. */
export const Json = ({ value, label }: { readonly value: unknown; readonly label?: string }) => {
  const text = value === undefined ? "—" : JSON.stringify(value, null, 2)
  const [open, setOpen] = useState(text.length < 600)
  return (
    <div className="json">
      {label !== undefined && <div className="json-label">{label}</div>}
      {open ? <pre>{text}</pre> : <button type="button" className="link" onClick={() => setOpen(true)}>Show {text.length.toLocaleString()} characters</button>}
    </div>
  )
}
