import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { userShape } from '../../contract/chat.js'
import { shapeOf } from '../../contract/shape.js'
import { uploadRoute } from '../../contract/uploads.js'
import { BIO_MAX, type Photo } from '../../domain/users/profiles.js'
import { success } from '../../http/envelope.js'
import { optionalBoolean, optionalText, params, requiredID, requiredText } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describeChat as describe } from './describe.js'

// Profiles: usernames, bios and photos (docs/reference/client-api.md#profiles).

const photoShape = shapeOf<Photo>()(
  z.object({
    id: z.string(),
    url: z.string().describe('A signed link to the photo, good as long as the photo lasts.'),
    thumbnailURL: z.string().describe('A signed link to a WebP of at most 320×320.'),
    isMain: z.boolean().describe("The profile's photo (the user's imageURL)."),
    created: z.number().int(),
  }),
)
const user = z.object({ user: userShape })
const photoRequest = params({ id: requiredID('The photo.') })

export function profileRoutes(fastify: FastifyInstance): void {
  const chat = fastify.withTypeProvider<ZodTypeProvider>()
  const { profiles } = chat.services
  chat.post(
    '/v1/client/user/get_by_username',
    describe(
      'A user of your organization, by username',
      params({
        username: requiredText({ max: 255 }),
        ignoreCase: optionalBoolean('true: letters match whatever their case (the earliest such user).'),
      }),
      user,
    ),
    async (r) =>
      success({
        user: await profiles.byUsername(r.client.organizationID, r.body.username, r.body.ignoreCase === true),
      }),
  )
  chat.post(
    '/v1/client/user/update_bio',
    describe(
      'Set your bio',
      params({
        bio: optionalText({ max: BIO_MAX, description: `At most ${BIO_MAX} characters; '' clears it.` }),
      }),
      user,
    ),
    async (r) => success({ user: await profiles.updateBio(r.client, r.body.bio ?? '') }),
  )
  uploadRoute(chat, '/v1/client/user/photo/upload', {
    tags: ['chat'],
    uploader: (r) => ({ organizationID: r.client.organizationID, senderID: r.client.userID }),
    keep: {
      summary: 'Upload a photo of yours (an image, multipart/form-data `file`): it becomes your main photo',
      data: user,
      admit: (r) => profiles.admitPhoto(r.client),
      make: async (r, file) => ({ user: await profiles.addPhoto(r.client, file) }),
    },
  })
  chat.post(
    '/v1/client/user/photo/get_list',
    describe(
      "A user's photos, newest first",
      params({ userID: requiredID('A user of your organization (yourself included).') }),
      z.object({ photos: z.array(photoShape) }),
    ),
    async (r) => success({ photos: await profiles.photos(r.client.organizationID, r.body.userID) }),
  )
  chat.post(
    '/v1/client/user/photo/set_main',
    describe('Make one of your photos the main one (your imageURL)', photoRequest, user),
    async (r) => success({ user: await profiles.setMain(r.client, r.body.id) }),
  )
  chat.post(
    '/v1/client/user/photo/delete',
    describe('Delete one of your photos (the newest other one becomes main if it was)', photoRequest, user),
    async (r) => success({ user: await profiles.deletePhoto(r.client, r.body.id) }),
  )
}
