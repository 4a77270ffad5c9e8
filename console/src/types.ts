// The shapes of the agent and admin API (see /docs), as the console reads them.

export type CaseStatus = 'bot' | 'queued' | 'assigned' | 'closed'
export type AgentStatus = 'online' | 'away' | 'offline'
export type Role = 'admin' | 'agent'

export interface Case {
  caseID: string
  userID: string
  topicID: number
  status: CaseStatus
  chatbotID: string
  agentAccountID: string
  roomID: string
  firstMessage: string
  created: number
  updated: number
  closedTime: number | null
  closedBy: 'user' | 'agent' | 'chatbot' | 'system' | ''
  isClosed: boolean
}

export interface Message {
  messageID: string
  localID: string
  roomID: string
  type: number
  body: string
  data: Record<string, unknown>
  user: { userID: string; fullname: string; userRole: { code: string } }
  created: number
  isDeleted: boolean
}

export interface Agent {
  agentAccountID: string
  email: string
  fullName: string
  role: Role
  topics: number[]
  maxConcurrentCases: number
  status: AgentStatus
  /** False while deactivated: cannot sign in, gets no cases. */
  active: boolean
  created: number
  updated: number
}

export interface Topic {
  topicID: number
  name: string
  isDefault?: boolean
}

export interface Team {
  topics: Topic[]
  agents: Pick<Agent, 'agentAccountID' | 'fullName' | 'status' | 'topics' | 'active'>[]
}

export interface Session {
  csrfToken: string
  expiresAt: number
  agentAccount: Agent
}

export interface CaseDetail {
  case: Case
  handoverSummary: string
  messages: Message[]
}

export interface Chatbot {
  chatbotID: string
  name: string
  url: string
  active: boolean
  created: number
  updated: number
}

export interface ChatbotDetails extends Chatbot {
  secretKey: string
  webhookURL: string
}

export interface ServerKey {
  serverKeyID: string
  created: number
  revoked: boolean
  revokedTime: number | null
}

export interface CreatedServerKey {
  serverKeyID: string
  serverKeySecret: string
  serverKey: string
}

export interface AuditEntry {
  auditID: string
  /** '' when the change was made at the CLI. */
  agentAccountID: string
  /** Who made it: `agent:<agentAccountID>` or `cli:<OS user>`. */
  actor: string
  action: string
  detail: Record<string, unknown>
  created: number
}

/** A `/connect` frame. */
export type LiveEvent =
  | { eventName: 'case/update'; data: Case }
  | { eventName: 'chat/sendMessage' | 'chat/updateMessage'; data: Message }
  | { eventName: 'session/revoked'; data: { sessionID: string } }
