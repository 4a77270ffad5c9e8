import { call } from '../api'
import { sanitiseEmailHTML } from '../email-html'
import { useLoad } from '../hooks'
import { texts } from '../texts'

/**
 * An e-mail case's mail above its conversation: the subject, from and to of the visitor's latest
 * mail, and its HTML (if any) sanitised in a sandboxed frame: no scripts, an opaque origin.
 */
export function EmailDetails({ caseID }: { caseID: string }) {
  const emails = useLoad(() => call('case/get_emails', { id: caseID }), [caseID])
  const latest = emails.data?.emails.filter((mail) => mail.direction === 'in').at(-1)
  if (!latest) return null
  return (
    <section className="card email-details" aria-label={texts.email.label}>
      <dl>
        <dt>{texts.email.subject}</dt>
        <dd data-testid="email-subject">{latest.subject || texts.email.noSubject}</dd>
        <dt>{texts.email.from}</dt>
        <dd>{latest.from}</dd>
        <dt>{texts.email.to}</dt>
        <dd>{latest.to.join(', ')}</dd>
      </dl>
      {latest.html && (
        <details>
          <summary>{texts.email.showHTML}</summary>
          <iframe
            title={texts.email.frameTitle(latest.subject)}
            sandbox=""
            referrerPolicy="no-referrer"
            srcDoc={sanitiseEmailHTML(latest.html)}
            className="email-html"
          />
        </details>
      )}
    </section>
  )
}
