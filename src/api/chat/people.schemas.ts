import { PHONES_PER_REQUEST } from '../../domain/people/contact.js'
import { ROOMS_PER_CHANGE } from '../../domain/people/room-state.js'
import { optionalInteger, params, requiredID, requiredIDList } from '../../http/params.js'

// The requests of contacts, blocking and room states (docs/reference/client-api.md); their names are
// those the TapTalk.io SDKs send.

export const userRequest = params({ userID: requiredID('The other user.') })
export const phonesRequest = params({
  phones: requiredIDList({
    min: 1,
    max: PHONES_PER_REQUEST,
    description: `Phone numbers, country code first (spaces, dashes, brackets and a leading + are ignored); at most ${PHONES_PER_REQUEST}.`,
  }),
})
const roomIDs = requiredIDList({
  min: 1,
  max: ROOMS_PER_CHANGE,
  description: `Your rooms, 1-${ROOMS_PER_CHANGE}.`,
})
export const roomsRequest = params({ roomIDs })
export const muteRequest = params({
  roomIDs,
  expiredAt: optionalInteger({
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 0,
    description: 'When the mute ends (epoch ms, in the future); absent or 0: until unmuted.',
  }),
})
export const emptyRequest = params({})
