/** The roles a process can play (`--role`); `all` is every one. */
export type Role = 'api' | 'worker' | 'scheduler';
export const ROLES: readonly Role[] = ['api', 'worker', 'scheduler'];
