import { type ReactNode, useEffect, useRef, useState } from 'react'
import { texts } from '../texts'

export function PageHeader({
  title,
  subtitle,
  actions,
}: {
  title: string
  subtitle?: string
  actions?: ReactNode
}) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="muted">{subtitle}</p>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </header>
  )
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children && <div className="muted">{children}</div>}
    </div>
  )
}

export function ErrorNote({ error }: { error: string }) {
  if (!error) return null
  return (
    <p className="error-note" role="alert">
      {error}
    </p>
  )
}

/** A button that copies `value` (named `what` for screen readers), and says so for a moment. */
function CopyButton({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return
    const timer = setTimeout(() => setCopied(false), 1500)
    return () => clearTimeout(timer)
  }, [copied])
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
    } catch {
      // No clipboard permission (or not a secure context): select-and-copy the old way.
      const field = document.createElement('textarea')
      field.value = value
      document.body.append(field)
      field.select()
      document.execCommand('copy')
      field.remove()
    }
    setCopied(true)
  }
  return (
    <button type="button" className="btn small" onClick={copy} aria-label={texts.ui.copyWhat(what)}>
      {copied ? texts.ui.copied : texts.ui.copy}
    </button>
  )
}

/** A value shown in a monospace box with a copy button beside it. */
export function CopyField({
  label,
  value,
  secret = false,
}: {
  label: string
  value: string
  secret?: boolean
}) {
  const [shown, setShown] = useState(!secret)
  return (
    <div className="copy-field">
      <span className="field-label">{label}</span>
      <div className="copy-row">
        <code data-testid={label}>{shown ? value : '•'.repeat(24)}</code>
        {secret && (
          <button type="button" className="btn small ghost" onClick={() => setShown(!shown)}>
            {shown ? texts.ui.hide : texts.ui.show}
          </button>
        )}
        <CopyButton value={value} what={label} />
      </div>
    </div>
  )
}

/** A catalogue text with `{…}` around what is shown as code (a header's name, a call). */
export function Marked({ text }: { text: string }) {
  // split() with a group puts the marked parts at the odd places.
  return text.split(/\{([^}]*)\}/).map((part, i) =>
    i % 2 === 1 ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of a fixed text never move
      <span key={i} className="mono">
        {part}
      </span>
    ) : (
      part
    ),
  )
}

export function StatusDot({ status }: { status: string }) {
  return <span className={`dot dot-${status}`} aria-hidden="true" />
}

/** A modal dialog (the browser's own: focus is trapped, Escape closes it). */
export function Dialog({
  title,
  open,
  onClose,
  children,
}: {
  title: string
  open: boolean
  onClose: () => void
  children: ReactNode
}) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog ref={ref} className="dialog" onClose={onClose} aria-label={title}>
      {open && (
        <>
          <h2>{title}</h2>
          {children}
        </>
      )}
    </dialog>
  )
}
