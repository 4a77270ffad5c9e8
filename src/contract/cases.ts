import { z } from 'zod'
import type { Case } from '../domain/cases/case.js'
import { params, requiredChoice, requiredID, requiredText } from '../http/params.js'
import { shapeOf } from './shape.js'

// The support case (DESIGN §7) as the visitor and agent APIs both show it, and the requests both
// take: one case, and a message written in it.

export const caseShape = shapeOf<Case>()(
  z.object({
    caseID: z.string(),
    organizationID: z.string(),
    userID: z.string(),
    topicID: z.number().int(),
    status: z.enum(['bot', 'queued', 'assigned', 'closed']),
    chatbotID: z.string(),
    agentAccountID: z.string(),
    roomID: z.string(),
    firstMessage: z.string(),
    created: z.number().int(),
    updated: z.number().int(),
    closedTime: z.number().int().nullable(),
    closedBy: z.enum(['user', 'agent', 'chatbot', 'system', '']),
    isClosed: z.boolean(),
  }),
)

export const caseRequest = params({ id: requiredID('The caseID.') })

const part = (keys: string[]) => (name: string) => {
  const error = `Param '${name}' must be an object of strings`
  return z
    .object(
      Object.fromEntries(keys.map((key) => [key, z.string({ error }).max(20_000, { error }).optional()])),
      { error },
    )
    .optional()
}

/** A message in a case: the visitor's, or an agent's reply (see caseContent). */
export const caseMessage = params({
  id: requiredID('The caseID.'),
  localID: requiredText({ max: 128 }),
  messageType: requiredChoice(['text', 'image', 'video', 'file']),
  text: part(['body']),
  image: part(['url', 'caption']),
  video: part(['url', 'caption']),
  file: part(['url', 'fileName', 'caption']),
})
