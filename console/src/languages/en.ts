// English, the console's source of truth: every other language's file has the type `Texts` below, so
// a text missing there fails the type check. Texts with values are functions of them; a plural is
// chosen in the function, as the language needs.

export const en = {
  login: {
    intro: 'Sign in to answer your customers.',
    email: 'E-mail',
    password: 'Password',
    signIn: 'Sign in',
    signingIn: 'Signing in…',
    help: "No account? An admin of your organization makes one under Settings → Agents. Setting Parley up? The server's log names the command for the first admin when it starts without one:",
  },
  shell: {
    main: 'Main',
    tabTitle: (unread: number) => `${unread > 0 ? `(${unread}) ` : ''}Parley console`,
    liveUpdates: (state: string) => `Live updates: ${state}`,
    live: { open: 'Live', connecting: 'Connecting', offline: 'Offline' },
    inbox: 'Inbox',
    waiting: (n: number) => `${n} waiting`,
    reports: 'Reports',
    settings: 'Settings',
    chatbots: 'Chatbots',
    events: 'Events',
    serverKeys: 'Server keys',
    appKeys: 'App keys',
    topics: 'Topics',
    agents: 'Agents',
    replies: 'Replies',
    auditLog: 'Audit log',
    signOut: 'Sign out',
    yourStatus: 'Your status',
    status: { online: 'Online: take cases', away: 'Away', offline: 'Offline' },
  },
  app: {
    notFound: 'Nothing here',
    notFoundDetail: 'This page does not exist, or is for admins only.',
    failed: 'This page hit a problem',
    failedDetail: 'Your work is saved on the server.',
    backToInbox: 'Back to the inbox',
  },
  notify: {
    legend: 'Notify me',
    sound: 'Sound',
    desktop: 'Desktop',
    blocked: 'This browser blocks notifications from the console.',
  },
  mentions: {
    label: 'Mentions',
    unread: (n: number) => `${n} unread`,
    unreadSuffix: 'unread',
    list: 'Notes that mention you',
    none: 'No one has mentioned you yet.',
  },
  ui: {
    copy: 'Copy',
    copied: 'Copied',
    copyWhat: (what: string) => `Copy ${what}`,
    hide: 'Hide',
    show: 'Show',
  },
  /** A case's status as its pill shows it. */
  statusName: { bot: 'bot', queued: 'queued', assigned: 'assigned', closed: 'closed' },
  rating: {
    none: 'The visitor has not rated this case.',
    stars: (n: number) => `${n} out of 5 stars`,
    rated: (n: number) => `Rated ${n}/5 by the visitor`,
  },
  // `{…}` marks what is shown as code.
  serverKeys: {
    title: 'Server keys',
    noun: 'server key',
    subtitle:
      'Your backend sends a server key in the Server-Key header to request auth tickets for its signed-in users.',
    empty: 'Create one for your backend: it is what lets your servers request auth tickets for your users.',
    usage:
      "Send it as the {Server-Key} header of your backend's auth ticket requests. Keep it on your servers only.",
    header: 'Server-Key header',
  },
  appKeys: {
    title: 'App keys',
    noun: 'app key',
    subtitle:
      'A client app built with a TapTalk.io SDK identifies itself with an app key: its App ID and App secret.',
    empty: 'Create one for each client app that uses a TapTalk.io SDK.',
    usage:
      "Give the App ID and App secret to the SDK's {taptalk.init(appID, appSecret, baseURL)}; it sends them as the {App-Key} header.",
    appID: 'App ID',
    secret: 'App secret',
    header: 'App-Key header',
  },
  caseHeader: {
    back: 'Back to cases',
    opened: (when: string) => `opened ${when}`,
    state: {
      bot: 'With the chatbot',
      queued: 'Waiting for an agent',
      assigned: 'Assigned',
      closed: 'Closed',
    },
    assignedTo: (agent: string) => ` to ${agent}`,
    /** " since just now", " for 4 min": how long the case has waited, after "Waiting for an agent". */
    waited: (since: string) => (since === 'now' ? ' since just now' : ` for ${since}`),
    closedBy: (by: string) => ` by the ${by}`,
  },
  topics: {
    title: 'Topics',
    subtitle: 'Visitors pick a topic when they open a case; agents answer the topics they are given.',
    newTopic: 'New topic',
    placeholder: 'Billing',
    create: 'Create topic',
    empty: 'No topics yet',
    name: 'Name',
    id: 'ID',
    default: 'default',
  },
  attach: { attach: 'Attach…', uploading: 'Uploading…' },
  keys: {
    create: (noun: string) => `Create ${noun}`,
    revokeConfirm: (noun: string) => `Revoke this ${noun}? Requests with it are refused from now on.`,
    empty: (title: string) => `No ${title.toLowerCase()} yet`,
    keyID: 'Key ID',
    created: 'Created',
    status: 'Status',
    actions: 'Actions',
    revoke: 'Revoke',
    revokeWhich: (id: string) => `Revoke ${id}`,
    active: 'active',
    revoked: 'revoked',
    revokedAt: (time: string) => `Revoked ${time}`,
    newKey: (noun: string, id: string) => `New ${noun} ${id}`,
    copyNow: 'Copy it now: the secret is not shown again.',
    copied: 'I have copied it',
  },
  /** How long since a moment: "now", "4 min", "2 h 5 min", "3 d". */
  units: {
    now: 'now',
    minutes: (n: number) => `${n} min`,
    hours: (hours: number, minutes: number) => `${hours} h${minutes ? ` ${minutes} min` : ''}`,
    days: (n: number) => `${n} d`,
  },
  notes: {
    internal: 'Internal note',
    anAgent: 'an agent',
    agentsOnly: 'Only agents see this',
  },
  transcript: {
    visitor: 'Visitor',
    chatbot: 'Chatbot',
    empty: 'No messages yet.',
    read: 'Read',
  },
  visitor: {
    title: 'Visitor',
    email: 'E-mail',
    phone: 'Phone',
    userID: 'User ID',
    username: 'Username',
    role: 'Role',
    platform: 'Platform',
    device: 'Device',
    deviceTitle: (userAgent: string, deviceID: string) => `${userAgent} · device ID ${deviceID}`,
    since: 'Visitor since',
    earlier: 'Earlier cases',
    firstCase: 'None: this is their first case.',
    noMessage: 'No message',
  },
}

/** The console's texts: the keys and shapes of the English catalogue. */
export type Texts = typeof en
