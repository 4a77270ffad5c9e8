import { Link } from 'wouter'
import { call } from '../api'
import { ErrorNote } from '../components/ui'
import { deviceName } from '../device'
import { fullTime, when } from '../format'
import { useLoad, useNow } from '../hooks'
import { tabOf } from '../inbox'
import { texts } from '../texts'
import type { VisitorProfile } from '../types'
import { useWorkspace } from '../workspace'

/** Wide enough for the panel beside the conversation; narrower, it starts folded. */
const SIDE_BY_SIDE = '(min-width: 1100px)'

/**
 * Who the case's visitor is: the profile their app's backend gave in the ticket request, the device
 * they last signed in from, and their other cases (newest first), each a link to open it.
 */
export function VisitorPanel({ userID, caseID }: { userID: string; caseID: string }) {
  const { liveEpoch } = useWorkspace()
  const profile = useLoad(() => call('visitor/get', { userID }), [userID, liveEpoch])
  return (
    <details
      className="visitor-panel"
      open={window.matchMedia(SIDE_BY_SIDE).matches}
      data-testid="visitor-panel"
    >
      <summary className="field-label">{texts.visitor.title}</summary>
      <ErrorNote error={profile.error} />
      {profile.data && <Profile {...profile.data} caseID={caseID} />}
    </details>
  )
}

function Profile({ visitor, cases, caseID }: VisitorProfile & { caseID: string }) {
  const { me } = useWorkspace()
  const now = useNow()
  const earlier = cases.filter((item) => item.caseID !== caseID)
  const facts: [string, string, string?][] = [
    [texts.visitor.email, visitor.email],
    [texts.visitor.phone, visitor.phone],
    [texts.visitor.userID, visitor.xcUserID],
    [texts.visitor.username, visitor.username],
    [texts.visitor.role, visitor.userRoleCode],
    [texts.visitor.platform, visitor.device?.platform ?? ''],
    // The device as people name it; the app's own device ID and the whole user agent on hover.
    [
      texts.visitor.device,
      deviceName(visitor.device?.userAgent ?? '') || (visitor.device?.deviceID ?? ''),
      visitor.device
        ? texts.visitor.deviceTitle(visitor.device.userAgent, visitor.device.deviceID)
        : undefined,
    ],
    [texts.visitor.since, fullTime(visitor.created)],
  ]
  return (
    <>
      <h3 className="visitor-name">{visitor.fullName || texts.visitor.title}</h3>
      <dl className="visitor-facts">
        {facts
          .filter(([, value]) => value)
          .map(([label, value, title]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd title={title}>{value}</dd>
            </div>
          ))}
      </dl>
      <h4 className="field-label">{texts.visitor.earlier}</h4>
      {earlier.length === 0 ? (
        <p className="muted">{texts.visitor.firstCase}</p>
      ) : (
        <ul className="visitor-cases" data-testid="visitor-cases">
          {earlier.map((item) => {
            const tab = tabOf(item, me)
            return (
              <li key={item.caseID}>
                <Link href={`/cases/${item.caseID}${tab ? `?tab=${tab}` : ''}`} data-case-id={item.caseID}>
                  <span className="visitor-case-top">
                    <span className={`status status-${item.status}`}>{texts.statusName[item.status]}</span>
                    <span className="muted" title={fullTime(item.created)}>
                      {when(item.created, now)}
                    </span>
                  </span>
                  <span className="visitor-case-text">{item.firstMessage || texts.visitor.noMessage}</span>
                </Link>
              </li>
            )
          })}
        </ul>
      )}
    </>
  )
}
