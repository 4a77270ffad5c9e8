import type { TestServer } from './app.js'
import { operator } from './fixtures.js'

export const AGENT_PASSWORD = 'correct horse'

/**
 * Creates an agent (or admin) account and signs it in over HTTP: its id, token, and a way to call
 * the agent API with it (`call('/case/take', {...})` posts to /api/agent/v1/case/take).
 */
export async function signInAgent(
  server: TestServer,
  organizationID: string,
  email: string,
  options: { role?: string; maxConcurrentCases?: number; topics?: number[] } = {},
) {
  const agent = await server.app.services.agents.create(operator, organizationID, {
    email,
    fullName: email,
    role: options.role ?? 'agent',
    password: AGENT_PASSWORD,
    ...(options.maxConcurrentCases ? { maxConcurrentCases: options.maxConcurrentCases } : {}),
    ...(options.topics ? { topics: options.topics } : {}),
  })
  const login = await server.post('/api/agent/v1/auth/login', { email, password: AGENT_PASSWORD })
  const token = login.json.data.token as string
  const call = (path: string, body: unknown = {}) =>
    server.post(`/api/agent/v1${path}`, body, { authorization: `Bearer ${token}` })
  return { id: agent.agentAccountID, token, call }
}
