import * as oidc from 'openid-client';
import type { SsoConfig, SsoProviderConfig } from '../../config/sso-config.ts';
import { NotFoundError } from '../errors.ts';
import { SsoRefusal } from './sso-refusal.ts';

interface Discovered {
  server: oidc.ServerMetadata;
  jwks: oidc.ExportedJWKSCache | undefined;
}

/**
 * The configured providers and what their discovery documents say, read once per process
 * (again after a failure). Each sign-in gets its own openid-client Configuration, so the
 * clock (injected in tests) is the one of that call; the JWKS cache is carried between
 * them, and re-read by openid-client when a token names a key it does not have.
 */
export class SsoProviders {
  readonly #config: SsoConfig;
  readonly #discovered = new Map<string, Promise<Discovered>>();

  constructor(config: SsoConfig) {
    this.#config = config;
  }

  list(): Array<{ id: string; name: string }> {
    return this.#config.providers.map((p) => ({ id: p.id, name: p.name }));
  }

  get(id: string): SsoProviderConfig {
    const provider = this.#config.providers.find((p) => p.id === id);
    if (!provider) throw new NotFoundError('Sign-in provider');
    return provider;
  }

  /** A Configuration for one sign-in step, its clock `skewSeconds` off the real one (tests move it). */
  async configure(provider: SsoProviderConfig, skewSeconds = 0): Promise<{ config: oidc.Configuration; keep(): void }> {
    const found = await this.#discover(provider);
    const metadata: Partial<oidc.ClientMetadata> = {
      [oidc.clockSkew]: skewSeconds,
      [oidc.clockTolerance]: this.#config.clockToleranceSeconds,
      ...(provider.clientSecret ? { client_secret: provider.clientSecret } : { token_endpoint_auth_method: 'none' }),
    };
    const config = new oidc.Configuration(found.server, provider.clientId, metadata, provider.clientSecret ? oidc.ClientSecretBasic(provider.clientSecret) : oidc.None());
    if (this.#config.allowInsecureHttp) oidc.allowInsecureRequests(config);
    // openid-client checks the ID token's signature only when asked: the issue wants it checked against the JWKS.
    oidc.enableNonRepudiationChecks(config);
    if (found.jwks) oidc.setJwksCache(config, found.jwks);
    return { config, keep: () => void (found.jwks = oidc.getJwksCache(config) ?? found.jwks) };
  }

  #discover(provider: SsoProviderConfig): Promise<Discovered> {
    let pending = this.#discovered.get(provider.id);
    if (!pending) {
      const options = this.#config.allowInsecureHttp ? { execute: [oidc.allowInsecureRequests] } : undefined;
      pending = oidc.discovery(new URL(provider.issuer), provider.clientId, undefined, undefined, options).then(
        (c) => ({ server: c.serverMetadata(), jwks: undefined }),
        (err: Error) => {
          this.#discovered.delete(provider.id);
          throw new SsoRefusal('sso_unavailable', `discovery of ${provider.issuer} failed: ${err.message}`);
        },
      );
      this.#discovered.set(provider.id, pending);
    }
    return pending;
  }
}
