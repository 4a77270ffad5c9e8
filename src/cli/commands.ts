import type { Services } from '../services.js'

/** A CLI command: its usage line, the options it needs, and what it does with them. */
export interface Command {
  usage: string
  options: string[]
  /** Reads one line from standard input (a password), so it never shows in `ps` or the shell history. */
  stdin?: boolean
  run(services: Services, options: Record<string, string>, input: string): Promise<object>
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
  'topic create': {
    usage: 'topic create --org ORGANIZATION_ID --name NAME',
    options: ['org', 'name'],
    run: async (s, o) => {
      await s.organizations.get(o.org as string)
      return s.topics.create(o.org as string, o.name as string)
    },
  },
  'chatbot create': {
    usage: 'chatbot create --org ORGANIZATION_ID --name NAME --url URL',
    options: ['org', 'name', 'url'],
    run: async (s, o) => s.chatbots.create(o.org as string, { name: o.name as string, url: o.url as string }),
  },
  'chatbot show': {
    usage: 'chatbot show --id CHATBOT_ID',
    options: ['id'],
    run: async (s, o) => s.chatbots.show(o.id as string),
  },
  'chatbot rotate-secret': {
    usage: 'chatbot rotate-secret --id CHATBOT_ID',
    options: ['id'],
    run: async (s, o) => s.chatbots.rotateSecret(o.id as string),
  },
  'chatbot activate': {
    usage: 'chatbot activate --id CHATBOT_ID',
    options: ['id'],
    run: async (s, o) => s.chatbots.activate(o.id as string),
  },
  'chatbot deactivate': {
    usage: 'chatbot deactivate --id CHATBOT_ID',
    options: ['id'],
    run: async (s, o) => s.chatbots.deactivate(o.id as string),
  },
  'agent create': {
    usage: 'agent create --org ORGANIZATION_ID --email E --name N --role admin|agent   (password on stdin)',
    options: ['org', 'email', 'name', 'role'],
    stdin: true,
    run: async (s, o, password) =>
      s.agents.create(o.org as string, {
        email: o.email as string,
        fullName: o.name as string,
        role: o.role as string,
        password,
      }),
  },
}
