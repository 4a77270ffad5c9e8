import { afterAll } from 'vitest'
import { killChildren } from './children.js'

// Whatever a test file started is gone when the file ends, also after a failure or a time-out
// (a timed-out test never reaches its own `finally`).
afterAll(killChildren)
