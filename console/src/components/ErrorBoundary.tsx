import { Component, type ReactNode } from 'react'

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
        <p className="empty-title">This page hit a problem</p>
        <p className="muted">Your work is saved on the server.</p>
        <p>
          <a className="btn" href="/console/">
            Back to the inbox
          </a>
        </p>
      </div>
    )
  }
}
