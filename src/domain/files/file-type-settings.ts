import type { Database } from '../../storage/database.js'
import { type Actor, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { Repositories } from '../repositories.js'
import { DEFAULT_FILE_TYPES } from './file-types.js'

/** An organization's choice of the media types its people may upload. */
export interface FileTypeSetting {
  /** The types taken now. */
  fileTypes: string[]
  /** True while the organization takes Parley's default list. */
  isDefault: boolean
}

/**
 * Which media types an organization takes (as sniffed from the bytes): Parley's default list
 * unless its admins chose their own; every change in the audit log.
 */
export class FileTypeSettings {
  constructor(
    private readonly deps: {
      database: Database
      audit: AuditLog
      repositories: Pick<Repositories, 'files'>
    },
  ) {}

  async get(actor: Actor, organizationID: string): Promise<FileTypeSetting> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    const chosen = await this.deps.repositories.files.fileTypesOf(this.deps.database.db, organizationID)
    return chosen
      ? { fileTypes: JSON.parse(chosen) as string[], isDefault: false }
      : { fileTypes: [...DEFAULT_FILE_TYPES], isDefault: true }
  }

  /** Sets the list (duplicates dropped, lower case); null goes back to Parley's default. */
  async set(actor: Actor, organizationID: string, fileTypes: string[] | null): Promise<FileTypeSetting> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    const list = fileTypes && [...new Set(fileTypes.map((type) => type.toLowerCase()))]
    await this.deps.database.transaction(async (trx) => {
      await this.deps.repositories.files.setFileTypes(trx, organizationID, list && JSON.stringify(list))
      await this.deps.audit.record(
        actor,
        organizationID,
        'organization.set_file_types',
        { fileTypes: list },
        trx,
      )
    })
    return this.get(actor, organizationID)
  }
}
