/** The profile a customer's backend sends for its user (spec §2.1), as saved. */
export interface UserProfile {
  xcUserID: string
  fullName: string
  // Optional fields: undefined = leave as saved; '' = clear.
  email?: string | undefined
  phone?: string | undefined
  username?: string | undefined
  photoThumbnailURL?: string | undefined
  photoFullsizeURL?: string | undefined
  userRoleCode?: string | undefined
}
