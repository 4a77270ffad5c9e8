import { type FormEvent, useState } from 'react'
import { call, setCSRFToken } from '../api'
import { ErrorNote } from '../components/ui'
import { useAction } from '../hooks'
import { texts } from '../texts'
import type { Session } from '../types'

/** Sign in with e-mail and password; the answer's cookie signs in the socket and every call. */
export function Login({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const { pending, error, run } = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const session = await run(() => call('auth/login', { email, password }))
    if (!session) return
    setCSRFToken(session.csrfToken)
    onSignedIn(session)
  }
  return (
    <main className="login">
      <form className="card login-card" onSubmit={submit}>
        <h1 className="brand big">
          <span className="brand-mark" aria-hidden="true">
            P
          </span>
          Parley
        </h1>
        <p className="muted">{texts.login.intro}</p>
        <label>
          {texts.login.email}
          <input
            type="email"
            autoComplete="username"
            required
            // biome-ignore lint/a11y/noAutofocus: signing in is all this page is for
            autoFocus
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          {texts.login.password}
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <ErrorNote error={error} />
        <button type="submit" className="btn primary wide" disabled={pending}>
          {pending ? texts.login.signingIn : texts.login.signIn}
        </button>
        <p className="muted login-help">
          {texts.login.help} <code>{texts.login.command}</code>
        </p>
      </form>
    </main>
  )
}
