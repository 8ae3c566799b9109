import { useNavigate } from "@tanstack/react-router"
import { RUN_STATUSES, type RunSearch, TRIGGER_TYPES, useEmployeeNames } from "./runsApi"

const toLocalInput = (iso: string | undefined) => {
  if (iso === undefined) return ""
  const d = new Date(iso)
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
}

/** The run filters, kept in the URL: a filtered list is a link, and back and forward move through filters. */
export const RunFilters = ({ search }: { readonly search: RunSearch }) => {
  const navigate = useNavigate()
  const employees = useEmployeeNames()
  const set = (key: keyof RunSearch, value: string) =>
    void navigate({ to: "/runs", search: { ...search, cursor: undefined, [key]: value === "" ? undefined : value } })
  return (
    <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter runs">
      <label>
        Status
        <select value={search.status ?? ""} onChange={(e) => set("status", e.target.value)}>
          <option value="">Any</option>
          {RUN_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      </label>
      <label>
        Trigger
        <select value={search.trigger_type ?? ""} onChange={(e) => set("trigger_type", e.target.value)}>
          <option value="">Any</option>
          {TRIGGER_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
      </label>
      <label>
        AI Employee
        <select value={search.workflow_id ?? ""} onChange={(e) => set("workflow_id", e.target.value)}>
          <option value="">Any</option>
          {(employees.data?.items ?? []).map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
        </select>
      </label>
      <label>
        Since
        <input
          type="datetime-local"
          value={toLocalInput(search.since)}
          onChange={(e) => set("since", e.target.value === "" ? "" : new Date(e.target.value).toISOString())}
        />
      </label>
      {(["status", "trigger_type", "workflow_id", "since"] as const).some((k) => search[k] !== undefined) && (
        <button
          type="button"
          onClick={() => void navigate({ to: "/runs", search: { order: search.order } })}
        >
          Clear filters
        </button>
      )}
    </form>
  )
}
