import { randomBytes } from 'node:crypto'
import { expect, test } from 'vitest'
import { type TestServer, useServer } from '../support/app.js'
import { bearer, createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { upload } from '../support/uploads.js'

// Issue 40, item 3: one visitor kept 12 × 4 MiB never-sent files, 150 uploads took 1.3 s, and the
// sweep removed at most 500 unsent files an hour. Uploads now have quotas of unsent files per
// uploader and per organization (count and bytes), a rate per uploader, and a sweep that runs
// until nothing is due (docs/reference/quotas.md).

const CHAT_UPLOAD = '/v1/chat/file/upload'
const KiB = 1024
/** A PDF (a type every organization takes by default) of about `size` bytes. */
const pdf = (size = 32) => Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(Math.max(size - 9, 1))])
const uploadAs = (server: TestServer, client: TestClient, bytes = pdf()) =>
  upload(server, CHAT_UPLOAD, bytes, { fileName: 'a.pdf', headers: bearer(client.accessToken) })
const codeOf = (reply: { status: number; json: { error: { code: string } } }) => [
  reply.status,
  reply.json.error.code,
]
const sendFile = (from: TestClient, to: TestClient, fileID: string) =>
  from.call('/v1/chat/message/send', {
    recipientUserID: to.userID,
    localID: fileID,
    type: 1004,
    data: { fileID },
  })

describeEachDatabase('upload quotas', (dialect) => {
  const server = useServer(dialect, {
    UPLOAD_USER_UNSENT_FILES: '3',
    UPLOAD_USER_UNSENT_MB: '1',
    UPLOAD_ORG_UNSENT_FILES: '5',
  })

  test('an uploader keeps at most 3 unsent files; sending one makes room; the refusal is 409/40902', async () => {
    const org = await createOrganization(server())
    const [alice, bob] = [await org.signIn('alice'), await org.signIn('bob')]
    const files = []
    for (let i = 0; i < 3; i++) files.push((await uploadAs(server(), alice)).json.data.file)
    const refused = await uploadAs(server(), alice)
    expect(codeOf(refused)).toEqual([409, '40902'])
    expect(refused.json.error.field).toBe('file')
    expect(refused.json.error.message).toMatch(
      /^Upload quota reached: you have 3 files uploaded and not sent/,
    )
    expect((await sendFile(alice, bob, files[0].fileID)).status).toBe(200)
    expect((await uploadAs(server(), alice)).status).toBe(200)
    // Bob's own quota is untouched by Alice's.
    expect((await uploadAs(server(), bob)).status).toBe(200)
  })

  test('two uploads racing for the last unsent slot: one is stored, the other refused', async () => {
    const org = await createOrganization(server())
    const carol = await org.signIn('carol')
    for (let i = 0; i < 2; i++) expect((await uploadAs(server(), carol)).status).toBe(200)
    const raced = await Promise.all([uploadAs(server(), carol), uploadAs(server(), carol)])
    expect(raced.map((reply) => reply.status).sort()).toEqual([200, 409])
    const { files } = await unsentOf(server(), org.organizationID)
    expect(files).toBe(3)
  })

  test("an uploader's unsent bytes: at most 1 MiB", async () => {
    const org = await createOrganization(server())
    const dave = await org.signIn('dave')
    expect((await uploadAs(server(), dave, pdf(600 * KiB))).status).toBe(200)
    const refused = await uploadAs(server(), dave, pdf(600 * KiB))
    expect(codeOf(refused)).toEqual([409, '40902'])
    expect(refused.json.error.message).toContain('would take more than 1 MiB')
    expect((await uploadAs(server(), dave, pdf(300 * KiB))).status).toBe(200)
    expect(await unsentOf(server(), org.organizationID)).toEqual({ files: 2, bytes: 900 * KiB })
  })

  test("the organization's unsent files: at most 5, whoever uploads them; parallel uploads of many users", async () => {
    const org = await createOrganization(server())
    const users = await Promise.all(['u1', 'u2', 'u3', 'u4'].map(org.signIn))
    // 8 uploads at once (2 each) for 5 places: 5 stored, 3 refused.
    const replies = await Promise.all(
      users.flatMap((user) => [uploadAs(server(), user), uploadAs(server(), user)]),
    )
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(5)
    for (const refused of replies.filter((reply) => reply.status !== 200)) {
      expect(codeOf(refused)).toEqual([409, '40902'])
      expect(refused.json.error.message).toContain('the organization keeps 5 files uploaded and not sent')
    }
    expect((await unsentOf(server(), org.organizationID)).files).toBe(5)
    // Another organization's quota is its own.
    const other = await createOrganization(server(), 'Other')
    expect((await uploadAs(server(), await other.signIn('o1'))).status).toBe(200)
  })

  test('/metrics reports the limits, the refusals and the fullest organization, naming none', async () => {
    const metrics = await (await fetch(`${server().url}/metrics`)).text()
    const value = (line: string) =>
      Number(
        metrics
          .split('\n')
          .find((l) => l.startsWith(line))
          ?.split(' ')[1],
      )
    expect(value('parley_upload_limit{limit="user_files"}')).toBe(3)
    expect(value('parley_upload_limit{limit="user_bytes"}')).toBe(1024 * KiB)
    expect(value('parley_upload_limit{limit="organization_files"}')).toBe(5)
    expect(value('parley_upload_limit{limit="per_minute"}')).toBe(30)
    expect(value('parley_upload_refusals_total{limit="user_files"}')).toBeGreaterThanOrEqual(2)
    expect(value('parley_upload_refusals_total{limit="organization_files"}')).toBeGreaterThanOrEqual(3)
    expect(value('parley_unsent_fullest_organization{measure="files"}')).toBe(5)
    const uploadLines = metrics.split('\n').filter((l) => /^parley_(upload|unsent)/.test(l))
    expect(uploadLines.join('\n')).not.toContain('organization="')
  })
})

describeEachDatabase('upload rate', (dialect) => {
  const server = useServer(dialect, { UPLOAD_RATE_PER_MINUTE: '3' })

  test('an uploader starts at most 3 uploads a minute: then 429/42900 with Retry-After', async () => {
    const org = await createOrganization(server())
    const [erin, frank] = [await org.signIn('erin'), await org.signIn('frank')]
    const replies = await Promise.all([1, 2, 3, 4].map(() => uploadAs(server(), erin)))
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 429])
    const refused = replies.find((reply) => reply.status === 429)
    expect(refused?.json.error).toEqual({
      code: '42900',
      message: 'too many uploads: at most 3 a minute',
      field: '',
    })
    const retryAfter = Number(refused?.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect((await uploadAs(server(), frank)).status).toBe(200)
    server().clock.advance(retryAfter * 1000)
    expect((await uploadAs(server(), erin)).status).toBe(200)
  })
})

describeEachDatabase('sweep of unsent files', (dialect) => {
  const server = useServer(dialect)

  test('one sweep removes every file due, in batches, however many; two sweeps at once share them out', async () => {
    const org = await createOrganization(server())
    const { database } = server().testDatabase
    const old = server().clock.now() - 25 * 3_600_000
    const rows = (count: number, created: number, prefix: string) =>
      Array.from({ length: count }, (_, i) => ({
        id: `${prefix}${i}`,
        organization_id: org.organizationID,
        uploader_id: 'swept',
        file_name: 'a.pdf',
        media_type: 'application/pdf',
        size: 10,
        created,
      }))
    await database.db
      .insertInto('files')
      .values(rows(1200, old, '9000000'))
      .execute()
    await database.db
      .insertInto('files')
      .values(rows(5, server().clock.now(), '9100000'))
      .execute()
    const files = server().app.services.files
    const removed = await Promise.all([files.sweepUnsent(100), files.sweepUnsent(100)])
    expect(removed[0] + removed[1]).toBe(1200)
    expect(await files.sweepUnsent()).toBe(0)
    const left = await database.db
      .selectFrom('files')
      .select('id')
      .where('uploader_id', '=', 'swept')
      .execute()
    // The files of the last day stay.
    expect(left).toHaveLength(5)
  })
})

async function unsentOf(server: TestServer, organizationID: string) {
  const row = await server.testDatabase.database.db
    .selectFrom('files')
    .select((eb) => [eb.fn.countAll<string>().as('files'), eb.fn.sum<string>('size').as('bytes')])
    .where('organization_id', '=', organizationID)
    .where('message_id', 'is', null)
    .executeTakeFirstOrThrow()
  return { files: Number(row.files), bytes: Number(row.bytes) }
}
