import {
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

/** `list_by_room/before`: the latest 50 messages of a room of 200, on one storage. */
export async function benchHistory(label: string, postgresURL?: string): Promise<Figures> {
  const storage = await freshStorage(postgresURL)
  const service = await startService(['dist/main.js'], storage.env)
  try {
    const { alice, roomID } = await conversation(service, MESSAGES)
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

/**
 * A new organization's Alice and Bob, who have written each other `count` messages (alternately,
 * each a line as people write them): their room and its last message's `created`.
 */
export async function conversation(service: Service, count: number) {
  const { organizationID, serverKey } = newOrganization(service.env)
  const post = poster(service.url)
  const alice = await signIn(post, serverKey, 'alice')
  const bob = await signIn(post, serverKey, 'bob')
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
