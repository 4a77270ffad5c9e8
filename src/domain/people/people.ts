import type { Kysely } from 'kysely'
import type { Schema } from '../../storage/schema.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import { Blocks } from './blocks.js'
import { Contacts, type PeopleDependencies } from './contacts.js'
import { RoomStates } from './room-states.js'

/** What each user keeps for themselves of other people and of rooms: contacts, blocks, room states. */
export interface People {
  contacts: Contacts
  blocks: Blocks
  roomStates: RoomStates
  /** Erasure (in its transaction): the user's contacts, blocks and room states, and their place in others'. */
  eraseIn(trx: Kysely<Schema>, userID: string): Promise<void>
}

export function createPeople(
  deps: PeopleDependencies & { rooms: RoomsService; happenings: Dispatcher },
): People {
  const { contacts, blocks, roomStates } = deps.repositories
  const blocking = new Blocks(deps)
  return {
    contacts: new Contacts(deps),
    blocks: blocking,
    roomStates: new RoomStates(deps),
    async eraseIn(trx, userID) {
      await contacts.eraseContactsOf(trx, userID)
      await blocks.eraseBlocksOf(trx, userID)
      await roomStates.eraseStatesOf(trx, userID)
      blocking.forget(userID)
    },
  }
}
