// @ts-check
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { html } from '../lib/html.js';

/**
 * New vs resolved findings per day (uPlot). The two lines differ by dash and point
 * shape as well as colour, and the same numbers are in a table below the chart for
 * screen readers and for anyone who cannot tell the colours apart.
 * @param {{ days: Array<{ date: string, new: number, resolved: number }> }} props
 */
export function TrendChart({ days }) {
  const box = useRef(/** @type {HTMLDivElement | null} */ (null));
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const xs = days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    const width = () => Math.max(280, el.clientWidth);
    const chart = new uPlot(
      {
        width: width(),
        height: 240,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        axes: [{ stroke: '#1b1f24' }, { stroke: '#1b1f24', label: 'findings' }],
        series: [
          { label: 'Day (UTC)' },
          { label: 'New', stroke: '#9a3412', width: 2, points: { show: true, size: 6, fill: '#9a3412' } },
          { label: 'Resolved', stroke: '#1e40af', width: 2, dash: [8, 5], points: { show: true, size: 6, fill: '#ffffff' } },
        ],
        legend: { live: false },
        cursor: { drag: { x: false, y: false } },
      },
      [xs, days.map((d) => d.new), days.map((d) => d.resolved)],
      el,
    );
    const observer = new ResizeObserver(() => chart.setSize({ width: width(), height: 240 }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [days]);
  const totalNew = days.reduce((n, d) => n + d.new, 0);
  const totalResolved = days.reduce((n, d) => n + d.resolved, 0);
  return html`
    <figure class="trend">
      <div ref=${box} class="trend-canvas" role="img" aria-label=${`Line chart of the last 30 days: ${totalNew} new findings, ${totalResolved} resolved`}></div>
      <figcaption>New (solid line, filled points) and resolved (dashed line, hollow points) findings per UTC day.</figcaption>
      <details>
        <summary>Show the numbers as a table</summary>
        <div class="table-wrap" tabindex="0">
          <table>
            <caption class="visually-hidden">Findings per day, last 30 days</caption>
            <thead><tr><th scope="col">Day (UTC)</th><th scope="col">New</th><th scope="col">Resolved</th></tr></thead>
            <tbody>${days.map((d) => html`<tr key=${d.date}><th scope="row">${d.date}</th><td>${d.new}</td><td>${d.resolved}</td></tr>`)}</tbody>
          </table>
        </div>
      </details>
    </figure>
  `;
}
