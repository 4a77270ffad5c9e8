-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- messages.insertUnlessRetry
-- parameters: id, room_id, sender_id, local_id, type, body, data, quote, reply_to, created, updated, is_deleted
insert into "messages" ("id", "room_id", "sender_id", "local_id", "type", "body", "data", "quote", "reply_to", "created", "updated", "is_deleted")
values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
on conflict ("sender_id", "local_id", "room_id") do nothing
returning "id"

-- messages.page (before)
-- parameters: roomID, bound, limit
select *
from "messages"
where "room_id" = ? and "created" < ?
order by "created" desc
limit ?

-- messages.page (after)
-- parameters: roomID, bound, limit
select *
from "messages"
where "room_id" = ? and "created" > ?
order by "created" asc
limit ?
