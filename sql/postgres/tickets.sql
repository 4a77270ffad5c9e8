-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- tickets.consumeTicket
-- parameters: now, hash, now
update "tickets"
set "used_at" = $1
where "hash" = $2 and "used_at" is null and "expires_at" > $3
returning *

-- tickets.upsertUserWithTicketPostgres
-- parameters: id, organizationID, xcUserID, fullName, now, now, hash, organization_id, ip_address, user_agent, platform, device_id, created, expires_at
with "u" as (
  insert into "users" ("id", "organization_id", "xc_user_id", "full_name", "created", "updated")
  values ($1, $2, $3, $4, $5, $6)
  on conflict ("organization_id", "xc_user_id") do update
  set "full_name" = "excluded"."full_name", "updated" = "excluded"."updated"
  returning "id"
)
insert into "tickets" ("hash", "organization_id", "ip_address", "user_agent", "platform", "device_id", "created", "expires_at", "user_id")
values ($7, $8, $9, $10, $11, $12, $13, $14, (select "u"."id" from "u"))
returning "user_id"

-- tickets.upsertUserWithTicketPostgres (email,phone,username,photo_thumbnail_url,photo_fullsize_url,user_role_code)
-- parameters: id, organizationID, xcUserID, fullName, now, now, email, phone, username, photoThumbnailURL, photoFullsizeURL, userRoleCode, hash, organization_id, ip_address, user_agent, platform, device_id, created, expires_at
with "u" as (
  insert into "users" ("id", "organization_id", "xc_user_id", "full_name", "created", "updated", "email", "phone", "username", "photo_thumbnail_url", "photo_fullsize_url", "user_role_code")
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
  on conflict ("organization_id", "xc_user_id") do update
  set "full_name" = "excluded"."full_name", "updated" = "excluded"."updated", "email" = "excluded"."email", "phone" = "excluded"."phone", "username" = "excluded"."username", "photo_thumbnail_url" = "excluded"."photo_thumbnail_url", "photo_fullsize_url" = "excluded"."photo_fullsize_url", "user_role_code" = "excluded"."user_role_code"
  returning "id"
)
insert into "tickets" ("hash", "organization_id", "ip_address", "user_agent", "platform", "device_id", "created", "expires_at", "user_id")
values ($13, $14, $15, $16, $17, $18, $19, $20, (select "u"."id" from "u"))
returning "user_id"
