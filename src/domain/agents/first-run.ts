import type { Kysely } from 'kysely'
import type { Schema } from '../../storage/schema.js'

/** What a server just started tells its operator: whether anyone can sign in to the console yet. */
export interface FirstRunState {
  hasAdmin: boolean
  /** The organizations' IDs, at most two: one names the organization the first admin goes to. */
  organizationIDs: string[]
}

export async function firstRunState(db: Kysely<Schema>): Promise<FirstRunState> {
  const admin = await db
    .selectFrom('agent_accounts')
    .select('id')
    .where('role', '=', 'admin')
    .where('deactivated_at', 'is', null)
    .limit(1)
    .executeTakeFirst()
  if (admin) return { hasAdmin: true, organizationIDs: [] }
  const organizations = await db
    .selectFrom('organizations')
    .select('id')
    .orderBy('created')
    .limit(2)
    .execute()
  return { hasAdmin: false, organizationIDs: organizations.map((o) => o.id) }
}

/**
 * The console's address and, while no admin exists, the command that creates the first one (in
 * the organization there is, or after `org create` when there is none or several).
 */
export function firstRunNotes(state: FirstRunState, publicURL: string): string[] {
  const notes = [`The console is at ${publicURL}/console/ (the API reference at ${publicURL}/docs).`]
  if (state.hasAdmin) return notes
  const [only, other] = state.organizationIDs
  const org = only && !other ? only : '<organizationID>'
  const createAdmin = `echo 'a long passphrase' | npm run --silent parley -- agent create --org ${org} --email you@example.com --name "Your Name" --role admin`
  if (org === only)
    return [
      ...notes,
      `No admin yet: create the first one (the password is read from stdin) with: ${createAdmin}`,
    ]
  const which = only
    ? 'npm run --silent parley -- org list'
    : 'npm run --silent parley -- org create --name "Your company"'
  return [
    ...notes,
    `No admin yet: get an organization's ID with \`${which}\`, then create the first admin with: ${createAdmin}`,
  ]
}
