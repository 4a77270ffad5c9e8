import { parentPort, workerData } from 'node:worker_threads'
import { DestinationPolicy, parseAllowList } from '../../lib/destinations.js'
import { httpChatbotClient } from './attempt.js'
import { type Chain, sendChain } from './chain-sender.js'

// The delivery sender thread (see ThreadChainSender): sends each chain it is given over HTTP, one
// POST after another, and answers the attempts. Chains of different endpoints run side by side.

const destinations = new DestinationPolicy(parseAllowList((workerData as { allow: string }).allow))

parentPort?.on('message', async ({ job, chain }: { job: number; chain: Chain }) => {
  const attempts = await sendChain(chain, httpChatbotClient, destinations)
  parentPort?.postMessage({ job, attempts })
})
