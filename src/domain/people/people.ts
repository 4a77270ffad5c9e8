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
}

export function createPeople(
  deps: PeopleDependencies & { rooms: RoomsService; happenings: Dispatcher },
): People {
  return { contacts: new Contacts(deps), blocks: new Blocks(deps), roomStates: new RoomStates(deps) }
}
