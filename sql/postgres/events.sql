-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- events.activeEndpoints
-- parameters: organizationID, 1
select "id", "event_types"
from "event_endpoints"
where "organization_id" = $1 and "active" = $2
