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

-- messages.storeOnPostgres (indexed)
-- parameters: created, 1, created, room_id, sender_id, local_id, room_id, id, room_id, sender_id, local_id, type, body, data, quote, reply_to, created, updated, is_deleted, words
with "bump" as (
  update "rooms"
  set "last_message_created" = case when "last_message_created" >= $1 then "last_message_created" + $2 else $3 end
  where "id" = $4 and not exists (select "id" from "messages" where "sender_id" = $5 and "local_id" = $6 and "room_id" = $7)
  returning "last_message_created"
), "stored" as (
  insert into "messages" ("id", "room_id", "sender_id", "local_id", "type", "body", "data", "quote", "reply_to", "created", "updated", "is_deleted")
  values ($8, $9, $10, $11, $12, $13, $14, $15, $16, coalesce((select "last_message_created" from "bump"), $17), $18, $19)
  on conflict ("sender_id", "local_id", "room_id") do nothing
  returning *
), "indexed" as (
  insert into "message_search" ("message_id", "room_id", "words")
  select id::bigint as "message_id", "room_id", to_tsvector('simple', $20) as "words"
  from "stored"
)
select "bump"."last_message_created" as "bumped", "stored".*
from "bump"
left join "stored" on true

-- messages.storeOnPostgres (plain)
-- parameters: created, 1, created, room_id, sender_id, local_id, room_id, id, room_id, sender_id, local_id, type, body, data, quote, reply_to, created, updated, is_deleted
with "bump" as (
  update "rooms"
  set "last_message_created" = case when "last_message_created" >= $1 then "last_message_created" + $2 else $3 end
  where "id" = $4 and not exists (select "id" from "messages" where "sender_id" = $5 and "local_id" = $6 and "room_id" = $7)
  returning "last_message_created"
), "stored" as (
  insert into "messages" ("id", "room_id", "sender_id", "local_id", "type", "body", "data", "quote", "reply_to", "created", "updated", "is_deleted")
  values ($8, $9, $10, $11, $12, $13, $14, $15, $16, coalesce((select "last_message_created" from "bump"), $17), $18, $19)
  on conflict ("sender_id", "local_id", "room_id") do nothing
  returning *
)
select "bump"."last_message_created" as "bumped", "stored".*
from "bump"
left join "stored" on true
