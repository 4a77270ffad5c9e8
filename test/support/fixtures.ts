import type { Actor } from '../../src/domain/audit/actor.js'
import type { Services } from '../../src/services.js'

/** Who the tests' own setup acts as (as the CLI would: it reaches every organization). */
export const operator: Actor = { kind: 'cli', user: 'test' }

/** A request body that passes every rule of docs/reference/server-api.md; `overrides` replace or add fields. */
export function validTicketRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    userIPAddress: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
    userPlatform: 'web',
    userDeviceID: 'device-1',
    xcUserID: 'user-1',
    fullName: 'Ada Lovelace',
    ...overrides,
  }
}

export async function createOrganizationWithKey(services: Services, name = 'Acme') {
  const organization = await services.organizations.create(operator, name)
  return services.serverKeys.create(operator, organization.organizationID)
}
