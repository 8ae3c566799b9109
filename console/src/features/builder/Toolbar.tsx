import { NODE_TYPES, type NodeTypeInfo } from "./nodeTypes"

/** The node types, each added with a click (below the selected node, connected from it). */
export const Palette = ({ onAdd, disabled }: { readonly onAdd: (info: NodeTypeInfo) => void; readonly disabled: boolean }) => (
  <nav className="palette" aria-label="Add a node">
    <h3>Add a node</h3>
    {NODE_TYPES.map((t) => (
      <button
        key={t.type}
        type="button"
        title={t.hint}
        disabled={disabled}
        onClick={() => onAdd(t)}
      >
        <span className={`type-dot ${t.type}`} aria-hidden="true" /> {t.label}
      </button>
    ))}
  </nav>
)

export interface ToolbarProps {
  readonly dirty: boolean
  readonly canUndo: boolean
  readonly canRedo: boolean
  readonly saving: boolean
  readonly publishing: boolean
  readonly readOnly: boolean
  readonly onUndo: () => void
  readonly onRedo: () => void
  readonly onLayout: () => void
  readonly onSave: () => void
  readonly onPublish: () => void
  readonly onTest: () => void
}

/** Undo and redo, automatic layout, save, test and publish; the state of the canvas's changes. */
export const Toolbar = (p: ToolbarProps) => (
  <div className="toolbar" role="toolbar" aria-label="Canvas">
    <button type="button" onClick={p.onUndo} disabled={!p.canUndo || p.readOnly} title="Undo (Ctrl+Z)">Undo</button>
    <button type="button" onClick={p.onRedo} disabled={!p.canRedo || p.readOnly} title="Redo (Ctrl+Shift+Z)">Redo</button>
    <button type="button" onClick={p.onLayout} disabled={p.readOnly}>Auto layout</button>
    <span className={`save-state${p.dirty ? " dirty" : ""}`} role="status">{p.saving ? "Saving…" : p.dirty ? "Unsaved changes" : "All changes saved"}</span>
    <span className="spacer" />
    <button type="button" onClick={p.onTest}>Test</button>
    <button type="button" onClick={p.onSave} disabled={!p.dirty || p.saving || p.readOnly} title="Save a draft version (Ctrl+S)">Save draft</button>
    <button type="button" className="primary" onClick={p.onPublish} disabled={p.publishing || p.saving || p.readOnly}>Publish</button>
  </div>
)
