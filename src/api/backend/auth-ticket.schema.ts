import type { z } from 'zod'
import { optionalText, params, requiredChoice, requiredText } from '../../http/params.js'
import { isEmail, isHTTPURL, isIPAddress, isPhone } from '../../lib/formats.js'

/** The optional profile fields of the ticket request (docs/reference/server-api.md; the server API's user/update takes them too). */
export const OPTIONAL_PROFILE_FIELDS = {
  email: optionalText({ max: 255, valid: isEmail, description: "(107) The user's e-mail address." }),
  phone: optionalText({ max: 255, valid: isPhone, description: '(108) Phone number, country code first.' }),
  username: optionalText({ max: 255, description: "(109) The user's username." }),
  photoThumbnailURL: optionalText({
    max: 2048,
    valid: isHTTPURL,
    description: '(110) Thumbnail picture URL.',
  }),
  photoFullsizeURL: optionalText({
    max: 2048,
    valid: isHTTPURL,
    description: '(111) Full-size picture URL.',
  }),
  userRoleCode: optionalText({ max: 255, description: "(112) The user's role code." }),
}

/** Field codes of the profile (docs/reference/server-api.md). */
export const PROFILE_CODES = {
  fullName: '106',
  email: '107',
  phone: '108',
  username: '109',
  photoThumbnailURL: '110',
  photoFullsizeURL: '111',
  userRoleCode: '112',
}

/** Spec §2.1, in the order of the field codes (the first failing field is reported). */
export const authTicketRequest = params(
  {
    userIPAddress: requiredText({
      max: 255,
      valid: isIPAddress,
      description: "(101) The user's IPv4 or IPv6 address.",
    }),
    userAgent: requiredText({ max: 1024, description: '(102) The user agent.' }),
    userPlatform: requiredChoice(['android', 'ios', 'web'], "(103) The user's platform."),
    userDeviceID: requiredText({ max: 255, description: "(104) The user's device ID." }),
    xcUserID: requiredText({
      max: 50,
      description: "(105) The user's ID in the customer's system; at most 50 characters.",
    }),
    fullName: requiredText({ max: 255, description: "(106) The user's full name." }),
    ...OPTIONAL_PROFILE_FIELDS,
  },
  {
    codes: {
      userIPAddress: '101',
      userAgent: '102',
      userPlatform: '103',
      userDeviceID: '104',
      xcUserID: '105',
      ...PROFILE_CODES,
    },
    examples: [
      {
        userIPAddress: '203.0.113.7',
        userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)',
        userPlatform: 'ios',
        userDeviceID: 'C0FFEE-42',
        xcUserID: 'customer-user-1001',
        fullName: 'Ada Lovelace',
        email: 'ada@example.com',
        phone: '+447700900123',
      },
    ],
  },
)

export type AuthTicketRequest = z.output<typeof authTicketRequest>
