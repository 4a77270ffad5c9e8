import type { Command } from './command.js'

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean)
const id = (o: Record<string, string>) => o.id as string

/** `chatbot NAME --id ID --events on|off`: whether the chatbot also hears of `what`. */
function chatbotSwitch(
  name: string,
  field: 'caseEvents' | 'messageEdits',
  what: string,
): Record<string, Command> {
  return {
    [`chatbot ${name}`]: {
      usage: `chatbot ${name} --id CHATBOT_ID --events on|off`,
      summary: `Whether the chatbot also gets ${what}.`,
      options: ['id', 'events'],
      run: async ({ services, actor }, o) =>
        services.chatbots.update(actor, id(o), { [field]: o.events === 'on' }),
    },
  }
}

/** The CLI's event endpoints (docs/reference/events.md), alongside the chatbot commands. */
export const eventCommands: Record<string, Command> = {
  'event-endpoint create': {
    usage: 'event-endpoint create --org ORGANIZATION_ID --url URL --events TYPE,TYPE…',
    summary: 'Registers an event endpoint for these event types; its details hold the signing secret.',
    options: ['org', 'url', 'events'],
    run: async ({ services, actor }, o) =>
      services.eventEndpoints.create(actor, o.org as string, {
        url: o.url as string,
        eventTypes: list(o.events),
      }),
  },
  'event-endpoint list': {
    usage: 'event-endpoint list --org ORGANIZATION_ID',
    summary: "Lists an organization's event endpoints (active: false when paused or disabled, and why).",
    options: ['org'],
    readOnly: true,
    run: async ({ services, actor }, o) => ({
      endpoints: await services.eventEndpoints.list(actor, o.org as string),
    }),
  },
  'event-endpoint show': {
    usage: 'event-endpoint show --id ENDPOINT_ID',
    summary: "Shows an event endpoint's details with its signing secret (audited).",
    options: ['id'],
    run: async ({ services, actor }, o) => services.eventEndpoints.get(actor, id(o)),
  },
  'event-endpoint update': {
    usage: 'event-endpoint update --id ENDPOINT_ID --url URL --events TYPE,TYPE…',
    summary: "Changes an event endpoint's URL and event types.",
    options: ['id', 'url', 'events'],
    run: async ({ services, actor }, o) =>
      services.eventEndpoints.update(actor, id(o), { url: o.url, eventTypes: list(o.events) }),
  },
  'event-endpoint enable': {
    usage: 'event-endpoint enable --id ENDPOINT_ID',
    summary: 'Enables an event endpoint again (also one Parley disabled for failing too long).',
    options: ['id'],
    run: async ({ services, actor }, o) => services.eventEndpoints.update(actor, id(o), { active: true }),
  },
  'event-endpoint pause': {
    usage: 'event-endpoint pause --id ENDPOINT_ID',
    summary: 'Pauses an event endpoint: no events are recorded for it until it is enabled.',
    options: ['id'],
    run: async ({ services, actor }, o) => services.eventEndpoints.update(actor, id(o), { active: false }),
  },
  'event-endpoint delete': {
    usage: 'event-endpoint delete --id ENDPOINT_ID',
    summary: 'Deletes an event endpoint and its deliveries.',
    options: ['id'],
    run: async ({ services, actor }, o) => {
      await services.eventEndpoints.delete(actor, id(o))
      return { endpointID: o.id, deleted: true }
    },
  },
  'event-endpoint deliveries': {
    usage: 'event-endpoint deliveries --id ENDPOINT_ID',
    summary: "Lists an event endpoint's recent deliveries, newest first (status, attempts, last error).",
    options: ['id'],
    readOnly: true,
    run: async ({ services, actor }, o) => ({
      deliveries: await services.eventEndpoints.deliveries(actor, id(o)),
    }),
  },
  'event-endpoint redeliver': {
    usage: 'event-endpoint redeliver --id ENDPOINT_ID --delivery DELIVERY_ID',
    summary: 'Sends a delivery again, with the same webhook-id.',
    options: ['id', 'delivery'],
    run: async ({ services, actor }, o) => {
      await services.eventEndpoints.redeliver(actor, id(o), o.delivery as string)
      return { deliveryID: o.delivery, pending: true }
    },
  },
  ...chatbotSwitch('case-events', 'caseEvents', 'case.closed / case.handed_over when someone else did it'),
  ...chatbotSwitch(
    'message-edits',
    'messageEdits',
    'message.updated when a message of a case it has is edited',
  ),
}
