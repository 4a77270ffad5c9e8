import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { deletionShape, userAccountShape, userExportShape } from '../../contract/server.js'
import type { Actor } from '../../domain/audit/actor.js'
import { success } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { serverRoute } from './server-route.js'
import { userDeleteRequest, userListRequest, userRequest, userUpdateRequest } from './users.schema.js'

const user = z.object({ user: userAccountShape })

/** The actor of an audited change: the server key that signed the request. */
export const serverActor = (request: FastifyRequest): Actor => ({ kind: 'server', ...request.serverKey })

/** Users of the organization (server API): read, list, update, end access, erase, export. */
export function userRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { userAccounts, userExports } = app.services
  const org = (r: FastifyRequest) => r.serverKey.organizationID

  app.post(
    '/v1/server/user/get',
    serverRoute('A user, by userID or xcUserID (deleted users do not exist)', userRequest, user),
    async (r) => success({ user: await userAccounts.get(org(r), r.body) }),
  )
  app.post(
    '/v1/server/user/list',
    serverRoute(
      'Your users, by userID (deleted ones left out), a page at a time',
      userListRequest,
      z.object({ users: z.array(userAccountShape), hasMore: z.boolean() }),
    ),
    async (r) =>
      success(
        await userAccounts.list(org(r), { afterUserID: r.body.afterUserID ?? '', limit: r.body.limit }),
      ),
  )
  app.post(
    '/v1/server/user/update',
    serverRoute(
      'Change fields of a user profile (absent ones stay; "" clears an optional one)',
      userUpdateRequest,
      user,
    ),
    async (r) => {
      const { userID, xcUserID, ...changes } = r.body
      return success({ user: await userAccounts.update(org(r), { userID, xcUserID }, changes) })
    },
  )
  app.post(
    '/v1/server/user/deactivate',
    serverRoute(
      "End a user's access: sessions revoked and sockets closed at once, tickets refused (40301) until reactivated",
      userRequest,
      user,
    ),
    async (r) => success({ user: await userAccounts.deactivate(serverActor(r), org(r), r.body) }),
  )
  app.post(
    '/v1/server/user/reactivate',
    serverRoute('Let a deactivated user have tickets again', userRequest, user),
    async (r) => success({ user: await userAccounts.reactivate(serverActor(r), org(r), r.body) }),
  )
  app.post(
    '/v1/server/user/revoke_sessions',
    serverRoute(
      'Sign a user out everywhere (tokens refused, sockets closed); they may sign in again',
      userRequest,
      z.object({ sessionsRevoked: z.number().int() }),
    ),
    async (r) =>
      success({ sessionsRevoked: await userAccounts.revokeSessions(serverActor(r), org(r), r.body) }),
  )
  app.post(
    '/v1/server/user/delete',
    serverRoute(
      'Erase a user, irreversibly (audited): profile blanked, sessions ended, open cases closed, messages erased or anonymised',
      userDeleteRequest,
      z.object({ deletion: deletionShape }),
    ),
    async (r) => {
      const { messages, ...ref } = r.body
      return success({ deletion: await userAccounts.delete(serverActor(r), org(r), ref, messages) })
    },
  )
  app.post(
    '/v1/server/user/export',
    serverRoute(
      "A user's data as one JSON document: profile, rooms, messages, cases (for data-access requests)",
      userRequest,
      z.object({ export: userExportShape }),
    ),
    async (r) => success({ export: await userExports.export(org(r), r.body) }),
  )
}
