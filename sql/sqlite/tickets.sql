-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- tickets.consumeTicket
-- parameters: now, hash, now
update "tickets"
set "used_at" = ?
where "hash" = ? and "used_at" is null and "expires_at" > ?
returning *

-- tickets.insertTicketSqlite
-- parameters: hash, organization_id, ip_address, user_agent, platform, device_id, created, expires_at, userID
insert into "tickets" ("hash", "organization_id", "ip_address", "user_agent", "platform", "device_id", "created", "expires_at", "user_id")
values (?, ?, ?, ?, ?, ?, ?, ?, ?)

-- tickets.upsertUserSqlite
-- parameters: id, organizationID, xcUserID, fullName, now, now
insert into "users" ("id", "organization_id", "xc_user_id", "full_name", "created", "updated")
values (?, ?, ?, ?, ?, ?)
on conflict ("organization_id", "xc_user_id") do update
set "full_name" = "excluded"."full_name", "updated" = "excluded"."updated"
returning "id"

-- tickets.upsertUserSqlite (email,phone,username,photo_thumbnail_url,photo_fullsize_url,user_role_code)
-- parameters: id, organizationID, xcUserID, fullName, now, now, email, phone, username, photoThumbnailURL, photoFullsizeURL, userRoleCode
insert into "users" ("id", "organization_id", "xc_user_id", "full_name", "created", "updated", "email", "phone", "username", "photo_thumbnail_url", "photo_fullsize_url", "user_role_code")
values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
on conflict ("organization_id", "xc_user_id") do update
set "full_name" = "excluded"."full_name", "updated" = "excluded"."updated", "email" = "excluded"."email", "phone" = "excluded"."phone", "username" = "excluded"."username", "photo_thumbnail_url" = "excluded"."photo_thumbnail_url", "photo_fullsize_url" = "excluded"."photo_fullsize_url", "user_role_code" = "excluded"."user_role_code"
returning "id"
