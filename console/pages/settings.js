// @ts-check
import { CredentialSettings } from '../components/credential-settings.js';
import { PersonalTokens } from '../components/personal-tokens.js';
import { PluginList } from '../components/plugin-list.js';
import { SiemSettings } from '../components/siem-settings.js';
import { TokenSettings } from '../components/token-settings.js';
import { NeedsScope } from '../components/ui.js';
import { html } from '../lib/html.js';
import { can } from '../lib/session.js';

/** A section that needs a scope: its content, or the reason it is not shown. */
function Section({ id, title, scope, children }) {
  return html`
    <section class="panel" aria-labelledby=${id}>
      <h2 id=${id}>${title}</h2>
      ${!scope || can(scope) ? children : html`<p>This section <${NeedsScope} scope=${scope} />.</p>`}
    </section>`;
}

/** Settings of the tenant: SIEM forwarding, credentials, your own and the tenant's API tokens, and the loaded plugins. */
export default function Settings() {
  return html`
    <h1 tabindex="-1">Settings</h1>
    <${Section} id="set-siem" title="SIEM integrations" scope="integrations:manage"><${SiemSettings} /><//>
    <${Section} id="set-cred" title="Credentials" scope="integrations:manage"><${CredentialSettings} /><//>
    <${Section} id="set-own-tokens" title="Your API tokens"><${PersonalTokens} /><//>
    <${Section} id="set-tokens" title="API tokens"><${TokenSettings} /><//>
    <${Section} id="set-plugins" title="Plugins loaded"><${PluginList} /><//>
  `;
}
