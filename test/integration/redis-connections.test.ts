import type { ChildProcess } from 'node:child_process'
import { afterAll, expect, test } from 'vitest'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { describeEachDatabase } from '../support/databases.js'
import { eventually } from '../support/poll.js'
import { freePort, startRedis, stopRedis } from '../support/processes.js'

// The app opens its connections to Redis once, and closes them with itself. The suite has a
// redis-server of its own, so stopping it disturbs nobody.
describeEachDatabase('connections to Redis', (dialect) => {
  let redisProcess: ChildProcess | undefined
  let server: TestServer | undefined

  afterAll(async () => {
    if (server) await stopServer(server).catch(() => {})
    if (redisProcess) await stopRedis(redisProcess)
  })

  test('each connection of the app logs its errors by name, and closing the app closes them all', async () => {
    const port = await freePort()
    redisProcess = await startRedis(port)
    server = await startServer(dialect, { REDIS_URL: `redis://127.0.0.1:${port}` })
    const connections = Object.entries(server.app.redis ?? {})
    expect(connections.map(([name]) => name).sort()).toEqual([
      'logins',
      'presence',
      'publisher',
      'subscriber',
    ])
    const allReady = () => connections.every(([, connection]) => connection.status === 'ready')
    await eventually(allReady, 'every connection is ready')

    await stopRedis(redisProcess)
    redisProcess = undefined
    const { logs } = server
    const problems = () =>
      new Set(
        logs
          .map((line) => JSON.parse(line))
          .filter((line) => line.msg === 'redis: connection problem' && line.level === 40)
          .map((line) => line.connection),
      )
    const names = ['hub publisher', 'hub subscriber', 'presence', 'login limits']
    await eventually(() => names.every((name) => problems().has(name)), 'every connection logged')

    // Back (on the same port), every connection is ready again; then the app closes them.
    redisProcess = await startRedis(port)
    await eventually(allReady, 'every connection is ready again')
    await stopServer(server)
    server = undefined
    expect(connections.map(([name, c]) => [name, c.status])).toEqual(
      connections.map(([name]) => [name, 'end']),
    )
  }, 60_000) // a redis-server of its own, started for it
})
