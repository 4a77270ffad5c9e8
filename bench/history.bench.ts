import { cli, type Figures, freshStorage, load, poster, signIn, startService } from './lib.js'

const MESSAGES = 200
const PAGE = 50

/** `list_by_room/before`: the latest 50 messages of a room of 200, on one storage. */
export async function benchHistory(label: string, postgresURL?: string): Promise<Figures> {
  const storage = await freshStorage(postgresURL)
  const service = await startService(['dist/main.js'], storage.env)
  try {
    const { organizationID } = cli(['org', 'create', '--name', 'Bench'], storage.env)
    const { serverKey } = cli(['server-key', 'create', '--org', organizationID as string], storage.env)
    const post = poster(service.url)
    const alice = await signIn(post, serverKey as string, 'alice')
    const bob = await signIn(post, serverKey as string, 'bob')
    let roomID = ''
    for (let i = 0; i < MESSAGES; i++) {
      const sender = i % 2 ? bob : alice
      const to = i % 2 ? alice : bob
      const sent = await post('/v1/chat/message/send', sender.auth, {
        recipientUserID: to.userID,
        localID: `m${i}`,
        type: 1001,
        body: `Message number ${i}: a line of a conversation, as people write them.`,
      })
      roomID = (sent.message as unknown as { roomID: string }).roomID
    }
    return await load(`history page of ${PAGE} (${label})`, {
      url: `${service.url}/v1/chat/message/list_by_room/before`,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...alice.auth },
      body: JSON.stringify({ roomID, limit: PAGE }),
    })
  } finally {
    await service.stop()
    await storage.drop()
  }
}
