import type autocannon from 'autocannon'
import { cli, type Figures, freshStorage, load, startService } from './lib.js'

const USERS = 1000

/** The auth ticket endpoint on one storage, with logins spread over USERS users. */
export async function benchTicket(label: string, postgresURL?: string): Promise<Figures> {
  const storage = await freshStorage(postgresURL)
  const service = await startService(['dist/main.js'], storage.env)
  try {
    const { organizationID } = cli(['org', 'create', '--name', 'Bench'], storage.env)
    const { serverKey } = cli(['server-key', 'create', '--org', organizationID as string], storage.env)
    let n = 0
    const options = ticketRequests(service.url, serverKey as string, () => `bench-user-${n++ % USERS}`)
    return await load(`auth_ticket/request (${label})`, options)
  } finally {
    await service.stop()
    await storage.drop()
  }
}

/** autocannon's options for ticket requests, for the user `xcUserID()` names each time. */
export function ticketRequests(url: string, serverKey: string, xcUserID: () => string): autocannon.Options {
  return {
    url: `${url}/v1/server/auth_ticket/request`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'server-key': serverKey },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            userIPAddress: '203.0.113.7',
            userAgent: 'autocannon',
            userPlatform: 'web',
            userDeviceID: 'bench-device',
            xcUserID: xcUserID(),
            fullName: 'Bench User',
            email: 'bench@example.com',
          }),
        }),
      },
    ],
  }
}
