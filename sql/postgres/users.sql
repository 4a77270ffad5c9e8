-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- users.userByID
-- parameters: organizationID, id
select *
from "users"
where "organization_id" = $1 and "id" = $2

-- users.userByXcUserID
-- parameters: organizationID, xcUserID
select *
from "users"
where "organization_id" = $1 and "xc_user_id" = $2
