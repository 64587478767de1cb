/**
 * Why a sign-in through a provider was refused. `code` travels to the console in the
 * redirect's fragment, which turns it into words (console/lib/sso.js); `detail` is for
 * the log only (it may name claims), never for the browser.
 */
export type SsoRefusalCode =
  | 'sso_unknown_state' // no sign-in was started with this state (or it was removed)
  | 'sso_state_replayed' // the provider's answer for this sign-in already arrived once
  | 'sso_expired' // the sign-in took longer than sso.loginTimeoutSeconds
  | 'sso_provider_error' // the provider answered with an error (access_denied…)
  | 'sso_invalid_token' // the code exchange or the ID token failed a check
  | 'sso_no_access' // no configured group of the user maps to a tenant
  | 'sso_ambiguous_tenant' // the user's groups map to more than one tenant
  | 'sso_unknown_tenant' // the mapping names a tenant that does not exist
  | 'sso_tenant_changed' // the identity already belongs to a user of another tenant
  | 'sso_email_taken' // the email is a local account's
  | 'sso_user_disabled' // an administrator disabled the user
  | 'sso_unavailable'; // the provider could not be reached

export class SsoRefusal extends Error {
  readonly code: SsoRefusalCode;
  readonly detail: string;

  constructor(code: SsoRefusalCode, detail: string) {
    super(`${code}: ${detail}`);
    this.name = 'SsoRefusal';
    this.code = code;
    this.detail = detail;
  }
}
