-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- messages.page (before)
-- parameters: roomID, bound, limit
select *
from "messages"
where "room_id" = $1 and "created" < $2
order by "created" desc
limit $3

-- messages.page (after)
-- parameters: roomID, bound, limit
select *
from "messages"
where "room_id" = $1 and "created" > $2
order by "created" asc
limit $3

-- messages.storeInRoom
-- parameters: created, 1, created, room_id, organizationID, 3, room_id, sender_id, room_id, recipientUserID, organizationID, sender_id, local_id, room_id, id, room_id, sender_id, local_id, type, body, data, quote, reply_to, updated, is_deleted, userA, userB, room_id
with "bump" as (
  update "rooms"
  set "last_message_created" = case when "last_message_created" >= $1 then "last_message_created" + $2 else $3 end
  where "id" = $4 and ("organization_id" = $5 and "type" <> $6 and exists (select "user_id" from "room_participants" where "room_id" = $7 and "user_id" = $8) and exists (select "p"."user_id" from "room_participants" as "p" inner join "users" as "u" on "u"."id" = "p"."user_id" where "p"."room_id" = $9 and "p"."user_id" = $10 and "u"."organization_id" = $11 and "u"."deleted_at" is null)) and not exists (select "id" from "messages" where "sender_id" = $12 and "local_id" = $13 and "room_id" = $14)
  returning "last_message_created"
), "stored" as (
  insert into "messages" ("id", "room_id", "sender_id", "local_id", "type", "body", "data", "quote", "reply_to", "created", "updated", "is_deleted")
  select $15 as "id", $16 as "room_id", $17 as "sender_id", $18 as "local_id", $19::integer as "type", $20 as "body", $21 as "data", $22 as "quote", $23::text as "reply_to", "bump"."last_message_created" as "created", $24::bigint as "updated", $25::integer as "is_deleted"
  from "bump"
  on conflict ("sender_id", "local_id", "room_id") do nothing
  returning *
), "read" as (
  select "r"."id" as "r_id", "r"."organization_id" as "r_organization_id", "r"."type" as "r_type", "r"."name" as "r_name", "r"."image_url" as "r_image_url", "r"."created" as "r_created", "r"."updated" as "r_updated", "r"."last_message_created" as "r_last_message_created", "r"."agents_read_up_to" as "r_agents_read_up_to", "r"."message_changes" as "r_message_changes", "p"."room_id" as "p_room_id", "p"."user_id" as "p_user_id", "p"."joined" as "p_joined", "p"."read_up_to" as "p_read_up_to", "p"."delivered_up_to" as "p_delivered_up_to", "u"."id" as "u_id", "u"."organization_id" as "u_organization_id", "u"."xc_user_id" as "u_xc_user_id", "u"."full_name" as "u_full_name", "u"."email" as "u_email", "u"."phone" as "u_phone", "u"."username" as "u_username", "u"."photo_thumbnail_url" as "u_photo_thumbnail_url", "u"."photo_fullsize_url" as "u_photo_fullsize_url", "u"."user_role_code" as "u_user_role_code", "u"."created" as "u_created", "u"."updated" as "u_updated", "u"."deactivated_at" as "u_deactivated_at", "u"."deleted_at" as "u_deleted_at"
  from "rooms" as "r"
  left join "room_participants" as "p" on "p"."room_id" = "r"."id"
  left join "users" as "u" on "u"."id" = "p"."user_id" and p.user_id in ($26, $27)
  where r.id = $28
  order by "p"."joined", "p"."user_id"
)
select "read".*, "bump"."last_message_created" as "bumped", "stored"."id" as "m_id", "stored"."room_id" as "m_room_id", "stored"."sender_id" as "m_sender_id", "stored"."local_id" as "m_local_id", "stored"."type" as "m_type", "stored"."body" as "m_body", "stored"."data" as "m_data", "stored"."quote" as "m_quote", "stored"."reply_to" as "m_reply_to", "stored"."created" as "m_created", "stored"."updated" as "m_updated", "stored"."is_deleted" as "m_is_deleted"
from "read"
left join "bump" on true
left join "stored" on true
order by "read"."p_joined", "read"."p_user_id"

-- messages.storeOnPostgres (indexed)
-- parameters: created, 1, created, room_id, sender_id, local_id, room_id, id, room_id, sender_id, local_id, type, body, data, quote, reply_to, updated, is_deleted, words
with "bump" as (
  update "rooms"
  set "last_message_created" = case when "last_message_created" >= $1 then "last_message_created" + $2 else $3 end
  where "id" = $4 and true and not exists (select "id" from "messages" where "sender_id" = $5 and "local_id" = $6 and "room_id" = $7)
  returning "last_message_created"
), "stored" as (
  insert into "messages" ("id", "room_id", "sender_id", "local_id", "type", "body", "data", "quote", "reply_to", "created", "updated", "is_deleted")
  select $8 as "id", $9 as "room_id", $10 as "sender_id", $11 as "local_id", $12::integer as "type", $13 as "body", $14 as "data", $15 as "quote", $16::text as "reply_to", "bump"."last_message_created" as "created", $17::bigint as "updated", $18::integer as "is_deleted"
  from "bump"
  on conflict ("sender_id", "local_id", "room_id") do nothing
  returning *
), "indexed" as (
  insert into "message_search" ("message_id", "room_id", "words")
  select id::bigint as "message_id", "room_id", to_tsvector('simple', $19) as "words"
  from "stored"
)
select "bump"."last_message_created" as "bumped", "stored".*
from "bump"
left join "stored" on true

-- messages.storeOnPostgres (plain)
-- parameters: created, 1, created, room_id, sender_id, local_id, room_id, id, room_id, sender_id, local_id, type, body, data, quote, reply_to, updated, is_deleted
with "bump" as (
  update "rooms"
  set "last_message_created" = case when "last_message_created" >= $1 then "last_message_created" + $2 else $3 end
  where "id" = $4 and true and not exists (select "id" from "messages" where "sender_id" = $5 and "local_id" = $6 and "room_id" = $7)
  returning "last_message_created"
), "stored" as (
  insert into "messages" ("id", "room_id", "sender_id", "local_id", "type", "body", "data", "quote", "reply_to", "created", "updated", "is_deleted")
  select $8 as "id", $9 as "room_id", $10 as "sender_id", $11 as "local_id", $12::integer as "type", $13 as "body", $14 as "data", $15 as "quote", $16::text as "reply_to", "bump"."last_message_created" as "created", $17::bigint as "updated", $18::integer as "is_deleted"
  from "bump"
  on conflict ("sender_id", "local_id", "room_id") do nothing
  returning *
)
select "bump"."last_message_created" as "bumped", "stored".*
from "bump"
left join "stored" on true
