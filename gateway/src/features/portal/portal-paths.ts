// Where the portal lives on the gateway: its pages and its assets.
export const PORTAL = '/portal';
export const PORTAL_ASSETS = `${PORTAL}/assets`;
export const USAGE_CSV = `${PORTAL}/usage.csv`;
