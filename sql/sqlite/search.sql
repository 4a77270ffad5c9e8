-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- search.indexMessage
-- parameters: id, words, roomID
insert into "message_search" ("rowid", "words", "room")
values (cast(? as integer), ?, ?)
