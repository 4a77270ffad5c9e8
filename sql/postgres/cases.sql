-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- cases.caseByID
-- parameters: id
select *
from "cases"
where "id" = $1

-- cases.caseByID (lock)
-- parameters: id
select *
from "cases"
where "id" = $1
for update
