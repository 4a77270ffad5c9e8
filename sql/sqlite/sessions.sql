-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- sessions.sessionByID
-- parameters: id
select *
from "sessions"
where "id" = ?
