import { BIO_MAX } from '../../domain/users/profiles.js'
import { optionalInteger, optionalText, params, requiredChoice } from '../../http/params.js'
import { OPTIONAL_PROFILE_FIELDS, PROFILE_CODES } from './auth-ticket.schema.js'

// The server API's user requests. A user is named by userID, or by xcUserID when userID is absent;
// the fields the auth ticket request has keep its codes (105 xcUserID, 106-112 the profile).

const userRef = {
  userID: optionalText({ max: 64, description: 'The user (Parley userID); or give xcUserID.' }),
  xcUserID: optionalText({
    max: 50,
    description: "(105) The user's ID in your system, when userID is absent.",
  }),
}
const REF_CODES = { xcUserID: '105' }
const REF_EXAMPLE = { xcUserID: 'customer-user-1001' }

export const userRequest = params(userRef, { codes: REF_CODES, examples: [REF_EXAMPLE] })

export const userListRequest = params(
  {
    afterUserID: optionalText({ max: 64, description: 'Paging: the last userID of the previous page.' }),
    limit: optionalInteger({ min: 1, max: 100, fallback: 50, description: 'Page size, 1-100 (default 50).' }),
  },
  { examples: [{ limit: 50 }] },
)

export const userUpdateRequest = params(
  {
    ...userRef,
    fullName: optionalText({ max: 255, description: "(106) The user's full name (not blank)." }),
    ...OPTIONAL_PROFILE_FIELDS,
    bio: optionalText({ max: BIO_MAX, description: "The user's bio (as they set it in the client API)." }),
  },
  {
    codes: {
      ...REF_CODES,
      ...PROFILE_CODES,
    },
    examples: [{ ...REF_EXAMPLE, fullName: 'Ada King', email: 'ada@example.com' }],
  },
)

export const userDeleteRequest = params(
  {
    ...userRef,
    messages: (name: string) =>
      requiredChoice(
        ['erase', 'anonymise'],
        'erase (default): content blanked; anonymise: kept under "Deleted user".',
      )(name)
        .nullish()
        .transform((value) => value ?? 'erase'),
  },
  { codes: REF_CODES, examples: [{ ...REF_EXAMPLE, messages: 'erase' }] },
)
