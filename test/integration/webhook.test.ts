import { sql } from 'kysely'
import { beforeAll, describe, expect, test } from 'vitest'
import type { ChatbotDetails } from '../../src/domain/chatbots/chatbots.service.js'
import type { Message } from '../../src/domain/messages/message.js'
import { useServer } from '../support/app.js'
import { openCase, roomMessages, webhook } from '../support/cases.js'
import { createOrganization, recordEvents, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

describeEachDatabase('chatbot webhook', (dialect) => {
  const server = useServer(dialect)
  let bot: ChatbotDetails
  let idleBot: ChatbotDetails // created second: inactive
  let otherBot: ChatbotDetails // another organization's
  let visitor: TestClient
  let call: ReturnType<typeof webhook>

  beforeAll(async () => {
    const org = await createOrganization(server())
    const other = await createOrganization(server(), 'Other')
    const { chatbots } = server().app.services
    bot = await chatbots.create(operator, org.organizationID, {
      name: 'Helper',
      url: 'http://127.0.0.1:9/bot',
    })
    idleBot = await chatbots.create(operator, org.organizationID, {
      name: 'Spare',
      url: 'http://127.0.0.1:9/spare',
    })
    otherBot = await chatbots.create(operator, other.organizationID, {
      name: 'Theirs',
      url: 'http://127.0.0.1:9/theirs',
    })
    visitor = await org.signIn('visitor')
    call = webhook(server(), bot)
  })

  const key = () => ({ secretKey: bot.secretKey })
  const expectText = async (
    reply: Promise<{ status: number; text: string; headers: Headers }>,
    status: number,
    text: string,
  ) => {
    const { status: actual, text: body, headers } = await reply
    expect({ status: actual, body }).toEqual({ status, body: text })
    expect(headers.get('content-type')).toMatch(/^text\/plain/)
  }
  // One open case per visitor: the previous one is closed (by the visitor) first.
  let openCaseID: string | undefined
  const freshCase = async () => {
    if (openCaseID) await visitor.call('/api/visitor/v1/client/case/close', { id: openCaseID })
    const opened = await openCase(visitor)
    openCaseID = opened.caseID
    return opened
  }

  test('answers 200 "ok" in plain text, also to a body sent as text/plain', async () => {
    const { caseID, roomID } = await freshCase()
    const event = {
      caseID,
      eventType: 'messages',
      messages: [{ type: 'text', text: { body: 'Hello, how can I help?' } }],
    }
    await expectText(call(event, { ...key(), contentType: 'text/plain' }), 200, 'ok')
    const stored = await roomMessages(server(), roomID)
    expect(stored.at(-1)).toMatchObject({
      sender_id: `chatbot:${bot.chatbotID}`,
      type: 1001,
      body: 'Hello, how can I help?',
    })
  })

  test('every 401 cause reads "secret key is invalid"', async () => {
    const { caseID } = await freshCase()
    const event = { caseID, eventType: 'close_case' }
    await expectText(call(event), 401, 'secret key is invalid')
    await expectText(call(event, { secretKey: '' }), 401, 'secret key is invalid')
    await expectText(call(event, { secretKey: `${bot.secretKey}x` }), 401, 'secret key is invalid')
    await expectText(call(event, { secretKey: otherBot.secretKey }), 401, 'secret key is invalid')
    await expectText(
      webhook(server(), { ...bot, organizationID: otherBot.organizationID })(event, key()),
      401,
      'secret key is invalid',
    )
    await expectText(
      webhook(server(), { ...bot, chatbotID: '12345' })(event, key()),
      401,
      'secret key is invalid',
    )
    await expectText(
      webhook(server(), idleBot)(event, { secretKey: idleBot.secretKey }),
      401,
      'secret key is invalid',
    )
  })

  test('parameters: each reason word for word', async () => {
    const { caseID } = await freshCase()
    const m = (message: unknown) => ({ caseID, eventType: 'messages', messages: [message] })
    const cases: [unknown, string][] = [
      ['not json', 'invalid request body'],
      ['[1,2]', 'invalid request body'],
      [{ eventType: 'messages' }, 'case id is required'],
      [{ caseID: '', eventType: 'messages' }, 'case id is required'],
      [{ caseID }, 'event type is required'],
      [{ caseID, eventType: 'dance' }, 'event type is invalid'],
      [{ caseID, eventType: 'messages' }, 'messages is required'],
      [{ caseID, eventType: 'messages', messages: [] }, 'messages is required'],
      [m({ text: { body: 'x' } }), 'message type is required'],
      [m({ type: 'sticker' }), 'message type is invalid'],
      [m({ type: 'text', text: {} }), 'text body is required'],
      [m({ type: 'text', text: { body: 'x'.repeat(20_001) } }), 'text body is too long'],
      [m({ type: 'image', image: { caption: 'no url' } }), 'url is required'],
      [m({ type: 'document', document: {} }), 'url is required'],
      [{ caseID, eventType: 'handover_case', handoverCase: { topicID: 99999 } }, 'topic is invalid'],
      [{ caseID, eventType: 'handover_case', handoverCase: { topicID: 'three' } }, 'topic is invalid'],
    ]
    for (const [body, reason] of cases) await expectText(call(body, key()), 400, reason)
    const huge = JSON.stringify({ caseID, eventType: 'messages', padding: 'x'.repeat(1024 * 1024) })
    await expectText(call(huge, key()), 413, 'request body is too large')
  })

  test('which error wins: the key, then the body, then the case', async () => {
    await expectText(call('not json', { secretKey: 'wrong' }), 401, 'secret key is invalid')
    await expectText(call({ caseID: 'NOSUCHCASE' }, key()), 400, 'event type is required')
    await expectText(call({ caseID: 'NOSUCHCASE', eventType: 'close_case' }, key()), 404, 'case not found')
  })

  test("another organization's or chatbot's case is 404", async () => {
    const theirs = await (await createOrganization(server(), 'Elsewhere')).signIn('someone')
    const foreign = await openCase(theirs)
    await expectText(call({ caseID: foreign.caseID, eventType: 'close_case' }, key()), 404, 'case not found')
  })

  test("the family's payload examples are stored as the chat API's message types", async () => {
    const { caseID, roomID } = await freshCase()
    const event = {
      caseID,
      eventType: 'messages',
      messages: [
        { type: 'text', text: { body: 'Here is our catalogue' }, customData: '{"intent":"catalogue"}' },
        { type: 'image', image: { url: 'https://cdn.example.com/a.png', caption: 'A picture' } },
        { type: 'video', image: { url: 'https://cdn.example.com/a.mp4', caption: 'A video' } },
        {
          type: 'document',
          document: { url: 'https://cdn.example.com/a.pdf', filename: 'a.pdf', caption: 'A file' },
        },
        { type: 'document', document: { url: 'https://cdn.example.com/docs/price%20list.pdf' } },
      ],
    }
    await expectText(call(event, key()), 200, 'ok')
    const stored = (await roomMessages(server(), roomID)).slice(-5)
    expect(stored.map(({ type, body, data }) => ({ type, body, data: JSON.parse(data) }))).toEqual([
      { type: 1001, body: 'Here is our catalogue', data: { customData: '{"intent":"catalogue"}' } },
      { type: 1002, body: 'A picture', data: { url: 'https://cdn.example.com/a.png' } },
      { type: 1003, body: 'A video', data: { url: 'https://cdn.example.com/a.mp4' } },
      { type: 1004, body: 'A file', data: { url: 'https://cdn.example.com/a.pdf', fileName: 'a.pdf' } },
      // No filename: the URL's last segment.
      {
        type: 1004,
        body: '',
        data: { url: 'https://cdn.example.com/docs/price%20list.pdf', fileName: 'price list.pdf' },
      },
    ])

    await expectText(
      call({ caseID, eventType: 'handover_case', handoverCase: { topicID: 0, agentEmail: '' } }, key()),
      200,
      'ok',
    )
    await expectText(
      call({ caseID, eventType: 'close_case', closeCase: { sendClosingMessage: false } }, key()),
      200,
      'ok',
    )
    const status = (await visitor.call('/api/visitor/v1/client/case/get_by_id', { id: caseID })).json.data
      .case
    expect(status).toMatchObject({ status: 'closed', closedBy: 'chatbot', isClosed: true })
  })

  test('a retried messages event adds nothing to the room and is announced again; the same localID in another case is new', async () => {
    const first = await freshCase()
    const event = (caseID: string) => ({
      caseID,
      eventType: 'messages',
      messages: [
        { type: 'text', text: { body: 'one' }, localID: 'bot-1' },
        { type: 'text', text: { body: 'two' }, localID: 'bot-2' },
      ],
    })
    /** The room's messages from the chatbot with the event's localIDs, as the visitor reads them. */
    const botMessages = async (roomID: string) =>
      (await roomHistory(visitor, roomID))
        .filter((m) => ['bot-1', 'bot-2'].includes(m.localID))
        .map((m) => ({ localID: m.localID, body: m.body, messageID: m.messageID }))
    await expectText(call(event(first.caseID), key()), 200, 'ok')
    const stored = await botMessages(first.roomID)
    expect(stored.map((m) => [m.localID, m.body])).toEqual([
      ['bot-1', 'one'],
      ['bot-2', 'two'],
    ])
    const before = (await roomHistory(visitor, first.roomID)).map((m) => m.messageID)

    // The retry stores nothing, and announces the stored messages again to the visitor.
    const events = recordEvents(server())
    await expectText(call(event(first.caseID), key()), 200, 'ok')
    events.stop()
    expect((await roomHistory(visitor, first.roomID)).map((m) => m.messageID)).toEqual(before)
    expect(await botMessages(first.roomID)).toEqual(stored)
    const announced = events.named('chat/sendMessage')
    expect(announced.map((e) => [(e.event.data as Message).messageID, e.userIDs])).toEqual(
      stored.map((m) => [m.messageID, [visitor.userID]]),
    )

    const second = await freshCase()
    await expectText(call(event(second.caseID), key()), 200, 'ok')
    const inSecond = await botMessages(second.roomID)
    expect(inSecond.map((m) => [m.localID, m.body])).toEqual([
      ['bot-1', 'one'],
      ['bot-2', 'two'],
    ])
    expect(inSecond.map((m) => m.messageID)).not.toContain(stored[0]?.messageID)
  })

  test('409s: messages on a handed-over case, anything but close on a closed case', async () => {
    const { caseID, roomID } = await freshCase()
    const say = { caseID, eventType: 'messages', messages: [{ type: 'text', text: { body: 'late' } }] }
    await expectText(call({ caseID, eventType: 'handover_case' }, key()), 200, 'ok')
    await expectText(call(say, key()), 409, 'case is not handled by the chatbot')

    // Repeating the handover changes nothing.
    const count = (await roomMessages(server(), roomID)).length
    await expectText(
      call({ caseID, eventType: 'handover_case', handoverCase: { topicID: '1' } }, key()),
      200,
      'ok',
    )
    expect(await roomMessages(server(), roomID)).toHaveLength(count)

    await expectText(call({ caseID, eventType: 'close_case' }, key()), 200, 'ok')
    await expectText(call(say, key()), 409, 'case is closed')
    await expectText(call({ caseID, eventType: 'handover_case' }, key()), 409, 'case is closed')
    // Closing a closed case is fine and changes nothing.
    await expectText(call({ caseID, eventType: 'close_case' }, key()), 200, 'ok')
    expect(await roomMessages(server(), roomID)).toHaveLength(count + 1)
  })

  describe('a database failure', () => {
    test('gives 500 "internal server error" and saves nothing of the event', async () => {
      const { caseID, roomID } = await freshCase()
      const { db } = server().testDatabase.database
      // The second message of the event makes the database fail mid-transaction.
      if (dialect === 'sqlite') {
        await sql`create trigger explode before insert on messages when new.body = 'explode'
          begin select raise(abort, 'boom'); end`.execute(db)
      } else {
        await sql`create function explode() returns trigger language plpgsql as $$
          begin if new.body = 'explode' then raise exception 'boom'; end if; return new; end $$`.execute(db)
        await sql`create trigger explode before insert on messages for each row execute function explode()`.execute(
          db,
        )
      }
      try {
        const before = await roomMessages(server(), roomID)
        const event = {
          caseID,
          eventType: 'messages',
          messages: [
            { type: 'text', text: { body: 'fine' } },
            { type: 'text', text: { body: 'explode' } },
          ],
        }
        await expectText(call(event, key()), 500, 'internal server error')
        expect(await roomMessages(server(), roomID)).toEqual(before)
      } finally {
        await sql`drop trigger explode ${sql.raw(dialect === 'postgres' ? 'on messages' : '')}`.execute(db)
      }
    })
  })
})
