import { PageHeader } from '../components/ui'

export function ChatbotsPage() {
  return <PageHeader title="Chatbots" />
}
