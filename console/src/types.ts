import type { AgentFrame } from './frames.generated'
import type { paths } from './openapi.generated'

// The agent API's shapes, read off the types generated from the OpenAPI document (`npm run
// api-types`): a server change the console does not follow fails its type-check.

type AgentAPI = {
  [P in keyof paths as P extends `/api/agent/v1/${infer Path}` ? Path : never]: paths[P]
}
/** A path of the agent API, as `call` takes it: `case/take` for /api/agent/v1/case/take. */
export type AgentPath = keyof AgentAPI
/** The body of a call to `P`. */
export type Request<P extends AgentPath> = AgentAPI[P] extends {
  post: { requestBody: { content: { 'application/json': infer Body } } }
}
  ? Body
  : never
/** The envelope's `data` in the answer of a call to `P`. */
export type Answer<P extends AgentPath> =
  AgentAPI[P]['post']['responses'][200]['content']['application/json']['data']

export type Case = Answer<'case/take'>['case']
/** A case as the lists give it: with its visitor and its last message. */
export type AgentCase = Answer<'case/get_list'>['cases'][number]
export type LastMessage = NonNullable<AgentCase['lastMessage']>
/** A row of the inbox: a case, with its visitor and last message once known (an action's answer has neither). */
export type CaseRow = Case & Partial<Pick<AgentCase, 'visitor' | 'lastMessage'>>
export type VisitorProfile = Answer<'visitor/get'>
export type CaseStatus = Case['status']
export type Message = Answer<'case/get_by_id'>['messages'][number]
/** An internal note on a case (agents only). */
export type Note = Answer<'case/get_by_id'>['notes'][number]
/** A note that mentions the signed-in agent. */
export type Mention = Answer<'mention/get_list'>['mentions'][number]
export type Session = Answer<'auth/get_session'>
export type Agent = Session['agentAccount']
export type AgentStatus = Agent['status']
export type Role = Agent['role']
export type Team = Answer<'agent/get_team'>
export type Chatbot = Answer<'admin/chatbot/list'>['chatbots'][number]
export type ChatbotDetails = Answer<'admin/chatbot/get'>
export type EventEndpoint = Answer<'admin/event_endpoint/list'>['endpoints'][number]
export type EventType = EventEndpoint['eventTypes'][number]
/** A canned reply, with its text filled in for a case when listed for one. */
export type CannedReply = Answer<'canned_reply/get_list'>['cannedReplies'][number]

/** A `/connect` frame an agent's socket receives (generated from the server's frame catalogue). */
export type LiveEvent = AgentFrame
