// The dueq dashboard: plain modules, no build step. Everything comes from /api (the server reads
// through the public Queue API). Text from jobs is only ever set as textContent, never as HTML.

const state = {
  token: sessionStorage.getItem('dueq-token') ?? '',
  queue: null,
  tab: 'ready',
  offset: 0,
  limit: 50,
  range: '15m',
  overview: null,
  detail: null,
  charts: {},
  openJob: null,
};

const $ = (id) => document.getElementById(id);

/** Makes an element: h('td', { class: 'mono' }, 'text', child…). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// ---------- time and numbers ----------

function duration(ms) {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(ms)} ms`;
  if (abs < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(abs / 1000);
  const d = Math.floor(s / 86400);
  const hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const text = d > 0 ? `${d}d ${hh}h` : hh > 0 ? `${hh}h ${mm}m` : `${mm}m ${s % 60}s`;
  return ms < 0 ? `-${text}` : text;
}

function relative(ms) {
  if (!ms) return '–';
  const delta = ms - Date.now();
  return delta >= 0 ? `in ${duration(delta)}` : `${duration(-delta)} ago`;
}

function clock(ms) {
  return ms ? new Date(ms).toLocaleTimeString([], { hour12: false }) : '–';
}

function stamp(ms) {
  return ms ? new Date(ms).toISOString().replace('T', ' ').replace('Z', '') : '–';
}

const fmt = new Intl.NumberFormat('en-US');

// ---------- API ----------

async function api(path, { method = 'GET' } = {}) {
  const headers = {};
  if (state.token) headers.authorization = `Bearer ${state.token}`;
  if (method !== 'GET') headers['x-dueq'] = '1';
  const response = await fetch(`/api/${path}`, { method, headers });
  const body = await response.json().catch(() => ({}));
  if (response.status === 401) {
    askToken();
    throw new Error(body.error ?? 'A token is required');
  }
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
  return body;
}

function askToken() {
  const dialog = $('token-dialog');
  if (!dialog.open) dialog.showModal();
}

$('token-form').addEventListener('submit', () => {
  state.token = $('token-input').value.trim();
  sessionStorage.setItem('dueq-token', state.token);
  refresh();
});

function toast(text, bad = false) {
  const el = $('toast');
  el.textContent = text;
  el.className = bad ? 'toast bad' : 'toast';
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    el.hidden = true;
  }, 3500);
}

async function act(path, done) {
  try {
    const result = await api(path, { method: 'POST' });
    toast(done(result));
    await refresh();
    if (state.openJob) openJob(state.openJob, true);
  } catch (error) {
    toast(error.message, true);
  }
}

// ---------- queues list ----------

function renderQueues() {
  const list = $('queue-list');
  const queues = state.overview?.queues ?? [];
  $('no-queues').hidden = queues.length > 0;
  list.replaceChildren(
    ...queues.map((q) =>
      h(
        'li',
        {},
        h(
          'a',
          {
            href: `#/queue/${encodeURIComponent(q.name)}`,
            class: q.name === state.queue ? 'on' : undefined,
            'data-testid': `queue-${q.name}`,
          },
          h(
            'div',
            { class: 'qname' },
            h('span', {}, q.name),
            q.counts.paused ? h('span', { class: 'badge paused' }, 'paused') : null,
          ),
          h(
            'div',
            { class: 'mini' },
            h('span', {}, `${fmt.format(q.counts.delayed)} delayed`),
            h('span', {}, `${fmt.format(q.counts.ready)} ready`),
            q.counts.active > 0 ? h('span', {}, `${fmt.format(q.counts.active)} active`) : null,
            q.counts.dead > 0 ? h('span', { class: 'dead' }, `${fmt.format(q.counts.dead)} dead`) : null,
          ),
        ),
      ),
    ),
  );
}

// ---------- one queue ----------

const CARDS = [
  ['delayed', 'Delayed', (d) => `next ${relative(d.nextDue)}`],
  [
    'ready',
    'Ready',
    (d) => (d.oldestReadyAgeMs > 0 ? `oldest waits ${duration(d.oldestReadyAgeMs)}` : 'none waiting'),
  ],
  ['active', 'Active', () => 'running now'],
  ['dead', 'Dead', (d) => `${fmt.format(d.totals.dead)} in all`],
  ['done', 'Done', (d) => `${fmt.format(d.totals.added)} added in all`],
];

function renderCards() {
  const d = state.detail;
  const cards = CARDS.map(([key, label, sub]) =>
    h(
      'div',
      {
        class: `card ${key}`,
        'data-testid': `count-${key}`,
        onclick: key === 'done' && !d ? undefined : () => setTab(key),
      },
      h('div', { class: 'label' }, label),
      h('div', { class: 'value' }, fmt.format(d.counts[key])),
      h('div', { class: 'sub' }, sub(d)),
    ),
  );
  cards.push(
    h(
      'div',
      { class: 'card', 'data-testid': 'count-schedules', onclick: () => setTab('schedules') },
      h('div', { class: 'label' }, 'Schedules'),
      h('div', { class: 'value' }, fmt.format(d.schedules.length)),
      h(
        'div',
        { class: 'sub' },
        `${fmt.format(d.totals.retried)} retries, ${fmt.format(d.totals.reclaimed)} reclaimed`,
      ),
    ),
  );
  $('cards').replaceChildren(...cards);
  $('queue-name').textContent = d.name;
  $('paused-badge').hidden = !d.counts.paused;
  $('pause').textContent = d.counts.paused ? 'Resume' : 'Pause';
  for (const button of $('tabs').querySelectorAll('button')) {
    const tab = button.dataset.tab;
    button.className = tab === state.tab ? 'on' : '';
    const count =
      tab === 'schedules' ? d.schedules.length : tab === 'events' || tab === 'done' ? null : d.counts[tab];
    if (button.dataset.label === undefined) button.dataset.label = button.textContent;
    button.replaceChildren(
      button.dataset.label,
      count === null ? '' : h('span', { class: 'count' }, fmt.format(count)),
    );
  }
}

$('pause').addEventListener('click', () => {
  const paused = state.detail?.counts.paused;
  act(`queues/${encodeURIComponent(state.queue)}/${paused ? 'resume' : 'pause'}`, () =>
    paused ? 'Resumed' : 'Paused: no new jobs start',
  );
});

function setTab(tab) {
  state.tab = tab;
  state.offset = 0;
  refresh();
}

for (const button of $('tabs').querySelectorAll('button'))
  button.addEventListener('click', () => setTab(button.dataset.tab));

function jobActions(job) {
  const q = encodeURIComponent(state.queue);
  const id = encodeURIComponent(job.id);
  const stop = (fn) => (event) => {
    event.stopPropagation();
    fn();
  };
  const buttons = [];
  if (job.state === 'delayed') {
    buttons.push(
      h(
        'button',
        {
          class: 'small',
          onclick: stop(() => act(`queues/${q}/jobs/${id}/run-now`, () => `Job ${job.id} runs now`)),
        },
        'Run now',
      ),
    );
  }
  if (job.state === 'dead') {
    buttons.push(
      h(
        'button',
        {
          class: 'small',
          'data-testid': 'replay',
          onclick: stop(() => act(`queues/${q}/jobs/${id}/run-now`, () => `Job ${job.id} replayed`)),
        },
        'Replay',
      ),
      h(
        'button',
        {
          class: 'small ghost',
          onclick: stop(() => act(`queues/${q}/jobs/${id}/remove`, () => `Job ${job.id} removed`)),
        },
        'Remove',
      ),
    );
  }
  if (job.state === 'delayed' || job.state === 'ready' || job.state === 'active') {
    buttons.push(
      h(
        'button',
        {
          class: 'small ghost',
          onclick: stop(() =>
            act(`queues/${q}/jobs/${id}/cancel`, (r) =>
              r.result === 'signalled' ? `Job ${job.id}: its AbortSignal fired` : `Job ${job.id} cancelled`,
            ),
          ),
        },
        'Cancel',
      ),
    );
  }
  return buttons;
}

function lastError(job) {
  return job.errors?.[job.errors.length - 1]?.message ?? '';
}

const COLUMNS = {
  delayed: [['Due', (j) => `${clock(j.dueAt)} (${relative(j.dueAt)})`]],
  ready: [
    ['Waiting', (j) => duration(Math.max(Date.now() - j.dueAt, 0))],
    ['Priority', (j) => j.priority || ''],
  ],
  active: [
    ['Started', (j) => relative(j.startedAt)],
    ['Progress', (j) => ((j.progress ?? '') === '' ? '' : j.progress)],
  ],
  dead: [
    ['Died', (j) => relative(j.finishedAt)],
    ['Last error', lastError, 'err'],
  ],
  done: [
    ['Finished', (j) => relative(j.finishedAt)],
    ['Result', (j) => (j.result === undefined ? '' : JSON.stringify(j.result))],
  ],
};

function renderJobs(page) {
  const rows = page.jobs.map((job) =>
    h(
      'tr',
      { onclick: () => openJob(job.id), 'data-testid': `job-${job.id}` },
      h('td', { class: 'mono' }, job.id),
      h('td', {}, job.type),
      h('td', {}, `${job.attempt}/${job.maxAttempts}`),
      ...COLUMNS[state.tab].map(([, get, cls]) => h('td', { class: cls }, get(job))),
      h('td', { class: 'actions' }, ...jobActions(job)),
    ),
  );
  const tools = [];
  if (state.tab === 'dead' && page.jobs.length > 0) {
    const q = encodeURIComponent(state.queue);
    tools.push(
      h(
        'button',
        {
          class: 'small',
          onclick: () => act(`queues/${q}/dead/replay?limit=10`, (r) => `Replayed ${r.replayed} dead jobs`),
        },
        'Replay oldest 10',
      ),
      h(
        'button',
        {
          class: 'small ghost',
          onclick: () =>
            act(`queues/${q}/dead/replay?limit=1000000`, (r) => `Replayed ${r.replayed} dead jobs`),
        },
        'Replay all',
      ),
    );
  }
  $('tab-tools').replaceChildren(...tools);
  if (rows.length === 0) {
    $('tab-body').replaceChildren(h('div', { class: 'none' }, `No ${state.tab} jobs.`));
  } else {
    $('tab-body').replaceChildren(
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, 'Id'),
            h('th', {}, 'Type'),
            h('th', {}, 'Attempt'),
            ...COLUMNS[state.tab].map(([title]) => h('th', {}, title)),
            h('th', {}),
          ),
        ),
        h('tbody', {}, rows),
      ),
    );
  }
  const total = page.total;
  const from = page.jobs.length ? state.offset + 1 : 0;
  const to = state.offset + page.jobs.length;
  $('pager').replaceChildren(
    h('span', {}, total === undefined ? `${from}–${to}` : `${from}–${to} of ${fmt.format(total)}`),
    h('button', { class: 'small ghost', disabled: state.offset === 0, onclick: () => page_(-1) }, '‹ Newer'),
    h(
      'button',
      { class: 'small ghost', disabled: page.jobs.length < state.limit, onclick: () => page_(1) },
      'Older ›',
    ),
  );
}

function page_(direction) {
  state.offset = Math.max(0, state.offset + direction * state.limit);
  refresh();
}

function renderSchedules() {
  $('tab-tools').replaceChildren();
  $('pager').replaceChildren();
  const schedules = state.detail.schedules;
  if (schedules.length === 0) {
    $('tab-body').replaceChildren(
      h('div', { class: 'none' }, 'No schedules. Add one with queue.schedule() or `dueq schedule set`.'),
    );
    return;
  }
  $('tab-body').replaceChildren(
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Name', 'When', 'Job type', 'Next', 'Runs', 'Overlap', 'Catch-up', 'Version'].map((t) =>
            h('th', {}, t),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        schedules.map((s) =>
          h(
            'tr',
            {},
            h('td', {}, s.name),
            h(
              'td',
              { class: 'mono' },
              s.cron ? `${s.cron}${s.tz ? ` (${s.tz})` : ''}` : `every ${duration(s.everyMs)}`,
            ),
            h('td', {}, s.type),
            h('td', {}, s.done ? 'done' : s.next ? `${clock(s.next)} (${relative(s.next)})` : '–'),
            h('td', {}, s.limit ? `${s.count}/${s.limit}` : s.count),
            h('td', {}, s.overlap),
            h('td', {}, s.catchUp),
            h('td', {}, s.version),
          ),
        ),
      ),
    ),
  );
}

function renderEvents(events) {
  $('tab-tools').replaceChildren();
  $('pager').replaceChildren();
  const rows = [];
  for (const e of events) {
    const jobs = e.jobs.length ? e.jobs : [{}];
    for (const job of jobs.slice(0, 20)) {
      const detail =
        job.error ??
        (job.durationMs !== undefined
          ? `ran ${duration(job.durationMs)}`
          : job.lateMs !== undefined
            ? `${job.lateMs} ms late`
            : job.dueAt
              ? `due ${relative(job.dueAt)}`
              : '');
      rows.push(
        h(
          'tr',
          { class: 'event-row', onclick: job.id ? () => openJob(job.id) : undefined },
          h('td', {}, clock(e.at)),
          h('td', {}, h('span', { class: `pill ${e.event}` }, e.event)),
          h('td', { class: 'mono' }, job.id ?? ''),
          h('td', {}, job.type ?? ''),
          h('td', {}, detail),
        ),
      );
    }
    if (e.jobs.length > 20)
      rows.push(h('tr', {}, h('td', {}), h('td', { colspan: 4 }, `… and ${e.jobs.length - 20} more`)));
  }
  $('tab-body').replaceChildren(
    rows.length
      ? h(
          'table',
          {},
          h('thead', {}, h('tr', {}, ...['Time', 'Event', 'Job', 'Type', ''].map((t) => h('th', {}, t)))),
          h('tbody', {}, rows),
        )
      : h('div', { class: 'none' }, 'No events yet.'),
  );
}

// ---------- job detail ----------

async function openJob(id, quiet = false) {
  try {
    const job = await api(`queues/${encodeURIComponent(state.queue)}/jobs/${encodeURIComponent(id)}`);
    state.openJob = id;
    showJob(job);
  } catch (error) {
    if (!quiet) toast(error.message, true);
    if (quiet) closeJob();
  }
}

function showJob(job) {
  $('drawer-title').textContent = job.id;
  const field = (label, value) => [h('dt', {}, label), h('dd', {}, value)];
  const body = [
    h(
      'dl',
      { class: 'fields' },
      field('Type', job.type),
      field('State', h('span', { class: `state ${job.state}`, 'data-testid': 'job-state' }, job.state)),
      field('Attempt', `${job.attempt} of ${job.maxAttempts}`),
      field('Due', `${stamp(job.dueAt)} (${relative(job.dueAt)})`),
      field('Created', stamp(job.createdAt)),
      job.startedAt ? field('Started', stamp(job.startedAt)) : null,
      job.finishedAt ? field('Finished', stamp(job.finishedAt)) : null,
      job.priority ? field('Priority', job.priority) : null,
      job.key ? field('Key', job.key) : null,
      job.timeoutMs ? field('Timeout', duration(job.timeoutMs)) : null,
      field('Backoff', JSON.stringify(job.backoff)),
      job.progress !== undefined ? field('Progress', job.progress) : null,
    ),
    h('h3', {}, 'Data'),
    h('pre', { class: 'mono' }, JSON.stringify(job.data, null, 2)),
  ];
  if (job.result !== undefined)
    body.push(h('h3', {}, 'Result'), h('pre', { class: 'mono' }, JSON.stringify(job.result, null, 2)));
  if (job.errors?.length) {
    body.push(
      h('h3', {}, `Errors (${job.errors.length})`),
      ...job.errors
        .slice()
        .reverse()
        .map((e) =>
          h(
            'div',
            { class: 'error-item' },
            h('div', { class: 'when' }, `attempt ${e.attempt} · ${stamp(e.at)}`),
            h('div', {}, e.message),
            e.stack ? h('pre', { class: 'mono' }, e.stack) : null,
          ),
        ),
    );
  }
  body.push(h('div', { class: 'actions' }, ...jobActions(job)));
  $('drawer-body').replaceChildren(...body);
  $('drawer').hidden = false;
}

function closeJob() {
  state.openJob = null;
  $('drawer').hidden = true;
}

$('drawer-close').addEventListener('click', closeJob);
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') closeJob();
  if (event.key === '/' && document.activeElement !== $('lookup-id')) {
    event.preventDefault();
    $('lookup-id').focus();
  }
});

$('lookup').addEventListener('submit', async (event) => {
  event.preventDefault();
  const id = $('lookup-id').value.trim();
  if (!id) return;
  try {
    const found = await api(`lookup?id=${encodeURIComponent(id)}`);
    location.hash = `#/queue/${encodeURIComponent(found.queue)}`;
    state.queue = found.queue;
    state.openJob = id;
    showJob(found.job);
    refresh();
  } catch (error) {
    toast(error.message, true);
  }
});

// ---------- charts ----------

function chart(id, series, values) {
  const el = $(id);
  const width = Math.max(el.clientWidth, 200);
  const existing = state.charts[id];
  if (existing && existing.width === width && existing.plot.series.length === series.length + 1) {
    existing.plot.setData(values);
    return;
  }
  existing?.plot.destroy();
  const plot = new uPlot(
    {
      width,
      height: 190,
      series: [{}, ...series],
      axes: [
        { stroke: '#6b7385', grid: { stroke: '#eef0f3' } },
        { stroke: '#6b7385', grid: { stroke: '#eef0f3' }, size: 50 },
      ],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
      scales: { y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
    },
    values,
    el,
  );
  state.charts[id] = { plot, width };
}

async function renderCharts() {
  if (!state.queue || typeof uPlot === 'undefined') return;
  const series = await api(`queues/${encodeURIComponent(state.queue)}/series?range=${state.range}`);
  const t = series.points.map((p) => p.t / 1000);
  const perSecond = (k) => series.points.map((p) => p[k] / (series.stepMs / 1000));
  chart(
    'chart-throughput',
    [
      { label: 'completed', stroke: '#2b8a3e', width: 2, fill: 'rgba(43,138,62,0.08)' },
      { label: 'added', stroke: '#3b5bdb', width: 1.5 },
      { label: 'failed', stroke: '#c92a2a', width: 1.5 },
    ],
    [t, perSecond('completed'), perSecond('added'), perSecond('failed')],
  );
  const late = (k) => series.points.map((p) => (p.lateness ? p.lateness[k] : null));
  chart(
    'chart-lateness',
    [
      { label: 'p50', stroke: '#1971c2', width: 2 },
      { label: 'p99', stroke: '#e8590c', width: 2 },
      { label: 'max', stroke: '#868e96', width: 1, dash: [4, 4] },
    ],
    [t, late('p50'), late('p99'), late('max')],
  );
}

for (const button of $('range').querySelectorAll('button')) {
  button.addEventListener('click', () => {
    state.range = button.dataset.range;
    for (const b of $('range').querySelectorAll('button')) b.className = b === button ? 'on' : '';
    renderCharts().catch(() => {});
  });
}

// ---------- refresh loop ----------

async function refresh() {
  try {
    state.overview = await api('overview');
    const live = $('live');
    live.className = 'live ok';
    $('live-text').textContent = `live · ${new Date().toLocaleTimeString([], { hour12: false })}`;
    renderQueues();
    if (!state.queue) {
      $('queue').hidden = true;
      $('welcome').hidden = false;
      return;
    }
    $('queue').hidden = false;
    $('welcome').hidden = true;
    const q = encodeURIComponent(state.queue);
    state.detail = await api(`queues/${q}`);
    const delayed = await api(`queues/${q}/jobs?state=delayed&limit=1`);
    state.detail.nextDue = delayed.jobs[0]?.dueAt;
    renderCards();
    if (state.tab === 'schedules') renderSchedules();
    else if (state.tab === 'events') renderEvents(await api(`queues/${q}/events?count=60`));
    else
      renderJobs(
        await api(`queues/${q}/jobs?state=${state.tab}&offset=${state.offset}&limit=${state.limit}`),
      );
  } catch (error) {
    $('live').className = 'live down';
    $('live-text').textContent = error.message;
  }
}

function route() {
  const match = /^#\/queue\/(.+)$/.exec(location.hash);
  const queue = match ? decodeURIComponent(match[1]) : null;
  if (queue !== state.queue) {
    state.queue = queue;
    state.offset = 0;
    for (const c of Object.values(state.charts)) c.plot.destroy();
    state.charts = {};
  }
  refresh();
  renderCharts().catch(() => {});
}

const fromHash = /token=([^&]+)/.exec(location.hash);
if (fromHash) {
  state.token = decodeURIComponent(fromHash[1]);
  sessionStorage.setItem('dueq-token', state.token);
  history.replaceState(null, '', location.pathname);
}

window.addEventListener('hashchange', route);
window.addEventListener('resize', () => renderCharts().catch(() => {}));
route();
setInterval(refresh, 2000);
setInterval(() => renderCharts().catch(() => {}), 5000);

// First visit with no queue picked: open the first one.
setTimeout(() => {
  if (!state.queue && state.overview?.queues?.length)
    location.hash = `#/queue/${encodeURIComponent(state.overview.queues[0].name)}`;
}, 300);
