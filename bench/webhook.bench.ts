import { cli, type Figures, freshStorage, load, poster, signIn, startService } from './lib.js'

const CASES = 100

/** Chatbot `messages` events on SQLite, spread over CASES open cases. */
export async function benchWebhook(): Promise<Figures> {
  const storage = await freshStorage()
  const service = await startService(['dist/main.js'], storage.env)
  try {
    const { organizationID } = cli(['org', 'create', '--name', 'Bench'], storage.env)
    const { serverKey } = cli(['server-key', 'create', '--org', organizationID as string], storage.env)
    const chatbot = cli(
      [
        'chatbot',
        'create',
        '--org',
        organizationID as string,
        '--name',
        'Bot',
        '--url',
        'http://127.0.0.1:9/bot',
      ],
      storage.env,
    )
    const post = poster(service.url)
    const caseIDs: string[] = []
    for (let i = 0; i < CASES; i++) {
      const { auth } = await signIn(post, serverKey as string, `visitor-${i}`)
      const opened = await post('/api/visitor/v1/client/case/create', auth, { message: 'help' })
      caseIDs.push((opened.case as unknown as { caseID: string }).caseID)
    }
    let n = 0
    return await load('webhook messages (SQLite)', {
      url: `${service.url}/api/visitor/v1/webhook/chatbot/custom/${organizationID}/${chatbot.chatbotID}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'secret-key': chatbot.secretKey as string },
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({
              caseID: caseIDs[n++ % CASES],
              eventType: 'messages',
              messages: [{ type: 'text', text: { body: 'Thanks for waiting, here is your answer.' } }],
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
