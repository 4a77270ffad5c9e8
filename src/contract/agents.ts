import { z } from 'zod'
import type { Agent } from '../domain/agents/agent.js'
import { shapeOf } from './shape.js'

/** An agent or admin account (docs/reference/agent-api.md), as the agent API shows it to agents and admins. */
export const agentShape = shapeOf<Agent>()(
  z.object({
    agentAccountID: z.string(),
    organizationID: z.string(),
    email: z.string(),
    fullName: z.string(),
    role: z.enum(['admin', 'agent']),
    topics: z.array(z.number().int()),
    maxConcurrentCases: z.number().int(),
    status: z.enum(['online', 'away', 'offline']),
    active: z.boolean().describe('False while deactivated: cannot sign in, gets no cases.'),
    notifications: z
      .object({ sound: z.boolean(), desktop: z.boolean() })
      .describe(
        "How the console tells the agent of a case that comes to them, or of a visitor's message while its tab is hidden",
      ),
    created: z.number().int(),
    updated: z.number().int(),
  }),
)
