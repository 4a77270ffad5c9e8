-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- rooms.bumpLastMessageCreated
-- parameters: now, 1, now, roomID
update "rooms"
set "last_message_created" = case when "last_message_created" >= ? then "last_message_created" + ? else ? end
where "id" = ?
returning "last_message_created"
