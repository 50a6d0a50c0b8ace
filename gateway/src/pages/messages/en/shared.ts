// English words of the frame, navigation, sign-in, error pages, notices and refusals of both areas (docs/decisions/0025-page-languages.md); messages/en.ts
// puts the parts together, and the Turkish part is typed against this one.
import type { Reason } from '../reason.js';

/** One word or the other by a count: English has two forms. */
export const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

export const sharedWords = {
  frame: {
    skip: 'Skip to content',
    nav: 'Main',
    signOut: 'Sign out',
    language: 'Language',
  },
  /** The navigation's words for pages both areas have; each area's own are in its part. */
  nav: {
    webhooks: 'Webhooks',
    usage: 'Usage',
  },
  areas: {
    console: { label: 'Console', ended: 'Your session has ended: sign in again.' },
    portal: { label: 'Partner portal', ended: 'Your session has ended: open a new portal link.' },
  },
  signIn: {
    title: 'Sign in',
    console: {
      howTo: [
        "Sign in with a link made on the gateway's host by",
        '. Each link works once and for a short time.',
      ],
      oidc: "Sign in with your organisation's account",
      invalidTitle: 'This sign-in link does not work',
      invalid: 'The link has been used already, has expired, or was never made. Ask for a new one:',
      confirmTitle: 'Sign in to the console',
      button: 'Sign in',
      confirm: ['This link signs in', '. It works once: press the button to use it.'],
    },
    portal: {
      howTo:
        'Sign in with the link your API operator made for you. Each link works once and for a short time; ask the operator for a new one.',
      invalidTitle: 'This portal link does not work',
      invalid:
        'The link has been used already, has expired, or was never made. Ask your API operator for a new one.',
      confirmTitle: 'Open the partner portal',
      button: 'Open the portal',
      confirm: [
        'This link opens the portal of client',
        '. It works once: press the button to use it.',
      ],
    },
    oidc: {
      refusedTitle: 'Sign-in refused',
      refused: (reason: string) => `Refused: ${reason}.`,
      again: 'Sign in again',
      signedInTitle: 'Signed in',
      signedInAs: 'Signed in as',
      open: 'Open the console',
      tooMany: 'too many sign-in attempts from this address; wait a minute',
      unreachable: 'the sign-in provider could not be reached; try later',
      unbound: 'this sign-in was not begun here, or took too long',
      unconfirmed: 'the provider did not confirm this sign-in',
      noEmail: 'the provider gave no e-mail address',
      unverified: (email: string) => `the provider has not verified ${email}`,
      notAllowed: (email: string) => `${email} may not sign in to this console`,
    },
  },
  errors: {
    httpsTitle: 'HTTPS needed',
    https:
      'This page was reached over plain HTTP. In production its sign-in cookie is Secure, which a browser keeps only over HTTPS: open it at its https:// address.',
    proxy: [
      'Behind a proxy or load balancer that ends TLS, set',
      "on the gateway, so that it trusts the proxy's word (X-Forwarded-Proto) that the request came over HTTPS.",
    ],
    notFoundTitle: 'Not found',
    notFound: 'There is no such page here.',
    backToStart: 'Back to the start',
    refusedTitle: 'Request refused',
    crossSite: 'Refused: the request did not come from this site. Reload the page and try again.',
    expired:
      'Refused: the form has expired or did not come from this site. Reload the page and try again.',
    unreadableTitle: 'Request not understood',
    unreadable: 'The request could not be read. Go back and try again.',
    failedTitle: 'Something went wrong',
    failed: 'The page could not be shown. Try again in a moment; if it goes on, tell the operator.',
    tooManyTitle: 'Too many requests',
    tooMany: (n: number) =>
      `At most ${n} changes and downloads a minute: wait a minute and try again.`,
  },
  outcome: {
    invalidForm: 'The form is not valid.',
    test: (outcome: string, status: string, ms: string) =>
      `Test event ${outcome}: status ${status}, ${ms} ms.`,
    noStatus: 'none',
    answer: "The endpoint's answer:",
    shownOnce: 'It is shown only this once: keep it now.',
  },
  /** The operator services' refusals (cli/operator-refusal.ts), as the CLI words them. */
  refusals: {
    'no-client': (r: Reason<'no-client'>) => `no client with key ${r.clientKey}`,
    'no-subscription': (r: Reason<'no-subscription'>) => `no webhook subscription with id ${r.id}`,
    'no-member': (r: Reason<'no-member'>) => `no member with id ${r.id}`,
    'member-id': (r: Reason<'member-id'>) => `a member id is a positive integer, got "${r.value}"`,
    'unknown-scopes': (r: Reason<'unknown-scopes'>) =>
      `unknown scope(s): ${r.unknown.join(', ')}; known: ${r.known.join(', ')}`,
    'unknown-classes': (r: Reason<'unknown-classes'>) =>
      `unknown data class(es): ${r.unknown.join(', ')}; known: ${r.known.join(', ')}`,
    limits: (r: Reason<'limits'>) =>
      `limits must be MINUTE/HOUR/DAY positive integers, got "${r.value}"`,
    'sandbox-off': () => 'the sandbox is off (SANDBOX=off)',
    branch: (r: Reason<'branch'>) => `branch must be a positive integer, got "${r.value}"`,
    'no-branch': (r: Reason<'no-branch'>) =>
      `branch ${r.id} does not exist in the read model (is the worker syncing the dashboard?)`,
    'name-needed': () => 'a client needs a name',
    'scopes-needed': () => 'a client needs at least one scope',
    overlap: () => 'the overlap must be more than 0 and at most 7 days',
    'reason-needed': () => 'erase needs a reason: why the member is erased',
    'already-erased': (r: Reason<'already-erased'>, at: string) =>
      `member ${r.id} was already erased at ${at}`,
    'client-disabled': (r: Reason<'client-disabled'>) =>
      `client ${r.clientKey} is disabled: enable it before its portal`,
    saved: (changes: string) => `(saved before it: ${changes})`,
  },
  common: {
    never: 'never',
    none: 'none',
    all: 'all',
    unknown: 'unknown',
    show: 'Show',
    filter: 'Filter',
    clientKey: 'Client key',
    scopes: 'Scopes',
    personalData: "Members' personal data",
    saveChanges: 'Save changes',
    url: 'URL',
    endpointUrl: 'Endpoint URL',
    description: 'Description',
    types: 'Types',
    state: 'State',
    id: 'Id',
    client: 'Client',
    outcome: 'Outcome',
    status: 'Status',
    actions: 'Actions',
    deliveries: 'Deliveries',
    backToSubscriptions: 'Back to every subscription',
    signingSecret: 'Signing secret',
    enable: 'Enable',
    disable: 'Disable',
    edit: 'Edit',
    /** The words around a range's two moments: before, between and after them. */
    range: ['From ', ' to ', ''],
  },
};
