/**
 * The waiting room's pages, in the hosted checkout's look (its layout and
 * stylesheet). The waiting page alone runs a script, served from this site
 * (`/waiting-room.js`): it polls the queue's status with backoff and updates
 * the page in place; without scripts the page refreshes itself every 30 s.
 */
import { e, layout, localStart, type EventSummary } from './pages';
import type { Visit } from '../domain/waiting-room';

/** Where the waiting page polls, and where an admitted visitor is sent. */
export interface WaitingUrls {
  page: string;
  status: string;
  rejoin: string;
}

const STYLE = `<style>.queue{font-size:1.25rem}.queue strong{font-size:2rem;display:block}.keep{font-weight:600}</style>`;

function heading(event: EventSummary): string {
  const when = `<time datetime="${e(event.startsAt)}" title="${e(event.timezone)}">${e(localStart(event.startsAt, event.timezone))}</time>`;
  return `<h1>${e(event.title)}</h1><p class="when">${when}${event.venue ? ` · ${e(event.venue)}` : ''}</p>`;
}

/** "about 3 minutes", "less than a minute", "about 2 hours" */
export function waitText(seconds: number): string {
  if (seconds < 60) return 'less than a minute';
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `about ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  return `about ${hours} hour${hours === 1 ? '' : 's'}`;
}

/** Before the opening (a countdown) or in the queue (a position and a wait). */
export function waitingPage(event: EventSummary, visit: Extract<Visit, { kind: 'before_opening' | 'waiting' }>, urls: WaitingUrls, notice?: string): string {
  const status =
    visit.kind === 'before_opening'
      ? `<p class="queue">The sale opens in <strong id="countdown" role="timer" data-opens-at="${visit.opensAt.getTime()}">${e(waitText((visit.opensAt.getTime() - Date.now()) / 1000))}</strong></p>
<p>When it opens, everyone waiting here is put in a random order: arriving earlier gives no advantage.</p>`
      : `<p class="queue">Your place in the queue: <strong id="position" data-testid="position">${visit.position}</strong></p>
<p>Estimated wait: <span id="wait" data-testid="wait">${e(waitText(visit.waitSeconds))}</span></p>`;
  const body = `${heading(event)}${notice ? `<p class="error" role="alert" data-testid="notice">${e(notice)}</p>` : ''}
<section aria-labelledby="queue-heading"><h2 id="queue-heading">You are in the queue</h2>
<div id="queue-status" role="status" aria-live="polite" data-status-url="${e(urls.status)}" data-page-url="${e(urls.page)}">${status}</div>
<p class="notice keep" data-testid="keep-place">Do not refresh: you keep your place. This page updates by itself and takes you to the tickets when it is your turn.</p>
</section>`;
  return layout(`Queue · ${event.title}`, body)
    .replace('</head>', `${STYLE}<noscript><meta http-equiv="refresh" content="30"></noscript></head>`)
    .replace('</body>', '<script src="/waiting-room.js" defer></script></body>');
}

export function turnLapsedPage(event: EventSummary, urls: WaitingUrls, reason: string): string {
  return layout(
    `Your turn has passed · ${event.title}`,
    `${heading(event)}<h2>Your turn has passed</h2><p class="error" role="alert" data-testid="error">${e(reason)}</p>
<form method="post" action="${e(urls.rejoin)}"><button type="submit">Join the queue again</button></form>`,
  );
}

export function refusedPassPage(event: EventSummary, urls: WaitingUrls, title: string, reason: string): string {
  return layout(`${title} · ${event.title}`, `${heading(event)}<h2>${e(title)}</h2><p class="error" role="alert" data-testid="error">${e(reason)}</p>
<p><a href="${e(urls.page)}">Go to the queue for this event</a></p>`);
}

/** The script of the waiting page: polls with backoff, updates in place, leaves when admitted. */
export const WAITING_ROOM_SCRIPT = `(function () {
  var box = document.getElementById('queue-status');
  if (!box) return;
  var statusUrl = box.getAttribute('data-status-url');
  var pageUrl = box.getAttribute('data-page-url');
  var failures = 0;
  function text(seconds) {
    if (seconds < 60) return 'less than a minute';
    var minutes = Math.round(seconds / 60);
    if (minutes < 90) return 'about ' + minutes + ' minute' + (minutes === 1 ? '' : 's');
    var hours = Math.round(minutes / 60);
    return 'about ' + hours + ' hour' + (hours === 1 ? '' : 's');
  }
  function countdown() {
    var el = document.getElementById('countdown');
    if (!el) return;
    var left = Number(el.getAttribute('data-opens-at')) - Date.now();
    var seconds = Math.max(0, Math.ceil(left / 1000));
    var shown = seconds < 120 ? seconds + ' second' + (seconds === 1 ? '' : 's') : text(seconds);
    if (el.textContent !== shown) el.textContent = shown;
  }
  setInterval(countdown, 1000);
  function render(state) {
    if (state.state === 'waiting') {
      box.innerHTML = '<p class="queue">Your place in the queue: <strong id="position" data-testid="position"></strong></p><p>Estimated wait: <span id="wait" data-testid="wait"></span></p>';
      document.getElementById('position').textContent = String(state.position);
      document.getElementById('wait').textContent = text(state.wait_seconds);
    } else if (state.state === 'before_opening') {
      var el = document.getElementById('countdown');
      if (el) el.setAttribute('data-opens-at', String(Date.now() + state.opens_in_ms));
    }
  }
  function poll() {
    fetch(statusUrl, { credentials: 'same-origin', headers: { Accept: 'application/json' }, cache: 'no-store' })
      .then(function (res) { if (!res.ok && res.status !== 429) throw new Error(String(res.status)); return res.json(); })
      .then(function (state) {
        failures = 0;
        if (state.state === 'admitted' || state.state === 'open' || state.state === 'turn_lapsed' || state.state === 'address_limited') {
          window.location.replace(pageUrl);
          return;
        }
        render(state);
        setTimeout(poll, state.poll_after_ms || 5000);
      })
      .catch(function () {
        failures += 1;
        setTimeout(poll, Math.min(60000, 2000 * Math.pow(2, failures)) * (0.5 + Math.random() / 2));
      });
  }
  setTimeout(poll, 1000 + Math.random() * 2000);
})();
`;
