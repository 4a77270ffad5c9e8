import { OrganizationsService } from './domain/organizations/organizations.service.js'
import { ServerKeysService } from './domain/server-keys/server-keys.service.js'
import { TicketsService } from './domain/tickets/tickets.service.js'
import type { Clock } from './lib/clock.js'
import type { Database } from './storage/database.js'

/** The domain, wired once: what HTTP routes, WebSocket handlers and the CLI call. */
export interface Services {
  organizations: OrganizationsService
  serverKeys: ServerKeysService
  tickets: TicketsService
}

export interface Dependencies {
  database: Database
  clock: Clock
  masterKey: Buffer
}

export function createServices({ database, clock }: Dependencies): Services {
  const organizations = new OrganizationsService(database, clock)
  return {
    organizations,
    serverKeys: new ServerKeysService(database, clock, organizations),
    tickets: new TicketsService(database, clock),
  }
}
