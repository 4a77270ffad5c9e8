-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- people.blockedIDs
-- parameters: blockerID
select "blocked_id"
from "user_blocks"
where "blocker_id" = ?

-- people.isBlocked
-- parameters: blockerID, blockedID
select "created"
from "user_blocks"
where "blocker_id" = ? and "blocked_id" = ?
