export const apiInfo = {
  name: 'Dashboard External API',
  version: 'v1',
  documentation: '/api/v1/docs',
  branch_policy:
    'Bir şubeye bağlı istemci yalnızca o şubenin verilerini görür; şube bağlaması boş (null) olan istemci tüm şubeleri görür.',
  endpoints: {
    auth: {
      createToken: 'POST /api/v1/auth/token',
      refreshToken: 'POST /api/v1/auth/refresh',
      revokeToken: 'POST /api/v1/auth/revoke',
    },
    members: {
      listMembers: 'GET /api/v1/members',
      createMember: 'POST /api/v1/members',
      getMember: 'GET /api/v1/members/{id}',
      updateMember: 'PUT /api/v1/members/{id}',
      getMemberPackages: 'GET /api/v1/members/{id}/packages',
      getMemberFinancial: 'GET /api/v1/members/{id}/financial',
    },
    branches: {
      listBranches: 'GET /api/v1/branches',
      getBranch: 'GET /api/v1/branches/{id}',
      getBranchStats: 'GET /api/v1/branches/{id}/stats',
    },
    packages: { listPackages: 'GET /api/v1/packages', getPackage: 'GET /api/v1/packages/{id}' },
    financial: {
      listTransactions: 'GET /api/v1/financial/transactions',
      getFinancialSummary: 'GET /api/v1/financial/summary',
      listInstallments: 'GET /api/v1/financial/installments',
    },
    dashboard: {
      getDashboardStats: 'GET /api/v1/dashboard/stats',
      getDashboardDaily: 'GET /api/v1/dashboard/daily',
    },
    market: {
      listMarketProducts: 'GET /api/v1/market/products',
      listMarketCategories: 'GET /api/v1/market/categories',
    },
    staff: { listStaff: 'GET /api/v1/staff', getStaff: 'GET /api/v1/staff/{id}' },
    notifications: { listNotifications: 'GET /api/v1/notifications' },
    private_lessons: { listPrivateLessons: 'GET /api/v1/private-lessons' },
    presence: { listPresence: 'GET /api/v1/presence' },
  },
};
