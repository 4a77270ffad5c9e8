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
    return await load(`auth_ticket/request (${label})`, {
      url: `${service.url}/v1/server/auth_ticket/request`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'server-key': serverKey as string },
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({
              userIPAddress: '203.0.113.7',
              userAgent: 'autocannon',
              userPlatform: 'web',
              userDeviceID: 'bench-device',
              xcUserID: `bench-user-${n++ % USERS}`,
              fullName: 'Bench User',
              email: 'bench@example.com',
            }),
          }),
        },
      ],
    })
  } finally {
    await service.stop()
    await storage.drop()
  }
}
