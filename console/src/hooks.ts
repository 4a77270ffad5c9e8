import { type DependencyList, useCallback, useEffect, useRef, useState } from 'react'
import { problem } from './api'

/** The current time, refreshed every `everyMs` (for "waiting 4 min" cues). */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(Date.now)
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs)
    return () => clearInterval(timer)
  }, [everyMs])
  return now
}

export interface Loaded<T> {
  data: T | undefined
  error: string
  loading: boolean
  reload: () => Promise<void>
  /** Replaces the data in place (after a change whose answer is the new state). */
  set: (data: T) => void
}

/** Loads `load()` on mount and whenever `deps` change; a late answer for old deps is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): Loaded<T> {
  const [data, setData] = useState<T>()
  const [error, setError] = useState('')
  const [loading, setLoading] = useState(true)
  const latest = useRef(0)
  const reload = useCallback(
    async () => {
      const request = ++latest.current
      setLoading(true)
      try {
        const answer = await load()
        if (request !== latest.current) return
        setData(answer)
        setError('')
      } catch (failure) {
        if (request === latest.current) setError(problem(failure))
      } finally {
        if (request === latest.current) setLoading(false)
      }
    },
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what `load` depends on
    deps,
  )
  useEffect(() => {
    void reload()
  }, [reload])
  return { data, error, loading, reload, set: setData }
}

/**
 * Runs an action (a button's click), keeping its pending state and error for the view. The
 * action's result is returned; on failure the error is kept and `undefined` returned.
 */
export function useAction() {
  const [pending, setPending] = useState(false)
  const [error, setError] = useState('')
  const run = useCallback(async <T>(action: () => Promise<T>): Promise<T | undefined> => {
    setPending(true)
    setError('')
    try {
      return await action()
    } catch (failure) {
      setError(problem(failure))
      return undefined
    } finally {
      setPending(false)
    }
  }, [])
  return { pending, error, run, clearError: () => setError('') }
}
