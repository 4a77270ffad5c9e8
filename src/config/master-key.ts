import { randomBytes } from 'node:crypto'
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { privateDataDir } from '../storage/data-dir.js'
import { type Config, ConfigError } from './config.js'

/**
 * The master key: from PARLEY_MASTER_KEY, or (embedded database only) from DATA_DIR/master.key,
 * generated there on first start. The new key is written to a private file and then hard-linked
 * into place, so two processes starting at once (server and CLI) agree on one complete key.
 */
export function loadMasterKey(config: Config): Buffer {
  if (config.masterKey) return config.masterKey
  privateDataDir(config.dataDir)
  const path = join(config.dataDir, 'master.key')
  const draft = `${path}.${process.pid}.tmp`
  writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 })
  try {
    linkSync(draft, path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    rmSync(draft, { force: true })
  }
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64')
  if (key.length !== 32)
    throw new ConfigError(`Invalid configuration: ${path} must hold 32 bytes, base64-encoded`)
  return key
}
