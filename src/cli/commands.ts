import type { Services } from '../services.js'

/** A CLI command: its usage line, the options it needs, and what it does with them. */
export interface Command {
  usage: string
  options: string[]
  run(services: Services, options: Record<string, string>): Promise<object>
}

export const commands: Record<string, Command> = {
  'org create': {
    usage: 'org create --name NAME',
    options: ['name'],
    run: async (s, o) => s.organizations.create(o.name as string),
  },
  'server-key create': {
    usage: 'server-key create --org ORGANIZATION_ID',
    options: ['org'],
    run: async (s, o) => s.serverKeys.create(o.org as string),
  },
  'server-key list': {
    usage: 'server-key list --org ORGANIZATION_ID',
    options: ['org'],
    run: async (s, o) => ({ serverKeys: await s.serverKeys.list(o.org as string) }),
  },
  'server-key revoke': {
    usage: 'server-key revoke --id SERVER_KEY_ID',
    options: ['id'],
    run: async (s, o) => {
      await s.serverKeys.revoke(o.id as string)
      return { serverKeyID: o.id, revoked: true }
    },
  },
}
