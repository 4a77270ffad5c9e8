import { beforeAll, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { dataOf } from '../support/client-calls.js'
import { createOrganization, signIn, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'

// Contacts (docs/reference/client-api.md, "Contacts"): add, list, remove, and add by the phone
// numbers the customer's backend gave in the ticket request; private to each user, and only users
// of the caller's organization.
describeEachDatabase('contacts', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let ann: TestClient
  let ben: TestClient
  let cat: TestClient
  let stranger: TestClient

  beforeAll(async () => {
    org = await createOrganization(server(), 'Contacts')
    const other = await createOrganization(server(), 'Elsewhere')
    ann = await signIn(server(), org.serverKey, 'ann', { phone: '+447700900001' })
    ben = await signIn(server(), org.serverKey, 'ben', { phone: '447700900002' })
    cat = await signIn(server(), org.serverKey, 'cat', { phone: '+447700900003' })
    // The same number in another organization is another organization's user.
    stranger = await signIn(server(), other.serverKey, 'stranger', { phone: '+447700900002' })
  })

  const data = dataOf
  const contactIDs = async (client: TestClient) =>
    (await data(client, '/v1/client/contact/list')).contacts.map(
      (c: { user: { userID: string } }) => c.user.userID,
    )

  test('add, list (oldest first, with the user), add again, remove', async () => {
    const { user } = await data(ann, '/v1/client/contact/add', { userID: ben.userID })
    expect(user).toMatchObject({ userID: ben.userID, xcUserID: 'ben', fullname: 'User ben' })
    await data(ann, '/v1/client/contact/add', { userID: cat.userID })
    await data(ann, '/v1/client/contact/add', { userID: ben.userID })
    const { contacts } = await data(ann, '/v1/client/contact/list')
    expect(contacts).toHaveLength(2)
    expect(contacts[0]).toMatchObject({
      user: { userID: ben.userID, phone: '447700900002' },
      created: expect.any(Number),
    })
    expect(await contactIDs(ann)).toEqual([ben.userID, cat.userID])
    // Private: ben's list is his own.
    expect(await contactIDs(ben)).toEqual([])
    await data(ann, '/v1/client/contact/remove', { userID: cat.userID })
    await data(ann, '/v1/client/contact/remove', { userID: cat.userID })
    expect(await contactIDs(ann)).toEqual([ben.userID])
  })

  test('add by phones: users of the same organization, whatever the number is written like', async () => {
    const { users } = await data(cat, '/v1/client/contact/add_by_phones', {
      phones: ['+44 7700 900001', '(44) 7700-900002', '+447700900003', '+15550000000', 'not a number'],
    })
    // ann and ben match (with or without +); cat's own number and the unknown ones are skipped.
    expect(users.map((u: { userID: string }) => u.userID).sort()).toEqual([ann.userID, ben.userID].sort())
    expect(users.map((u: { userID: string }) => u.userID)).not.toContain(stranger.userID)
    expect((await contactIDs(cat)).sort()).toEqual([ann.userID, ben.userID].sort())
  })

  test("another organization's users do not exist; bad input is 40002", async () => {
    const foreign = await ann.call('/v1/client/contact/add', { userID: stranger.userID })
    expect([foreign.status, foreign.json.error.code]).toEqual([404, '40401'])
    for (const [path, body, field] of [
      ['/v1/client/contact/add', {}, 'userID'],
      ['/v1/client/contact/add', { userID: ann.userID }, 'userID'],
      ['/v1/client/contact/add_by_phones', { phones: [] }, 'phones'],
      ['/v1/client/contact/add_by_phones', { phones: 'x' }, 'phones'],
      ['/v1/client/contact/add_by_phones', { phones: Array(501).fill('+447700900001') }, 'phones'],
    ] as const) {
      const reply = await ann.call(path, body)
      expect([reply.status, reply.json.error.code, reply.json.error.field], path).toEqual([
        400,
        '40002',
        field,
      ])
    }
    const anonymous = await server().post('/v1/client/contact/list', {})
    expect(anonymous.json.error.code).toBe('40101')
  })
})
