import fc from 'fast-check'
import type { ChatbotDetails } from '../../src/domain/chatbots/chatbots.service.js'
import { send, startServer, stopServer, type TestServer } from './app.js'
import { openCase } from './cases.js'
import { createOrganization } from './clients.js'
import { dialects } from './databases.js'
import { operator, validTicketRequest } from './fixtures.js'

// Fuzzing the two spec endpoints (the auth ticket request and the chatbot webhook) with arbitrary
// strings and JSON shapes, on every available database at once: each generated request goes to a
// Parley on SQLite and to one on PostgreSQL, and their answers must match and never be a 5xx.

/** One running Parley with what the requests need: a Server-Key, a chatbot, an open case. */
interface Target {
  server: TestServer
  /** Closes the target's case and opens another, so later events find an open case again. */
  reopen(): Promise<void>
  serverKey: string
  chatbot: ChatbotDetails
  caseID: string
  /** Generated userIDs in order of first appearance: compared by position, not by value. */
  userIDs: string[]
}

/** Stands for the target's open case in generated webhook bodies. */
const CASE = '@case@'

// Characters that trouble storage (NUL, lone surrogates, U+FFFD), any code point, any UTF-16 unit.
const unit = fc.oneof(
  fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\ufffd', ' ', '%', '@'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
)
const text = fc.string({ unit, maxLength: 40 })
const huge = fc.constantFrom(50, 51, 64, 65, 255, 256, 1025, 2049, 5000, 70_000).map((n) => 'é'.repeat(n))
const json = fc.jsonValue({ maxDepth: 3, stringUnit: unit })
/** A field's value: usually a string (sometimes a valid one), sometimes any JSON. */
const value = (...valid: string[]) =>
  fc.oneof(
    { weight: 2, arbitrary: text },
    { weight: 2, arbitrary: valid.length ? fc.constantFrom(...valid) : text },
    { weight: 1, arbitrary: huge },
    { weight: 1, arbitrary: json },
  )
/** An object holding some of the given fields (and maybe an unknown one). */
const record = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record({ ...fields, unknownField: json }, { requiredKeys: [] })

const valid = validTicketRequest()
const ticketFields: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(
  [
    'userIPAddress',
    'userAgent',
    'userPlatform',
    'userDeviceID',
    'xcUserID',
    'fullName',
    'email',
    'phone',
    'username',
    'photoThumbnailURL',
    'photoFullsizeURL',
    'userRoleCode',
  ].map((name) => [name, value(...(typeof valid[name] === 'string' ? [valid[name] as string] : []))]),
)
/** `base` with one to three of `fields` replaced: gets past validation often enough to reach storage. */
const mutated = (base: Record<string, unknown>, fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .array(
      fc
        .constantFrom(...Object.keys(fields))
        .chain((name) => (fields[name] as fc.Arbitrary<unknown>).map((v) => [name, v])),
      { minLength: 1, maxLength: 3 },
    )
    .map((entries) => ({ ...base, ...Object.fromEntries(entries) }))
const ticketBody = fc.oneof(
  { weight: 3, arbitrary: mutated(valid, ticketFields) },
  { weight: 1, arbitrary: record(ticketFields) },
)

const media = record({
  url: value('https://example.com/a.png', 'https://example.com/a%'),
  caption: text,
  filename: text,
})
const message = record({
  type: value('text', 'image', 'video', 'document', 'location'),
  text: record({ body: value('hello') }),
  image: media,
  video: media,
  document: media,
  localID: fc.oneof(text, fc.integer()),
  customData: json,
})
const webhookFields = {
  caseID: value(CASE, '1'),
  eventType: value('messages', 'handover_case', 'close_case'),
  messages: fc.oneof(fc.array(message, { minLength: 1, maxLength: 3 }), json),
  handoverCase: record({
    topicID: fc.oneof(value('0', '1'), fc.integer()),
    agentEmail: value('agent@example.com'),
    chatbotHandoverSummary: text,
  }),
  closeCase: record({ sendClosingMessage: fc.oneof(fc.boolean(), json) }),
}
const webhookBody = fc.oneof(
  {
    weight: 3,
    arbitrary: mutated(
      { caseID: CASE, eventType: 'messages', messages: [{ type: 'text', text: { body: 'hello' } }] },
      webhookFields,
    ),
  },
  { weight: 1, arbitrary: record(webhookFields) },
)

/** A request body: mostly JSON of the endpoint's shape, sometimes any JSON or any text. */
const bodyOf = (shape: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 8, arbitrary: shape.map((body) => JSON.stringify(body)) },
    { weight: 1, arbitrary: json.map((body) => JSON.stringify(body)) },
    { weight: 1, arbitrary: text },
  )

export interface EndpointCounts {
  runs: number
  /** Answers with a 5xx status, on any database. */
  serverErrors: number
  /** Requests whose answers differed between the databases. */
  mismatches: number
  /** How many answers of each status the first database gave: shows how deep the requests got. */
  statuses: Record<number, number>
  /** A few failing requests with each database's answer, to reproduce them. */
  examples: { body: string; answers: string[] }[]
}

async function ticketAnswer(target: Target, body: string): Promise<[number, string]> {
  const reply = await send(`${target.server.url}/v1/server/auth_ticket/request`, {
    method: 'POST',
    headers: { 'server-key': target.serverKey, 'content-type': 'application/json' },
    body,
  })
  const data = reply.json?.data
  if (reply.status === 200 && data?.userID) {
    if (!target.userIDs.includes(data.userID)) target.userIDs.push(data.userID)
    data.userID = `user #${target.userIDs.indexOf(data.userID)}`
    data.ticket = '<ticket>'
  }
  return [reply.status, JSON.stringify(reply.json ?? reply.text)]
}

async function webhookAnswer(target: Target, body: string): Promise<[number, string]> {
  const { organizationID, chatbotID, secretKey } = target.chatbot
  const reply = await send(
    `${target.server.url}/api/visitor/v1/webhook/chatbot/custom/${organizationID}/${chatbotID}`,
    {
      method: 'POST',
      headers: { 'secret-key': secretKey, 'content-type': 'application/json' },
      body: body.replaceAll(CASE, target.caseID),
    },
  )
  return [reply.status, `${reply.headers.get('content-type')} ${reply.text}`]
}

async function startTarget(dialect: (typeof dialects)[number]): Promise<Target> {
  const server = await startServer(dialect)
  const org = await createOrganization(server)
  const chatbot = await server.app.services.chatbots.create(operator, org.organizationID, {
    name: 'Fuzz',
    url: 'http://127.0.0.1:9/bot',
  })
  const visitor = await org.signIn('visitor')
  const target: Target = {
    server,
    serverKey: org.serverKey,
    chatbot,
    caseID: '',
    userIDs: [],
    reopen: async () => {
      if (target.caseID) await visitor.call('/api/visitor/v1/client/case/close', { id: target.caseID })
      target.caseID = (await openCase(visitor)).caseID
    },
  }
  await target.reopen()
  return target
}

async function drive(
  targets: Target[],
  bodies: string[],
  answer: (target: Target, body: string) => Promise<[number, string]>,
): Promise<EndpointCounts> {
  const counts: EndpointCounts = { runs: 0, serverErrors: 0, mismatches: 0, statuses: {}, examples: [] }
  for (const body of bodies) {
    // A closed or handed-over case answers every later event alike: start over now and then.
    if (counts.runs % 20 === 19) for (const target of targets) await target.reopen()
    counts.runs++
    const answers: [number, string][] = []
    // One database after the other, so each sees the same sequence of requests.
    for (const target of targets) answers.push(await answer(target, body))
    const status = answers[0]?.[0] ?? 0
    counts.statuses[status] = (counts.statuses[status] ?? 0) + 1
    const serverError = answers.some(([status]) => status >= 500)
    const mismatch = answers.some(([, text]) => text !== answers[0]?.[1])
    if (serverError) counts.serverErrors++
    if (mismatch) counts.mismatches++
    if ((serverError || mismatch) && counts.examples.length < 5)
      counts.examples.push({
        body,
        answers: answers.map(([status, text]) => `${status} ${text.slice(0, 300)}`),
      })
  }
  return counts
}

/** Runs `runs` generated requests per endpoint on every available database. */
export async function fuzzSpecEndpoints({ runs, seed }: { runs: number; seed: number }) {
  const targets = await Promise.all(dialects.map(startTarget))
  try {
    const sample = (arbitrary: fc.Arbitrary<string>) => fc.sample(arbitrary, { numRuns: runs, seed })
    return {
      dialects,
      seed,
      ticket: await drive(targets, sample(bodyOf(ticketBody)), ticketAnswer),
      webhook: await drive(targets, sample(bodyOf(webhookBody)), webhookAnswer),
    }
  } finally {
    await Promise.all(targets.map((target) => stopServer(target.server)))
  }
}
