import { randomBytes } from 'node:crypto'
import { beforeAll, expect, test } from 'vitest'
import { send, useServer } from '../support/app.js'
import { describeEachDatabase } from '../support/databases.js'

// A token may arrive anywhere in a URL: in a query parameter of any name, as a parameter name,
// or inside the path. None of it may reach the logs; harmless parts (paths, IDs, ?check=1) stay.

describeEachDatabase('URLs in the logs', (dialect) => {
  const server = useServer(dialect)
  const token = randomBytes(32).toString('base64url')
  const jwt = `eyJhbGciOiJIUzI1NiJ9.${randomBytes(24).toString('base64url')}.${randomBytes(32).toString('base64url')}`
  // A random token without a digit (about 1 in 1,400 draws): CI once drew one, and it was logged.
  const lettersOnly = 'NMjleguwyiazRMWfwNEdGqqxcqAdnjVYbr_miYexiOQ'

  beforeAll(async () => {
    const url = server().url
    const get = (path: string) => send(`${url}${path}`, { method: 'GET' })
    await get(`/connect?jwt=${jwt}&check=1`)
    await get(`/connect?refreshToken=${token}&apiKey=${token}&check=1`)
    await get(`/docs/json?${token}`)
    await get(`/v1/chat/room/${token}/messages`)
    await get(`/docs/json?${lettersOnly}`)
    await get(`/v1/chat/room/${lettersOnly}/messages`)
    await get(`/api/visitor/v1/webhook/chatbot/custom/123456789012345678/${jwt}`)
    await server().post(`/v1/chat/message/send?access_key=${encodeURIComponent(`Bearer ${token}`)}`, {})
  })

  test('no token is logged, in any parameter or path segment', () => {
    const logs = server().logs.join('')
    for (const secret of [token, jwt, encodeURIComponent(jwt), lettersOnly])
      expect(logs).not.toContain(secret)
    expect(logs).not.toContain(jwt.split('.')[1])
  })

  test('what is harmless is still logged', () => {
    const logs = server().logs.join('')
    expect(logs).toContain('/connect?jwt=%5Bredacted%5D&check=1')
    expect(logs).toContain('/connect?refreshToken=%5Bredacted%5D&apiKey=%5Bredacted%5D&check=1')
    expect(logs).toContain('/docs/json?%5Bredacted%5D=%5Bredacted%5D')
    expect(logs).toContain('/v1/chat/room/%5Bredacted%5D/messages')
    expect(logs).toContain('/api/visitor/v1/webhook/chatbot/custom/123456789012345678/%5Bredacted%5D')
    expect(logs).toContain('/v1/chat/message/send?access_key=%5Bredacted%5D')
  })
})
