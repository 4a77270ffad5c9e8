import Fastify from 'fastify'

// The baseline: a bare Fastify route answering a JSON POST with an envelope of the same shape,
// no logging, no storage. Every HTTP figure is reported as a ratio to this one.
const app = Fastify({ logger: false })
app.get('/healthz', async () => ({}))
app.post('/bare', async () => ({
  status: 200,
  error: { code: '', message: '', field: '' },
  data: { userID: '382473062971936768', ticket: 'MDs2eOFQiVNGtz72pxoY3WnylxGPnQd78n4frt52sio' },
}))
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
