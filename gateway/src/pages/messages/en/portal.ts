// English words of the portal's pages (docs/decisions/0025-page-languages.md); messages/en.ts
// puts the parts together, and the Turkish part is typed against this one.

export const portalWords = {
  /** The navigation's words for the portal's own pages (the shared ones: shared.ts). */
  nav: {
    overview: 'Overview',
    credentials: 'Credentials',
    personalData: 'Personal data',
    apiDocs: 'API documentation',
    quickStart: 'Quick start',
  },
  overview: {
    title: 'Overview',
    limits: 'Limits',
    lastDay: 'The last 24 hours',
    webhooks: 'Webhooks',
    limitsCaption: 'Requests allowed per window, and what is left now',
    limitHeads: ['Window', 'Limit', 'Left now'],
    windows: { minute: 'minute', hour: 'hour', day: 'day' },
    outcomes: {
      requests: 'Requests',
      client_errors: '4xx answers',
      server_errors: '5xx answers',
      rate_limited: '429 answers',
    },
    noSubscription: 'No webhook subscription.',
    addEndpoint: 'Add an endpoint',
    healthCaption: "Each subscription's events by state",
    lastSuccess: 'Last success (UTC)',
    lastFailure: 'Last failure (UTC)',
  },
  portalWebhooks: {
    title: 'Webhooks',
    noScope: (scope: string) =>
      `Your client does not hold the ${scope} scope: ask your API operator for it to manage webhooks.`,
    none: 'No subscription yet.',
    caption: 'Your webhook subscriptions',
    subscriptionOf: (id: number) => `Subscription ${id}`,
    typesLegend: (fallback: string) => `Event types (none ticked: ${fallback})`,
    everyType: 'every type your scopes allow',
    add: 'Add an endpoint',
    descriptionOptional: 'Description (optional)',
    addButton: 'Add endpoint',
    added: (id: number) =>
      `Subscription ${id} added: deliveries to it are signed with this secret.`,
  },
  webhook: {
    title: (id: number) => `Subscription ${id}`,
    sendTest: 'Send test event',
    rotate: 'Rotate signing secret',
    replaySince: 'Replay the events recorded since (UTC)',
    failedOnly: 'Only the failed ones',
    replay: 'Replay',
    descriptionEmpty: 'Description (empty: none)',
    everyOutcome: 'every outcome',
    credentialsEnded:
      'The credentials that created this subscription or last changed its URL have ended (a client secret rotated, tokens revoked): check that the URL is yours before you enable it.',
    saved: (id: number) => `Subscription ${id} saved.`,
    enabled: (id: number) => `Subscription ${id} enabled: its pending events go now.`,
    rotated: 'New signing secret made: for 24 hours deliveries carry a signature under each.',
    replayed: (n: string, since: string) => `${n} events since ${since} go again.`,
  },
  credentials: {
    title: 'Credentials',
    overlaps: { none: 'None: the old secret ends now', '1h': '1 hour', '24h': '24 hours' },
    rotateHeading: 'Rotate the client secret',
    rotateHint:
      'A new secret is made and shown once. Without an overlap the old secret stops working at once, and so does every access and refresh token your client holds. With one, both secrets issue tokens until the overlap ends; then the old secret and its tokens stop.',
    overlapLegend: 'Overlap of the old secret',
    rotate: 'Rotate client secret',
    previous: 'Previous secret',
    previousUntil: (until: string) =>
      `Your previous secret still issues tokens until ${until}. Ending it now stops it and the tokens it issued.`,
    endPrevious: 'End previous secret now',
    endedNote: (ids: string) =>
      `Webhook subscriptions ${ids} were disabled because the credentials that made them ended: check their URLs on the Webhooks page and enable the ones that are yours.`,
    rotatedUntil: (until: string) =>
      `New client secret made; the old one and its tokens work until ${until}.`,
    rotatedNow: 'New client secret made; the old one and every token of your client have ended.',
    previousEnded: 'The previous client secret and the tokens it issued have ended.',
  },
  personalData: {
    title: "Members' personal data",
    intro:
      'Your client receives the fields of the classes it holds, in every answer, change and webhook; the fields of the others are left out. The club grants classes: ask it for one your integration needs.',
    caption: 'Data classes and the fields in each',
    heads: ['Class', 'Covers', 'Your client', 'Fields'],
    held: 'Held',
    withheld: 'Withheld',
  },
  quickStart: {
    title: 'Quick start',
    intro:
      'Your client reads the sandbox: a generated club behind the same API, change feed and webhooks as a live one, never a real member. Follow the steps in order.',
    token: '1. A token',
    tokenText: [
      'With the client secret you were given in',
      '(Credentials makes a new one), and',
      'installed:',
    ],
    tokenLabel: 'The token request',
    read: '2. A first read',
    readLabel: 'The first read',
    webhook: '3. A webhook',
    endpoint: "Your endpoint's URL",
    subscribe: 'Subscribe to every type your scopes allow',
    change: '4. A change',
    type: 'Type',
    makeChange: 'Make a change',
    shell: 'The same from a shell:',
    shellLabel: 'A change from a shell',
    delivery: '5. Its delivery',
    deliveryText: 'Within seconds of a change, its delivery is tried here (reload the page).',
    verify: 'Verify a delivery',
    verifyLabel: 'The verification',
    noDelivery: 'No delivery yet.',
    triesCaption: 'The latest tries of your subscriptions (UTC)',
    triesHeads: ['Subscription', 'Event', 'Outcome', 'Status', 'At'],
    added: (id: number) =>
      `Subscription ${id} added: its deliveries are signed with this secret, which the snippet below now holds.`,
    notReadable: (type: string) => `"${type}" is not a type your scopes read.`,
    made: (type: string, id: string, made: string) => `${type} ${id} ${made}: its event follows.`,
    /** How the sandbox's change came about (sandbox.events.ts `made`). */
    madeKinds: { created: 'created', changed: 'changed' },
    nothingToCopy: (type: string) => `No ${type} row to copy in the sandbox's club.`,
  },
};
