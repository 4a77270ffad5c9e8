import { type Tab, tabOf } from './inbox'
import { lastMessageOf } from './rows'
import { texts } from './texts'
import type { Agent, CaseRow, LiveEvent } from './types'

/** Something the agent should hear of: what a desktop notification says, and the case it opens. */
export interface News {
  title: string
  body: string
  caseID: string
}

/** What the console knows as an event arrives (before the inbox applies it). */
export interface Situation {
  me: Pick<Agent, 'agentAccountID' | 'topics' | 'role'>
  lists: Record<Tab, CaseRow[]>
  openCaseID: string
  /** The console's tab is in the background (`document.hidden`). */
  hidden: boolean
}

const BODY = 140

/**
 * The news an event brings the agent, if any: a case that comes to them (unless it is the one
 * they are looking at: they took it), and while the tab is hidden a visitor's message in one of
 * their cases or a note mentioning them.
 */
export function newsOf(event: LiveEvent, now: Situation): News | undefined {
  const { me, lists, openCaseID, hidden } = now
  switch (event.eventName) {
    case 'case/update': {
      const item = event.data
      const cameToMe = tabOf(item, me) === 'mine' && !lists.mine.some((mine) => mine.caseID === item.caseID)
      if (!cameToMe || (item.caseID === openCaseID && !hidden)) return undefined
      return {
        title: texts.notify.cameToYou,
        body: clip(item.visitor?.fullName || item.firstMessage),
        caseID: item.caseID,
      }
    }
    case 'chat/sendMessage': {
      const said = lastMessageOf(event.data)
      if (!hidden || said.senderRole !== 'visitor') return undefined
      const item = lists.mine.find((mine) => mine.roomID === event.data.roomID)
      if (!item) return undefined
      return { title: said.senderName || texts.transcript.visitor, body: said.preview, caseID: item.caseID }
    }
    case 'agent/mention':
      if (!hidden) return undefined
      return {
        title: texts.notify.mentioned(event.data.by.fullName),
        body: clip(event.data.note.text),
        caseID: event.data.caseID,
      }
    default:
      return undefined
  }
}

const clip = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > BODY ? `${line.slice(0, BODY - 1)}…` : line
}

let audio: AudioContext | undefined

/**
 * A short two-note chime, made by the browser (no sound file to fetch or allow in the CSP). A
 * browser lets a page play sound only after the agent has interacted with it; until then, silence.
 */
export function chime(): void {
  audio ??= new AudioContext()
  if (audio.state === 'suspended') void audio.resume().catch(() => {})
  const start = audio.currentTime
  for (const [offset, frequency] of [
    [0, 880],
    [0.12, 1320],
  ] as const) {
    const tone = audio.createOscillator()
    const volume = audio.createGain()
    tone.frequency.value = frequency
    volume.gain.setValueAtTime(0.15, start + offset)
    volume.gain.exponentialRampToValueAtTime(0.001, start + offset + 0.25)
    tone.connect(volume).connect(audio.destination)
    tone.start(start + offset)
    tone.stop(start + offset + 0.25)
  }
}

/** Whether this browser can show desktop notifications, and has the agent's permission to. */
export const desktopAllowed = () => 'Notification' in window && Notification.permission === 'granted'

/** A desktop notification; clicking it brings the console forward at the case. */
export function showDesktop(news: News, openCase: (caseID: string) => void): void {
  if (!desktopAllowed()) return
  // One notification per case: a newer one replaces it rather than piling up.
  const notification = new Notification(news.title, { body: news.body, tag: news.caseID })
  notification.onclick = () => {
    window.focus()
    openCase(news.caseID)
    notification.close()
  }
}
