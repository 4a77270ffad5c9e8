import type { SoakDeployment } from './deployment.js'

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One fault as an operator meets it: injected, and over when `inject` resolves. */
export interface Fault {
  name: string
  inject(deployment: SoakDeployment): Promise<void>
}

/** PostgreSQL connections terminated every 100–300 ms for `seconds`. */
export const terminationStorm = (seconds: number): Fault => ({
  name: `PostgreSQL connections terminated every 100-300 ms for ${seconds} s`,
  async inject({ cluster }) {
    const until = Date.now() + seconds * 1000
    while (Date.now() < until) {
      await cluster.terminateConnections().catch(() => 0)
      await pause(100 + Math.random() * 200)
    }
  },
})

export const postgresRestart: Fault = {
  name: 'PostgreSQL restarted',
  inject: ({ cluster }) => cluster.restart(),
}

export const redisRestart: Fault = {
  name: 'Redis killed and started again 3 s later',
  async inject(deployment) {
    await deployment.killRedis()
    await pause(3000)
    await deployment.startRedis()
  },
}

export const instanceKilled: Fault = {
  name: 'an instance killed (SIGKILL) and started again',
  async inject(deployment) {
    const last = deployment.instances.length - 1
    await deployment.killInstance(last)
    await pause(2000)
    await deployment.startInstance(last)
  },
}

export const storeRestart: Fault = {
  name: 'the S3 store stopped for 10 s and started again',
  async inject({ s3 }) {
    await s3.down()
    await pause(10_000)
    await s3.up()
  },
}

export const endpointFailing: Fault = {
  name: 'the event endpoint failing (500) for 20 s',
  async inject({ endpoint }) {
    endpoint.fail(true)
    await pause(20_000)
    endpoint.fail(false)
  },
}

/** Every fault, in the order the soak injects them. */
export const allFaults = [
  terminationStorm(30),
  postgresRestart,
  redisRestart,
  instanceKilled,
  storeRestart,
  endpointFailing,
]
