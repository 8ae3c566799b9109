import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useEffect, useState } from "react"
import { api, ApiError } from "../../api/client"
import { ErrorState } from "../../ui/States"

const ZONES: ReadonlyArray<string> = (() => {
  const all = (Intl as { supportedValuesOf?: (key: string) => ReadonlyArray<string> }).supportedValuesOf?.("timeZone") ?? []
  return all.includes("UTC") ? all : ["UTC", ...all]
})()

/** The text settles for a moment before the preview is asked for again. */
const useSettled = <A extends unknown>(value: A, ms: number) => {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return settled
}

const inZone = (at: Date, timezone: string) => {
  try {
    return at.toLocaleString(undefined, {
      timeZone: timezone,
      weekday: "short",
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit"
    })
  } catch {
    return at.toISOString()
  }
}

/**
 * The AI Employee's schedule: a cron expression in a time zone, previewed as the next fire times
 * the server computes for it (the same parser as a save), saved, enabled and disabled.
 */
export const ScheduleCard = ({ workflowId, canWrite }: { readonly workflowId: string; readonly canWrite: boolean }) => {
  const queryClient = useQueryClient()
  const key = ["ai-employee", workflowId, "schedule"]
  const schedule = useQuery({
    queryKey: key,
    queryFn: () =>
      api((c) => c.schedules.get({ path: { id: workflowId as never } })).catch((
        e: unknown
      ) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e)))
  })
  const [cron, setCron] = useState<string | undefined>(undefined)
  const [timezone, setTimezone] = useState<string | undefined>(undefined)
  const [overlap, setOverlap] = useState<"skip" | "allow" | undefined>(undefined)
  const current = schedule.data ?? undefined
  const shownCron = cron ?? current?.cron ?? "0 9 * * 1-5"
  const shownZone = timezone ?? current?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone
  const settled = useSettled({ cron: shownCron, timezone: shownZone }, 300)
  const preview = useQuery({
    queryKey: ["schedule-preview", settled.cron, settled.timezone],
    queryFn: () => api((c) => c.schedules.previewSchedule({ payload: { cron: settled.cron, timezone: settled.timezone, count: 5 } })),
    retry: false,
    enabled: settled.cron.trim() !== ""
  })
  const done = (next: unknown) => queryClient.setQueryData(key, next)
  const save = useMutation({
    mutationFn: () =>
      api((c) =>
        c.schedules.put({
          path: { id: workflowId as never },
          payload: {
            cron: shownCron,
            timezone: shownZone,
            overlap_policy: overlap ?? current?.overlap_policy ?? "skip",
            input_params: current?.input_params ?? {}
          }
        })
      ),
    onSuccess: done
  })
  const toggle = useMutation({
    mutationFn: (on: boolean) =>
      api((c) => (on ? c.schedules.enable({ path: { id: workflowId as never } }) : c.schedules.disable({ path: { id: workflowId as never } }))),
    onSuccess: done
  })
  const remove = useMutation({
    mutationFn: () => api((c) => c.schedules.remove({ path: { id: workflowId as never } })),
    onSuccess: () => queryClient.setQueryData(key, null)
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    save.mutate()
  }
  const failure = save.error ?? toggle.error ?? remove.error
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="Schedule">
      <header>
        <h2>Schedule</h2>
        {current != null && <span className={`badge ${current.enabled ? "ok" : "muted"}`}>{current.enabled ? "on" : "off"}</span>}
      </header>
      {current?.managed === true && <p className="muted small">Managed by a schedule node of this AI Employee.</p>}
      <div className="field-row wide">
        <label>
          Cron expression{" "}
          <input className="mono" value={shownCron} onChange={(e) => setCron(e.target.value)} disabled={!canWrite} aria-describedby="cron-help" />
        </label>
        <label>
          Time zone
          <select value={shownZone} onChange={(e) => setTimezone(e.target.value)} disabled={!canWrite}>
            {(ZONES.includes(shownZone) ? ZONES : [shownZone, ...ZONES]).map((z) => <option key={z} value={z}>{z}</option>)}
          </select>
        </label>
        <label>
          When a run is still going
          <select value={overlap ?? current?.overlap_policy ?? "skip"} onChange={(e) => setOverlap(e.target.value as "skip" | "allow")} disabled={!canWrite}>
            <option value="skip">skip the fire</option>
            <option value="allow">start another run</option>
          </select>
        </label>
      </div>
      <span id="cron-help" className="muted small">
        minute hour day-of-month month day-of-week (a sixth field first for seconds), e.g. <span className="mono">0 9 * * 1-5</span>: 9:00 on weekdays
      </span>
      <section aria-label="Next fire times" className="preview">
        <h3>Next fire times</h3>
        {preview.error !== null
          ? <p className="error-text" role="alert">{preview.error instanceof ApiError ? preview.error.message : String(preview.error)}</p>
          : (
            <ol>
              {(preview.data?.next_fire_times ?? []).map((t) => (
                <li key={t.toISOString()}>
                  {inZone(t, settled.timezone)} <span className="muted small">({settled.timezone})</span>
                </li>
              ))}
            </ol>
          )}
      </section>
      {current != null && (
        <p className="muted small">
          Next fire {current.next_fire_at !== null ? inZone(current.next_fire_at, current.timezone) : "—"} · last{" "}
          {current.last_fire_at !== null ? inZone(current.last_fire_at, current.timezone) : "—"} ({current.timezone})
          {current.last_error !== null && <span className="error-text">· last fire started no run: {current.last_error}</span>}
        </p>
      )}
      {failure !== null && <ErrorState error={failure} />}
      <div className="card-actions">
        <button type="submit" className="primary" disabled={!canWrite || save.isPending || preview.error !== null}>
          {current != null ? "Save schedule" : "Create schedule"}
        </button>
        {current != null && (
          <button type="button" disabled={!canWrite || toggle.isPending} onClick={() => toggle.mutate(!current.enabled)}>
            {current.enabled ? "Turn off" : "Turn on"}
          </button>
        )}
        {current != null && (
          <button type="button" className="danger" disabled={!canWrite || remove.isPending} onClick={() => remove.mutate()}>Delete schedule</button>
        )}
      </div>
    </form>
  )
}
