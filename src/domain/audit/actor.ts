import { AppError } from '../../errors/app-error.js'

/**
 * Who makes a change: a signed-in agent, or the operator at the admin CLI. Services take it,
 * enforce with it (an admin reaches their own organization only; the CLI runs on the server's
 * own configuration and reaches every organization) and write it to the audit log, so a change is
 * audited whatever made it.
 */
export type Actor =
  | { kind: 'agent'; agentAccountID: string; organizationID: string; role: 'admin' | 'agent' }
  | { kind: 'cli'; user: string }
  /** The customer's backend, by the server key that signed its request (server API). */
  | { kind: 'server'; serverKeyID: string; organizationID: string }

export const agentActor = (agent: {
  agentAccountID: string
  organizationID: string
  role: 'admin' | 'agent'
}): Actor => ({
  kind: 'agent',
  agentAccountID: agent.agentAccountID,
  organizationID: agent.organizationID,
  role: agent.role,
})

/** How the audit log names an actor: `agent:<agentAccountID>`, `cli:<OS user>` or `server_key:<serverKeyID>`. */
export function actorName(actor: Actor): string {
  if (actor.kind === 'agent') return `agent:${actor.agentAccountID}`
  return actor.kind === 'cli' ? `cli:${actor.user}` : `server_key:${actor.serverKeyID}`
}

/** The actor may see and change settings at all: an admin, or the CLI. */
export function requireAdmin(actor: Actor): void {
  // A server key reaches its organization's users and cases, never its settings.
  if ((actor.kind === 'agent' && actor.role !== 'admin') || actor.kind === 'server')
    throw new AppError('forbidden', 'admins only')
}

/**
 * The actor may see and change this organization's settings: one of its admins, or the CLI. For
 * an admin, another organization's things do not exist: `what` names the thing in the 404.
 */
export function requireAdminOf(actor: Actor, organizationID: string, what: string): void {
  requireAdmin(actor)
  if (actor.kind !== 'cli' && actor.organizationID !== organizationID)
    throw new AppError('notFound', `${what} not found`)
}

/**
 * The thing `find` reads, if the actor may change it (`what` names it in the 404). The role is
 * checked before anything is read, so an agent who is no admin learns nothing of what exists.
 */
export async function findForAdmin<T>(
  actor: Actor,
  what: string,
  find: () => Promise<T | undefined>,
  organizationOf: (thing: T) => string,
): Promise<T> {
  requireAdmin(actor)
  const thing = await find()
  if (!thing) throw new AppError('notFound', `${what} not found`)
  requireAdminOf(actor, organizationOf(thing), what)
  return thing
}
