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

-- messages.storeInRooms
-- parameters: ids, roomIDs, senderIDs, localIDs, types, bodies, data, quotes, nows, organizationIDs, recipientIDs, count
with input as materialized (
  select *
  from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[], $11::text[])
  with ordinality as i (id, room_id, sender_id, local_id, type, body, data, quote, now, organization_id, recipient_id, ord)
  limit $12
), allowed as materialized (
  select i.*
  from input i
  where exists (select from rooms r where r.id = i.room_id and r.organization_id = i.organization_id and r.type <> 3 offset 0) and exists (select from room_participants p where p.room_id = i.room_id and p.user_id = i.sender_id offset 0) and exists (select from room_participants p join users u on u.id = p.user_id where p.room_id = i.room_id and p.user_id = i.recipient_id and u.organization_id = i.organization_id and u.deleted_at is null offset 0) and not exists (select from messages m where m.sender_id = i.sender_id and m.local_id = i.local_id and m.room_id = i.room_id offset 0) and not exists (select from user_blocks b where b.blocker_id = i.recipient_id and b.blocked_id = i.sender_id offset 0)
), locked as materialized (
  select l.id, l.last_message_created
  from (select distinct room_id from allowed order by room_id) a cross join lateral (select id, last_message_created from rooms where id = a.room_id for update) l
), ranked as (
  select a.id, a.room_id, a.now, a.ord, row_number() over (partition by a.room_id order by a.ord) as k
  from allowed a
), created as materialized (
  select r.id, r.room_id, r.ord, greatest(l.last_message_created + r.k, max(r.now - r.k) over (partition by r.room_id order by r.ord) + r.k) as created
  from ranked r join locked l on l.id = r.room_id
), bump as (
  update rooms
  set last_message_created = newest.created
  from (select room_id, max(created) as created from created group by room_id) newest
  where rooms.id = newest.room_id
), stored as (
  insert into messages (id, room_id, sender_id, local_id, type, body, data, quote, reply_to, created, updated, is_deleted)
  select i.id, i.room_id, i.sender_id, i.local_id, i.type, i.body, i.data, i.quote, null, c.created, i.now, 0
  from created c join input i on i.ord = c.ord
  order by c.ord
  on conflict (sender_id, local_id, room_id) do nothing
  returning id
)
select i.ord, read.*, c.created as bumped, s.id as stored
from input i cross join lateral ((select "r"."id" as "r_id", "r"."organization_id" as "r_organization_id", "r"."type" as "r_type", "r"."name" as "r_name", "r"."image_url" as "r_image_url", "r"."created" as "r_created", "r"."updated" as "r_updated", "r"."last_message_created" as "r_last_message_created", "r"."agents_read_up_to" as "r_agents_read_up_to", "r"."message_changes" as "r_message_changes", "r"."xc_room_id" as "r_xc_room_id", "r"."photo_file_id" as "r_photo_file_id", "r"."deleted_at" as "r_deleted_at", "p"."room_id" as "p_room_id", "p"."user_id" as "p_user_id", "p"."joined" as "p_joined", "p"."read_up_to" as "p_read_up_to", "p"."delivered_up_to" as "p_delivered_up_to", "p"."is_admin" as "p_is_admin", "p"."cleared_up_to" as "p_cleared_up_to", "u"."id" as "u_id", "u"."organization_id" as "u_organization_id", "u"."xc_user_id" as "u_xc_user_id", "u"."full_name" as "u_full_name", "u"."email" as "u_email", "u"."phone" as "u_phone", "u"."username" as "u_username", "u"."photo_thumbnail_url" as "u_photo_thumbnail_url", "u"."photo_fullsize_url" as "u_photo_fullsize_url", "u"."user_role_code" as "u_user_role_code", "u"."bio" as "u_bio", "u"."created" as "u_created", "u"."updated" as "u_updated", "u"."deactivated_at" as "u_deactivated_at", "u"."deleted_at" as "u_deleted_at" from "rooms" as "r" left join "room_participants" as "p" on "p"."room_id" = "r"."id" left join "users" as "u" on "u"."id" = "p"."user_id" and p.user_id in (i.sender_id, i.recipient_id) where r.id = i.room_id order by "p"."joined", "p"."user_id") offset 0) read
left join created c on c.ord = i.ord
left join stored s on s.id = i.id
order by i.ord, read.p_joined, read.p_user_id

-- messages.storeOnPostgres (indexed)
-- parameters: created, 1, created, room_id, sender_id, local_id, room_id, id, room_id, sender_id, local_id, type, body, data, quote, reply_to, updated, is_deleted, words
with "bump" as (
  update "rooms"
  set "last_message_created" = case when "last_message_created" >= $1 then "last_message_created" + $2 else $3 end
  where "id" = $4 and not exists (select "id" from "messages" where "sender_id" = $5 and "local_id" = $6 and "room_id" = $7)
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
  where "id" = $4 and not exists (select "id" from "messages" where "sender_id" = $5 and "local_id" = $6 and "room_id" = $7)
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
