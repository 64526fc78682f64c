// Live updates for the dashboard: every poll interval (while the tab is
// visible) fetch this page again and swap each [data-live] part that
// changed, unless the operator is using it (focus inside, a confirmation
// open). The server renders everything; this script only moves HTML the
// server escaped. Without it the pages work, they just do not refresh.
(function () {
  const interval = Number(document.body.dataset.livePoll);
  if (!Number.isFinite(interval) || interval <= 0) return;
  let stopped = false;

  function inUse(element) {
    return element.contains(document.activeElement) || element.querySelector('details[open]') !== null;
  }

  async function refresh() {
    if (stopped || document.visibilityState !== 'visible') return;
    let response;
    try {
      response = await fetch(window.location.href, { credentials: 'same-origin', headers: { 'X-Vigil-Live': '1' }, redirect: 'manual' });
    } catch {
      return; // the service restarting: try again next time
    }
    if (response.type === 'opaqueredirect' || response.status === 401) {
      stopped = true; // signed out: the next navigation goes to the login form
      return;
    }
    if (!response.ok) return;
    const next = new DOMParser().parseFromString(await response.text(), 'text/html');
    for (const fresh of next.querySelectorAll('[data-live][id]')) {
      const current = document.getElementById(fresh.id);
      if (current === null || inUse(current) || current.innerHTML === fresh.innerHTML) continue;
      current.innerHTML = fresh.innerHTML;
    }
    document.body.dataset.liveUpdatedAt = String(Date.now());
  }

  setInterval(() => void refresh(), interval);
  document.addEventListener('visibilitychange', () => void refresh());
})();
