import { Component, type ReactNode } from 'react'
import { texts } from '../texts'

/** A page that throws shows a way out instead of a blank screen. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError() {
    return { failed: true }
  }

  override render() {
    if (!this.state.failed) return this.props.children
    return (
      <div className="empty" role="alert">
        <p className="empty-title">{texts.app.failed}</p>
        <p className="muted">{texts.app.failedDetail}</p>
        <p>
          <a className="btn" href="/console/">
            {texts.app.backToInbox}
          </a>
        </p>
      </div>
    )
  }
}
