// Every operation of the API, once. The router, the OpenAPI document, the info endpoint and the
// tests' endpoint table are derived from this list: adding an endpoint is a declaration in its
// feature folder and one line here.
import {
  createTokenEndpoint,
  refreshTokenEndpoint,
  revokeTokenEndpoint,
} from './features/auth/auth.endpoints.js';
import {
  getBranchEndpoint,
  getBranchStatsEndpoint,
  listBranchesEndpoint,
} from './features/branches/branches.endpoints.js';
import {
  getDashboardDailyEndpoint,
  getDashboardStatsEndpoint,
} from './features/dashboard/dashboard.endpoints.js';
import {
  getFinancialSummaryEndpoint,
  listInstallmentsEndpoint,
  listTransactionsEndpoint,
} from './features/financial/financial.endpoints.js';
import {
  listMarketCategoriesEndpoint,
  listMarketProductsEndpoint,
} from './features/market/market.endpoints.js';
import {
  getMemberEndpoint,
  getMemberFinancialEndpoint,
  getMemberPackagesEndpoint,
  listMembersEndpoint,
} from './features/members/members.endpoints.js';
import {
  createMemberEndpoint,
  updateMemberEndpoint,
} from './features/members/members.write.endpoints.js';
import { listNotificationsEndpoint } from './features/notifications/notifications.endpoints.js';
import {
  getPackageEndpoint,
  listPackagesEndpoint,
} from './features/packages/packages.endpoints.js';
import { listPresenceEndpoint } from './features/presence/presence.endpoints.js';
import { listPrivateLessonsEndpoint } from './features/private-lessons/private-lessons.endpoints.js';
import { getStaffEndpoint, listStaffEndpoint } from './features/staff/staff.endpoints.js';
import { listChangesEndpoint } from './features/changes/changes.endpoints.js';
import { getUsageEndpoint } from './features/usage/usage.endpoints.js';
import { createSandboxEventEndpoint } from './features/sandbox/sandbox.endpoints.js';
import { webhookEndpoints } from './features/webhooks/webhooks.endpoints.js';
import type { EndpointServices } from './endpoint-services.js';
import type { Endpoint } from './http/endpoint.js';

export const ENDPOINTS: readonly Endpoint<EndpointServices>[] = [
  createTokenEndpoint,
  refreshTokenEndpoint,
  revokeTokenEndpoint,
  listMembersEndpoint,
  createMemberEndpoint,
  getMemberEndpoint,
  updateMemberEndpoint,
  getMemberPackagesEndpoint,
  getMemberFinancialEndpoint,
  listBranchesEndpoint,
  getBranchEndpoint,
  getBranchStatsEndpoint,
  listPackagesEndpoint,
  getPackageEndpoint,
  listTransactionsEndpoint,
  getFinancialSummaryEndpoint,
  listInstallmentsEndpoint,
  getDashboardStatsEndpoint,
  getDashboardDailyEndpoint,
  listMarketProductsEndpoint,
  listMarketCategoriesEndpoint,
  listStaffEndpoint,
  getStaffEndpoint,
  listNotificationsEndpoint,
  listPrivateLessonsEndpoint,
  listPresenceEndpoint,
  listChangesEndpoint,
  ...webhookEndpoints,
  getUsageEndpoint,
  createSandboxEventEndpoint,
];
