import { useRef } from 'react'
import { call, upload } from '../api'
import { ErrorNote } from '../components/ui'
import { useAction } from '../hooks'
import { texts } from '../texts'
import type { Message } from '../types'

/**
 * *Attach*: the agent chooses a file; it is uploaded (Parley checks its type and size), then sent
 * in the case as an image, a video or a file, as its bytes say.
 */
export function AttachButton({ caseID, onSent }: { caseID: string; onSent: (message: Message) => void }) {
  const input = useRef<HTMLInputElement>(null)
  const { pending, error, run } = useAction()
  const attach = async (chosen: File) => {
    const answer = await run(async () => {
      const file = await upload(chosen)
      const media = { fileID: file.fileID }
      // One message per upload: a retried send of it is the same message.
      const message = { id: caseID, localID: `file-${file.fileID}` }
      if (file.mediaType.startsWith('image/'))
        return call('case/send_message', { ...message, messageType: 'image', image: media })
      if (file.mediaType.startsWith('video/'))
        return call('case/send_message', { ...message, messageType: 'video', video: media })
      return call('case/send_message', { ...message, messageType: 'file', file: media })
    })
    if (answer) onSent(answer.message)
  }
  return (
    <>
      <input
        ref={input}
        type="file"
        hidden
        data-testid="attach-input"
        onChange={(event) => {
          const chosen = event.target.files?.[0]
          event.target.value = '' // the same file can be chosen again
          if (chosen) void attach(chosen)
        }}
      />
      <button type="button" className="btn" disabled={pending} onClick={() => input.current?.click()}>
        {pending ? texts.attach.uploading : texts.attach.attach}
      </button>
      <ErrorNote error={error} />
    </>
  )
}
