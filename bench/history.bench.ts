import {
  CONNECTIONS,
  type Figures,
  freshStorage,
  load,
  newOrganization,
  poster,
  type Service,
  signIn,
  startService,
} from './lib.js'

const MESSAGES = 200
const PAGE = 50

/**
 * `list_by_room/before`: the latest 50 messages of a room of 200, on one storage. `spread`: each
 * of the 50 connections is another user reading their own room (of 60 messages), so no two
 * requests read the same room.
 */
export async function benchHistory(label: string, postgresURL?: string, spread = false): Promise<Figures> {
  const storage = await freshStorage(postgresURL)
  const service = await startService(['dist/main.js'], storage.env)
  try {
    const url = `${service.url}/v1/chat/message/list_by_room/before`
    if (!spread) {
      const { alice, roomID } = await conversation(service, MESSAGES)
      return await load(`history page of ${PAGE} (${label})`, {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...alice.auth },
        body: JSON.stringify({ roomID, limit: PAGE }),
      })
    }
    const org = newOrganization(service.env)
    const readers = await Promise.all(
      Array.from({ length: CONNECTIONS }, (_, i) => conversation(service, 60, org, `${i}`)),
    )
    let next = 0
    return await load(`history page of ${PAGE}, ${CONNECTIONS} rooms (${label})`, {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      setupClient: (client) => {
        const { alice, roomID } = readers[next++ % readers.length] as (typeof readers)[number]
        client.setHeaders({ 'content-type': 'application/json', ...alice.auth })
        client.setBody(JSON.stringify({ roomID, limit: PAGE }))
      },
    })
  } finally {
    await service.stop()
    await storage.drop()
  }
}

/**
 * An organization's (by default a new one's) Alice and Bob, who have written each other `count`
 * messages (alternately, each a line as people write them): their room and its last message's
 * `created`. `pair` tells pairs of one organization apart.
 */
export async function conversation(
  service: Service,
  count: number,
  { organizationID, serverKey } = newOrganization(service.env),
  pair = '',
) {
  const post = poster(service.url)
  const alice = await signIn(post, serverKey, `alice${pair}`)
  const bob = await signIn(post, serverKey, `bob${pair}`)
  let last = { roomID: '', created: 0 }
  for (let i = 0; i < count; i++) {
    const [from, to] = i % 2 ? [bob, alice] : [alice, bob]
    const sent = await post('/v1/chat/message/send', from.auth, {
      recipientUserID: to.userID,
      localID: `m${i}`,
      type: 1001,
      body: `Message number ${i}: a line of a conversation, as people write them.`,
    })
    last = sent.message as unknown as typeof last
  }
  return { organizationID, serverKey, alice, bob, roomID: last.roomID, lastCreated: last.created }
}
