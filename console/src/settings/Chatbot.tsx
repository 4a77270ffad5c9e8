import { PageHeader } from '../components/ui'

export function ChatbotPage({ chatbotID }: { chatbotID: string }) {
  return <PageHeader title={chatbotID} />
}
