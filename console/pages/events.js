// @ts-check
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorBox } from '../components/error-box.js';
import { Time } from '../components/ui.js';
import { api, currentToken } from '../lib/api.js';
import { EVENT_KINDS } from '../lib/event-kinds.js';
import { html } from '../lib/html.js';
import { updateQuery } from '../lib/router.js';
import { can } from '../lib/session.js';
import { EventStream } from '../lib/stream.js';
import { useApi } from '../lib/use-api.js';

/** The tail keeps this many events; older ones drop off the bottom. */
const KEEP = 300;

/**
 * The tail's own connection, filtered on the server (kinds, asset): the shell's shared
 * stream carries every kind for the other pages, and filtering here would still spend the
 * bandwidth. Pause closes it; resume reconnects with Last-Event-ID, so the server replays
 * what happened meanwhile and nothing is missed.
 * @param {{ events: string, asset_id: string }} filter
 */
function useTail(filter) {
  const [items, setItems] = useState(/** @type {import('../lib/stream.js').StreamEvent[]} */ ([]));
  const [state, setState] = useState(/** @type {import('../lib/stream.js').StreamState | null} */ (null));
  const stream = useRef(/** @type {EventStream | null} */ (null));
  useEffect(() => {
    setItems([]);
    const query = { ...(filter.events ? { events: filter.events } : {}), ...(filter.asset_id ? { asset_id: filter.asset_id } : {}) };
    const s = new EventStream({ getToken: currentToken, query });
    stream.current = s;
    const offEvents = s.subscribe((event) => {
      if (event.kind === 'stream.resumed') return;
      setItems((list) => [event, ...list].slice(0, KEEP));
    });
    const offState = s.onState((st) => setState({ ...st }));
    s.start();
    return () => {
      offEvents();
      offState();
      s.stop();
    };
  }, [filter.events, filter.asset_id]);
  return { items, state, pause: () => stream.current?.stop(), resume: () => stream.current?.start() };
}

/** One event's summary: the fields people scan for, the rest as JSON on demand. */
function EventRow({ event }) {
  const d = event.data ?? {};
  const summary = d.title ?? d.name ?? d.asset?.name ?? d.action_name ?? d.playbook_name ?? d.message ?? d.status ?? '';
  return html`
    <li class="event-row" data-kind=${event.kind}>
      <span class="event-head"><code>${event.kind}</code> <small>#${event.id}</small> ${d.timestamp ? html`<${Time} value=${d.timestamp} />` : null}</span>
      <span class="event-summary">${String(summary)}</span>
      <details><summary>Data</summary><pre class="prose">${JSON.stringify(d, null, 2)}</pre></details>
    </li>`;
}

/** A live tail of the tenant's events, filtered by kind and asset (kept in the URL), with pause and resume. */
export default function Events({ query }) {
  const kinds = (query.events ?? '').split(',').filter(Boolean);
  const tail = useTail({ events: query.events ?? '', asset_id: query.asset_id ?? '' });
  const assets = useApi((signal) => (can('assets:read') ? api.get('/api/assets', { sort_by: 'name', sort_order: 'asc', per_page: 100 }, signal) : Promise.resolve({ data: [] })), []);
  const toggle = (/** @type {string} */ kind) => updateQuery({ events: (kinds.includes(kind) ? kinds.filter((k) => k !== kind) : [...kinds, kind]).join(',') || null });
  const status = tail.state?.status ?? 'idle';
  const paused = status === 'stopped' && !tail.state?.error;
  const words = paused ? 'Paused' : status === 'live' ? 'Live' : status === 'stopped' ? 'Stopped' : status === 'reconnecting' ? 'Reconnecting…' : 'Connecting…';
  return html`
    <h1 tabindex="-1">Event stream</h1>
    <form class="panel" aria-label="Filter events" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <fieldset class="event-kinds"><legend>Kinds (none ticked: every kind)</legend>
        ${EVENT_KINDS.map((kind) => html`<label class="inline"><input type="checkbox" checked=${kinds.includes(kind)} onChange=${() => toggle(kind)} /> ${kind}</label>`)}
      </fieldset>
      <div class="filters">
        <div><label for="ev-asset">Asset</label>
          <select id="ev-asset" value=${query.asset_id ?? ''} onChange=${(/** @type {any} */ e) => updateQuery({ asset_id: e.currentTarget.value || null })}>
            <option value="">Any asset</option>${(assets.data?.data ?? []).map((/** @type {any} */ a) => html`<option value=${a.id}>${a.name}</option>`)}
          </select></div>
      </div>
    </form>
    <div class="toolbar">
      <span role="status" data-testid="tail-state" data-state=${paused ? 'paused' : status}>${words}${tail.state?.lastEventId ? html` · last event #${tail.state.lastEventId}` : null}</span>
      ${paused
        ? html`<button type="button" onClick=${tail.resume}>Resume</button>`
        : html`<button type="button" class="secondary" onClick=${tail.pause} disabled=${status === 'stopped'}>Pause</button>`}
      <span class="hint">${paused ? 'Resuming replays every event since the last one shown.' : `Newest first; the last ${KEEP} are kept.`}</span>
    </div>
    ${tail.state?.error ? html`<${ErrorBox} error=${tail.state.error} action=${status === 'stopped' ? 'read the event stream' : 'keep the stream connected (reconnecting by itself)'} />` : null}
    <ol class="plain-list event-tail" aria-label="Events, newest first" data-testid="event-tail">${tail.items.map((event, i) => html`<${EventRow} key=${event.id ?? `n${i}`} event=${event} />`)}</ol>
    ${!tail.items.length ? html`<p>No events yet${paused ? '' : ': waiting for the next one'}.</p>` : null}
  `;
}
