-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- rooms.bumpLastMessageCreated
-- parameters: now, 1, now, roomID
update "rooms"
set "last_message_created" = case when "last_message_created" >= $1 then "last_message_created" + $2 else $3 end
where "id" = $4
returning "last_message_created"
