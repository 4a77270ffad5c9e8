import type { Migration } from 'kysely'
import * as foundation from './0001_foundation.js'
import * as chat from './0002_chat.js'
import * as support from './0003_support.js'
import * as agents from './0004_agents.js'
import * as agentCSRFHash from './0005_agent_csrf_hash.js'
import * as agentDeactivation from './0006_agent_deactivation.js'
import * as appKeys from './0007_app_keys.js'

// Append-only: a migration that has landed is never edited; a change is a new file here.
export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_chat': chat,
  '0003_support': support,
  '0004_agents': agents,
  '0005_agent_csrf_hash': agentCSRFHash,
  '0006_agent_deactivation': agentDeactivation,
  '0007_app_keys': appKeys,
}
