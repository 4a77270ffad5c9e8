import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
// The chat API's fields and shapes, so that a message action takes and answers the same there and here.
import * as chat from '../../contract/chat.js'
import { MAX_PINS_PER_ROOM } from '../../domain/messages/pins.js'
import { success } from '../../http/envelope.js'
import { params, requiredID } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describe, PREFIX } from './describe.js'

const id = requiredID('The caseID.')
const messageID = requiredID('A message of the case.')
const editRequest = params({ id, messageID, body: chat.editedBody })
const reactionRequest = params({ id, messageID, emoji: chat.emoji })
const pinRequest = params({ id, messageIDs: chat.messageIDList })
const pinnedRequest = params({ id, ...chat.numberedPage })
const one = z.object({ message: chat.messageShape })
const some = z.object({ messages: z.array(chat.messageShape) })

/** Conflicts of a change: the case closed (as for replies), or the client API's (window, limits). */
const withConflicts = <B, R extends z.ZodType>(summary: string, body: B, data: R) => {
  const { schema } = describe(summary, body, data)
  return {
    schema: {
      ...schema,
      response: { ...schema.response, ...chat.messageChangeConflict('the case is closed, or ') },
    },
  }
}

/**
 * Message actions of agents in their cases (docs/reference/agent-api.md#message-actions): the
 * client API's edits, reactions and pins, with its rules, for the agent the case is assigned to.
 */
export async function agentCaseMessagesAPI(signedIn: FastifyInstance): Promise<void> {
  const routes = signedIn.withTypeProvider<ZodTypeProvider>()
  const { caseMessages } = routes.services
  routes.post(
    `${PREFIX}/case/message/edit`,
    withConflicts('Edit a message you sent in your case (within the edit window)', editRequest, one),
    async (r) => success({ message: await caseMessages.edit(r.agent, r.body.id, r.body) }),
  )
  routes.post(
    `${PREFIX}/case/message/reaction/toggle`,
    withConflicts('Add your reaction to a message of your case, or take it away', reactionRequest, one),
    async (r) => success({ message: await caseMessages.toggleReaction(r.agent, r.body.id, r.body) }),
  )
  routes.post(
    `${PREFIX}/case/message/pin`,
    withConflicts(`Pin messages of your case (at most ${MAX_PINS_PER_ROOM} a room)`, pinRequest, some),
    async (r) => success({ messages: await caseMessages.pin(r.agent, r.body.id, r.body.messageIDs) }),
  )
  routes.post(
    `${PREFIX}/case/message/unpin`,
    withConflicts('Unpin messages of your case', pinRequest, some),
    async (r) => success({ messages: await caseMessages.unpin(r.agent, r.body.id, r.body.messageIDs) }),
  )
  routes.post(
    `${PREFIX}/case/message/get_pinned_list`,
    {
      ...describe("A case's pinned messages, latest pinned first", pinnedRequest, chat.messageListPage),
      config: { csrf: false },
    },
    async (r) => success(await caseMessages.pinned(r.agent, r.body.id, r.body)),
  )
}
