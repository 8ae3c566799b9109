import { type KeyboardEvent, type ReactNode, useRef } from "react"

/**
 * A tab list whose selection lives in the URL (the caller navigates in `onSelect`). By keyboard:
 * Tab reaches the selected tab, the arrow keys, Home and End move between tabs (WAI-ARIA tabs).
 */
export const Tabs = <T extends string>({ tabs, selected, onSelect, label, name, idPrefix }: {
  readonly tabs: ReadonlyArray<T>
  readonly selected: T
  readonly onSelect: (tab: T) => void
  readonly label: string
  readonly name: (tab: T) => string
  readonly idPrefix: string
}) => {
  const list = useRef<HTMLDivElement>(null)
  const move = (e: KeyboardEvent) => {
    const at = tabs.indexOf(selected)
    const to = e.key === "ArrowRight" ?
      (at + 1) % tabs.length
      : e.key === "ArrowLeft" ?
      (at - 1 + tabs.length) % tabs.length
      : e.key === "Home" ?
      0
      : e.key === "End" ?
      tabs.length - 1
      : undefined
    if (to === undefined) return
    e.preventDefault()
    onSelect(tabs[to])
    list.current?.querySelectorAll<HTMLButtonElement>("[role=tab]")[to]?.focus()
  }
  return (
    <div role="tablist" aria-label={label} className="tabs" ref={list} onKeyDown={move}>
      {tabs.map((t) => (
        <button
          key={t}
          type="button"
          role="tab"
          aria-selected={selected === t}
          tabIndex={selected === t ? 0 : -1}
          aria-controls={`${idPrefix}-panel-${t}`}
          id={`${idPrefix}-tab-${t}`}
          onClick={() => onSelect(t)}
        >
          {name(t)}
        </button>
      ))}
    </div>
  )
}

/** The panel of the selected tab. */
export const TabPanel = ({ idPrefix, tab, children }: { readonly idPrefix: string; readonly tab: string; readonly children: ReactNode }) => (
  <section role="tabpanel" id={`${idPrefix}-panel-${tab}`} aria-labelledby={`${idPrefix}-tab-${tab}`} tabIndex={0} className="tabpanel">
    {children}
  </section>
)
