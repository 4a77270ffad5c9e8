import { PageHeader } from '../components/ui'

export function ServerKeysPage() {
  return <PageHeader title="ServerKeys" />
}
