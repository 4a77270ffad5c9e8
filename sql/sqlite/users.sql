-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- users.userByID
-- parameters: organizationID, id
select *
from "users"
where "organization_id" = ? and "id" = ?

-- users.userByXcUserID
-- parameters: organizationID, xcUserID
select *
from "users"
where "organization_id" = ? and "xc_user_id" = ?
