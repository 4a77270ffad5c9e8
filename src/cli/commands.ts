import type { Command, Context } from './command.js'
import { eventCommands } from './event-commands.js'

export type { Command, Context } from './command.js'

const PASSWORD_ON_STDIN = 'The password is read from standard input (one line).'

/** A kind of key pair (server keys, app keys): its commands' word, its JSON name, its service. */
interface KeyPairKind {
  command: 'server-key' | 'app-key'
  /** `serverKey`: the output says `serverKeys` and `serverKeyID`. */
  field: 'serverKey' | 'appKey'
  keys: (services: Context['services']) => Context['services']['serverKeys' | 'appKeys']
  summaries: { create: string; list: string; revoke: string }
}

/** Create, list and revoke: the key pairs are managed alike, each under its own names. */
const keyPairCommands = ({ command, field, keys, summaries }: KeyPairKind): Record<string, Command> => ({
  [`${command} create`]: {
    usage: `${command} create --org ORGANIZATION_ID`,
    summary: summaries.create,
    options: ['org'],
    run: async ({ services, actor }, o) => keys(services).create(actor, o.org as string),
  },
  [`${command} list`]: {
    usage: `${command} list --org ORGANIZATION_ID`,
    summary: summaries.list,
    options: ['org'],
    readOnly: true,
    run: async ({ services, actor }, o) => ({
      [`${field}s`]: await keys(services).list(actor, o.org as string),
    }),
  },
  [`${command} revoke`]: {
    usage: `${command} revoke --id ${command.toUpperCase().replace('-', '_')}_ID`,
    summary: summaries.revoke,
    options: ['id'],
    run: async ({ services, actor }, o) => {
      await keys(services).revoke(actor, o.id as string)
      return { [`${field}ID`]: o.id, revoked: true }
    },
  },
})

/** The commands on one chatbot (--id): each calls the ChatbotsService method named beside it. */
const chatbotCommands: Record<string, Command> = Object.fromEntries(
  (
    [
      ['show', 'showSecret', "Shows a chatbot's details with its secret key and webhook URL (audited)."],
      ['rotate-secret', 'rotateSecret', "Replaces a chatbot's secret key."],
      [
        'activate',
        'activate',
        "Makes this the organization's active chatbot (the one active before hands its cases over).",
      ],
      ['deactivate', 'deactivate', 'Deactivates a chatbot; its open cases go to agents.'],
    ] as const
  ).map(([verb, method, summary]): [string, Command] => [
    `chatbot ${verb}`,
    {
      usage: `chatbot ${verb} --id CHATBOT_ID`,
      summary,
      options: ['id'],
      run: async ({ services, actor }, o) => services.chatbots[method](actor, o.id as string),
    },
  ]),
)

export const commands: Record<string, Command> = {
  'org create': {
    usage: 'org create --name NAME',
    summary: 'Creates an organization (with its default topic "General").',
    options: ['name'],
    run: async ({ services, actor }, o) => services.organizations.create(actor, o.name as string),
  },
  'org list': {
    usage: 'org list',
    summary: 'Lists every organization: {"organizations": [{organizationID, name, created, updated}]}.',
    options: [],
    readOnly: true,
    run: async ({ services }) => ({ organizations: await services.organizations.list() }),
  },
  ...keyPairCommands({
    command: 'server-key',
    field: 'serverKey',
    keys: (services) => services.serverKeys,
    summaries: {
      create: 'Creates a server key; its secret and the ready Server-Key header are shown only here.',
      list: "Lists an organization's server keys (never their secrets).",
      revoke: 'Revokes a server key; running servers refuse it within a second.',
    },
  }),
  ...keyPairCommands({
    command: 'app-key',
    field: 'appKey',
    keys: (services) => services.appKeys,
    summaries: {
      create:
        "Creates an app key for a client app: appKeyID and appKeySecret are the SDK's appID and appSecret, " +
        'appKey the ready App-Key header; the secret is shown only here.',
      list: "Lists an organization's app keys, revoked ones too (never their secrets).",
      revoke: 'Revokes an app key; running servers refuse it within a second.',
    },
  }),
  'topic create': {
    usage: 'topic create --org ORGANIZATION_ID --name NAME',
    summary: 'Creates a topic (a queue of cases with its agents).',
    options: ['org', 'name'],
    run: async ({ services, actor }, o) => services.topics.create(actor, o.org as string, o.name as string),
  },
  'chatbot create': {
    usage: 'chatbot create --org ORGANIZATION_ID --name NAME --url URL',
    summary: 'Registers a chatbot; it is active unless another one already is.',
    options: ['org', 'name', 'url'],
    run: async ({ services, actor }, o) =>
      services.chatbots.create(actor, o.org as string, { name: o.name as string, url: o.url as string }),
  },
  ...chatbotCommands,
  'agent create': {
    usage: 'agent create --org ORGANIZATION_ID --email E --name N --role admin|agent',
    summary: `Creates an agent or admin account. ${PASSWORD_ON_STDIN}`,
    options: ['org', 'email', 'name', 'role'],
    stdin: true,
    run: async ({ services, actor }, o, password) =>
      services.agents.create(actor, o.org as string, {
        email: o.email as string,
        fullName: o.name as string,
        role: o.role as string,
        password,
      }),
  },
  'agent list': {
    usage: 'agent list --org ORGANIZATION_ID',
    summary: "Lists an organization's agents and admins, deactivated ones too (active: false).",
    options: ['org'],
    readOnly: true,
    run: async ({ services }, o) => {
      await services.organizations.get(o.org as string)
      return { agents: await services.agents.list(o.org as string) }
    },
  },
  'agent deactivate': {
    usage: 'agent deactivate --id AGENT_ACCOUNT_ID',
    summary:
      'Deactivates an agent: they cannot sign in, their sessions end at once and their open cases go ' +
      "back to the queue. An organization's last active admin cannot be deactivated.",
    options: ['id'],
    run: async ({ services, actor }, o) => services.agents.deactivate(actor, o.id as string),
  },
  'agent reactivate': {
    usage: 'agent reactivate --id AGENT_ACCOUNT_ID',
    summary: 'Lets a deactivated agent sign in again.',
    options: ['id'],
    run: async ({ services, actor }, o) => services.agents.reactivate(actor, o.id as string),
  },
  'agent set-password': {
    usage: 'agent set-password --id AGENT_ACCOUNT_ID',
    summary: `Sets an agent's (temporary) password; their sessions end. ${PASSWORD_ON_STDIN}`,
    options: ['id'],
    stdin: true,
    run: async ({ services, actor }, o, password) => {
      await services.agents.setPassword(actor, o.id as string, password)
      return { agentAccountID: o.id, passwordSet: true }
    },
  },
  ...eventCommands,
}
