import { sql } from 'kysely'
import { expect, test } from 'vitest'
import { everyMemberAdmin } from '../../src/storage/migrations/0039_group_roles.js'
import { keepFirstUsernames } from '../../src/storage/migrations/0040_profiles.js'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'

// What migrations 0039 and 0040 do to what was stored before them: group rooms' members all become
// admins (each could do everything before), and a username held twice in an organization stays
// with the user made first.
describeEachDatabase('the upgrade to group roles and profiles', (dialect) => {
  const server = useServer(dialect)

  test('every member of a group room made before roles is its admin; personal rooms have none', async () => {
    const org = await createOrganization(server(), 'Before roles')
    const [a, b] = [await org.signIn('a'), await org.signIn('b')]
    const created = await a.call('/v1/client/room/create', { name: 'Old', type: 2, userIDs: [b.userID] })
    const { roomID } = created.json.data.room
    await a.call('/v1/chat/message/send', { recipientUserID: b.userID, localID: 'p', type: 1001, body: 'x' })
    const db = server().app.database.db
    await db.updateTable('room_participants').set({ is_admin: 0 }).execute()
    await everyMemberAdmin(db as never)
    const rows = await db.selectFrom('room_participants').select(['room_id', 'is_admin']).execute()
    expect(rows.filter((row) => row.room_id === roomID).map((row) => row.is_admin)).toEqual([1, 1])
    expect(rows.filter((row) => row.room_id !== roomID).map((row) => row.is_admin)).toEqual([0, 0])
  })

  test('a username held twice in an organization stays with its first user; another organization keeps its own', async () => {
    const db = server().app.database.db
    const [one, two] = [await createOrganization(server(), 'One'), await createOrganization(server(), 'Two')]
    const first = await one.signIn('first')
    server().clock.advance(1)
    const second = await one.signIn('second')
    const elsewhere = await two.signIn('elsewhere')
    // As before usernames were unique: the same one three times.
    await sql`drop index users_username`.execute(db)
    await db
      .updateTable('users')
      .set({ username: 'sam' })
      .where('id', 'in', [first.userID, second.userID, elsewhere.userID])
      .execute()
    await keepFirstUsernames(db as never)
    const rows = await db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('username', '=', 'sam')
      .execute()
    expect(rows.map((row) => row.id).sort()).toEqual([first.userID, elsewhere.userID].sort())
  })
})
