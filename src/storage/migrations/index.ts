import type { Migration } from 'kysely'
import * as foundation from './0001_foundation.js'
import * as chat from './0002_chat.js'
import * as support from './0003_support.js'
import * as agents from './0004_agents.js'
import * as agentCSRFHash from './0005_agent_csrf_hash.js'
import * as agentDeactivation from './0006_agent_deactivation.js'
import * as appKeys from './0007_app_keys.js'
import * as syncPoints from './0008_sync_points.js'
import * as idWorkers from './0009_id_workers.js'
import * as caseRatings from './0010_case_ratings.js'
import * as agentReadMarks from './0011_agent_read_marks.js'
import * as caseSearch from './0012_case_search.js'
import * as caseNotes from './0013_case_notes.js'
import * as caseReopenTags from './0014_case_reopen_tags.js'
import * as cannedReplies from './0015_canned_replies.js'
import * as caseReports from './0016_case_reports.js'
import * as agentNotifications from './0017_agent_notifications.js'
import * as files from './0018_files.js'
import * as userLifecycle from './0019_user_lifecycle.js'
import * as eventEndpoints from './0020_event_endpoints.js'
import * as reportDays from './0021_report_days.js'
import * as roomMessageChanges from './0022_room_message_changes.js'
import * as unsearchedChatMessages from './0023_unsearched_chat_messages.js'
import * as deletedMessagesIndex from './0024_deleted_messages_index.js'
import * as unsentFileQuotas from './0025_unsent_file_quotas.js'
import * as idWorkerLeases from './0026_id_worker_leases.js'
import * as messageExtras from './0027_message_extras.js'
import * as scheduledMessages from './0031_scheduled_messages.js'
import * as moderationReports from './0032_moderation_reports.js'
import * as contactsAndBlocks from './0035_contacts_and_blocks.js'
import * as roomStates from './0036_room_states.js'
import * as groupRoles from './0039_group_roles.js'
import * as profiles from './0040_profiles.js'
import * as channels from './0043_channels.js'
import * as chatbotMessageEdits from './0046_chatbot_message_edits.js'
import * as reportDaysAtCommit from './0048_report_days_at_commit.js'
import * as mailboxCertificates from './0049_mailbox_certificates.js'

// Append-only: a migration that has landed is never edited; a change is a new file here.
export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_chat': chat,
  '0003_support': support,
  '0004_agents': agents,
  '0005_agent_csrf_hash': agentCSRFHash,
  '0006_agent_deactivation': agentDeactivation,
  '0007_app_keys': appKeys,
  '0008_sync_points': syncPoints,
  '0009_id_workers': idWorkers,
  '0010_case_ratings': caseRatings,
  '0011_agent_read_marks': agentReadMarks,
  '0012_case_search': caseSearch,
  '0013_case_notes': caseNotes,
  '0014_case_reopen_tags': caseReopenTags,
  '0015_canned_replies': cannedReplies,
  '0016_case_reports': caseReports,
  '0017_agent_notifications': agentNotifications,
  '0018_files': files,
  '0019_user_lifecycle': userLifecycle,
  '0020_event_endpoints': eventEndpoints,
  '0021_report_days': reportDays,
  '0022_room_message_changes': roomMessageChanges,
  '0023_unsearched_chat_messages': unsearchedChatMessages,
  '0024_deleted_messages_index': deletedMessagesIndex,
  '0025_unsent_file_quotas': unsentFileQuotas,
  '0026_id_worker_leases': idWorkerLeases,
  '0027_message_extras': messageExtras,
  '0031_scheduled_messages': scheduledMessages,
  '0032_moderation_reports': moderationReports,
  '0035_contacts_and_blocks': contactsAndBlocks,
  '0036_room_states': roomStates,
  '0039_group_roles': groupRoles,
  '0040_profiles': profiles,
  '0043_channels': channels,
  '0046_chatbot_message_edits': chatbotMessageEdits,
  '0048_report_days_at_commit': reportDaysAtCommit,
  '0049_mailbox_certificates': mailboxCertificates,
}
