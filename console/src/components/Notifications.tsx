import { useCallback, useRef, useState } from 'react'
import { useLocation } from 'wouter'
import { call } from '../api'
import { useAction } from '../hooks'
import { useInbox } from '../inbox'
import { chime, desktopAllowed, newsOf, showDesktop } from '../notify'
import { texts } from '../texts'
import type { LiveEvent } from '../types'
import { useLiveEvents, useWorkspace } from '../workspace'

/**
 * Tells the agent of a case that comes to them, and (while the tab is hidden) of a visitor's
 * message in their cases or a note mentioning them: a chime and a desktop notification, each as
 * the agent chose (`agent/set_notifications`).
 */
export function useNotifier(): void {
  const { me } = useWorkspace()
  const inbox = useInbox()
  const [, navigate] = useLocation()
  // The lists as they were before the event: the inbox applies it in the same tick.
  const now = useRef({ lists: inbox.lists, openCaseID: inbox.openCaseID })
  now.current = { lists: inbox.lists, openCaseID: inbox.openCaseID }
  const { sound, desktop } = me.notifications
  useLiveEvents(
    useCallback(
      (event: LiveEvent) => {
        const news = newsOf(event, { me, ...now.current, hidden: document.hidden })
        if (!news) return
        if (sound) chime()
        if (desktop) showDesktop(news, (caseID) => navigate(`/cases/${caseID}`))
      },
      [me, sound, desktop, navigate],
    ),
  )
}

/** The agent's own switches for the chime and desktop notifications. */
export function NotificationSettings() {
  const { me, setMe } = useWorkspace()
  const { pending, run } = useAction()
  const [blocked, setBlocked] = useState(false)
  const save = async (changes: { sound?: boolean; desktop?: boolean }) => {
    const answer = await run(() => call('agent/set_notifications', changes))
    if (answer) setMe(answer.agentAccount)
  }
  const setDesktop = async (on: boolean) => {
    // The browser asks the agent once; a refusal leaves desktop notifications off.
    if (on && !desktopAllowed()) {
      const permission = 'Notification' in window ? await Notification.requestPermission() : 'denied'
      setBlocked(permission !== 'granted')
      if (permission !== 'granted') return
    }
    await save({ desktop: on })
  }
  return (
    <fieldset className="notify-settings" disabled={pending}>
      <legend>{texts.notify.legend}</legend>
      <label>
        <input
          type="checkbox"
          name="sound"
          checked={me.notifications.sound}
          onChange={(event) => {
            if (event.target.checked) chime()
            void save({ sound: event.target.checked })
          }}
        />
        {texts.notify.sound}
      </label>
      <label>
        <input
          type="checkbox"
          name="desktop"
          checked={me.notifications.desktop && !blocked}
          onChange={(event) => void setDesktop(event.target.checked)}
        />
        {texts.notify.desktop}
      </label>
      {blocked && <p className="muted small">{texts.notify.blocked}</p>}
    </fieldset>
  )
}
