-- Written by `npm run sql` from the prepared queries of src/: do not edit.

-- rooms.advanceReceipts (read)
-- parameters: upTo, upTo, upTo, upTo, roomID, userID
update "room_participants"
set "read_up_to" = case when "read_up_to" < $1 then $2 else "read_up_to" end, "delivered_up_to" = case when "delivered_up_to" < $3 then $4 else "delivered_up_to" end
where "room_id" = $5 and "user_id" = $6

-- rooms.advanceReceipts (delivered)
-- parameters: upTo, upTo, roomID, userID
update "room_participants"
set "delivered_up_to" = case when "delivered_up_to" < $1 then $2 else "delivered_up_to" end
where "room_id" = $3 and "user_id" = $4

-- rooms.roomPeers
-- parameters: userID, userID
select distinct "peer"."user_id"
from "room_participants" as "peer"
inner join "room_participants" as "mine" on "mine"."room_id" = "peer"."room_id"
where "mine"."user_id" = $1 and "peer"."user_id" <> $2

-- rooms.roomsWithParticipants
-- parameters: userIDs, roomIDs
select "r"."id" as "r_id", "r"."organization_id" as "r_organization_id", "r"."type" as "r_type", "r"."name" as "r_name", "r"."image_url" as "r_image_url", "r"."created" as "r_created", "r"."updated" as "r_updated", "r"."last_message_created" as "r_last_message_created", "r"."agents_read_up_to" as "r_agents_read_up_to", "r"."message_changes" as "r_message_changes", "r"."xc_room_id" as "r_xc_room_id", "r"."photo_file_id" as "r_photo_file_id", "r"."deleted_at" as "r_deleted_at", "p"."room_id" as "p_room_id", "p"."user_id" as "p_user_id", "p"."joined" as "p_joined", "p"."read_up_to" as "p_read_up_to", "p"."delivered_up_to" as "p_delivered_up_to", "p"."is_admin" as "p_is_admin", "p"."cleared_up_to" as "p_cleared_up_to", "u"."id" as "u_id", "u"."organization_id" as "u_organization_id", "u"."xc_user_id" as "u_xc_user_id", "u"."full_name" as "u_full_name", "u"."email" as "u_email", "u"."phone" as "u_phone", "u"."username" as "u_username", "u"."photo_thumbnail_url" as "u_photo_thumbnail_url", "u"."photo_fullsize_url" as "u_photo_fullsize_url", "u"."user_role_code" as "u_user_role_code", "u"."bio" as "u_bio", "u"."created" as "u_created", "u"."updated" as "u_updated", "u"."deactivated_at" as "u_deactivated_at", "u"."deleted_at" as "u_deleted_at"
from "rooms" as "r"
left join "room_participants" as "p" on "p"."room_id" = "r"."id"
left join "users" as "u" on "u"."id" = "p"."user_id" and p.user_id = any($1)
where r.id = any($2)
order by "p"."joined", "p"."user_id"

-- rooms.roomWithParticipants
-- parameters: userA, userB, roomID
select "r"."id" as "r_id", "r"."organization_id" as "r_organization_id", "r"."type" as "r_type", "r"."name" as "r_name", "r"."image_url" as "r_image_url", "r"."created" as "r_created", "r"."updated" as "r_updated", "r"."last_message_created" as "r_last_message_created", "r"."agents_read_up_to" as "r_agents_read_up_to", "r"."message_changes" as "r_message_changes", "r"."xc_room_id" as "r_xc_room_id", "r"."photo_file_id" as "r_photo_file_id", "r"."deleted_at" as "r_deleted_at", "p"."room_id" as "p_room_id", "p"."user_id" as "p_user_id", "p"."joined" as "p_joined", "p"."read_up_to" as "p_read_up_to", "p"."delivered_up_to" as "p_delivered_up_to", "p"."is_admin" as "p_is_admin", "p"."cleared_up_to" as "p_cleared_up_to", "u"."id" as "u_id", "u"."organization_id" as "u_organization_id", "u"."xc_user_id" as "u_xc_user_id", "u"."full_name" as "u_full_name", "u"."email" as "u_email", "u"."phone" as "u_phone", "u"."username" as "u_username", "u"."photo_thumbnail_url" as "u_photo_thumbnail_url", "u"."photo_fullsize_url" as "u_photo_fullsize_url", "u"."user_role_code" as "u_user_role_code", "u"."bio" as "u_bio", "u"."created" as "u_created", "u"."updated" as "u_updated", "u"."deactivated_at" as "u_deactivated_at", "u"."deleted_at" as "u_deleted_at"
from "rooms" as "r"
left join "room_participants" as "p" on "p"."room_id" = "r"."id"
left join "users" as "u" on "u"."id" = "p"."user_id" and p.user_id in ($1, $2)
where r.id = $3
order by "p"."joined", "p"."user_id"
