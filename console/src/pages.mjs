// The console's pages, rendered on the server as plain HTML (no scripts):
// every value escaped, every key and task carried in links and forms as
// base64url of its bytes. Cells carry data-field attributes, which the
// browser tests read.

import { show } from './store.mjs';

const escapeHtml = (text) =>
  String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** A key, task or member for the page: its text, escaped. */
export const name = (bytes) => escapeHtml(show(bytes));
export const id = (bytes) => Buffer.from(bytes).toString('base64url');
const q = (params) => escapeHtml(new URLSearchParams(params).toString());

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d232a; background: #f6f7f9; }
header { background: #1d3557; color: #fff; padding: 10px 20px; display: flex; gap: 18px; align-items: center; flex-wrap: wrap; }
header a { color: #fff; text-decoration: none; } header a.here { text-decoration: underline; }
header .brand { font-weight: 700; } header .where { margin-left: auto; opacity: .85; font-size: 13px; }
.mode { padding: 2px 8px; border-radius: 10px; font-size: 12px; background: #457b9d; }
.mode.writable { background: #e63946; }
main { padding: 16px 20px; max-width: 1200px; }
h1 { font-size: 20px; margin: 4px 0 12px; } h2 { font-size: 16px; margin: 18px 0 8px; }
table { border-collapse: collapse; background: #fff; width: 100%; margin-bottom: 10px; }
th, td { text-align: left; padding: 5px 9px; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
th { background: #eef1f4; font-weight: 600; } td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.stats { display: flex; flex-wrap: wrap; gap: 10px; margin-bottom: 12px; }
.stat { background: #fff; border: 1px solid #e3e6ea; border-radius: 6px; padding: 8px 12px; min-width: 110px; }
.stat b { display: block; font-size: 18px; } .stat span { color: #5c6670; font-size: 12px; }
.tabs a { margin-right: 12px; } .tabs a.here { font-weight: 700; }
form.inline { display: inline; } button { cursor: pointer; }
button.danger { color: #fff; background: #c1121f; border: 0; padding: 4px 10px; border-radius: 4px; }
.note { color: #5c6670; font-size: 13px; } .flash { background: #e9f5ec; border: 1px solid #9bd3ad; padding: 8px 12px; margin-bottom: 12px; }
.warn { background: #fff4e5; border: 1px solid #f3c98b; padding: 8px 12px; }
.error { background: #fdecea; border: 1px solid #f5b5ae; padding: 8px 12px; } .here-row { background: #fff7d6; }
code { background: #eef1f4; padding: 1px 4px; border-radius: 3px; }
code[data-field="payload"] { white-space: pre-wrap; word-break: break-all; }`;

const NAV = [
  ['/', 'Overview'],
  ['/queues', 'Queues'],
  ['/boards', 'Boards'],
  ['/merges', 'Merges'],
  ['/rates', 'Rate logs'],
  ['/recent', 'Recent lists'],
];

/** A whole page: the header (where the console is connected, in which mode) and `body`. */
export function layout(ctx, title, body, section) {
  const nav = NAV.map(([href, label]) => `<a href="${href}"${href === section ? ' class="here"' : ''}>${label}</a>`).join('');
  const mode = ctx.writable ? '<span class="mode writable">writable</span>' : '<span class="mode">read-only</span>';
  const flash = ctx.flash ? `<p class="flash" id="flash">${escapeHtml(ctx.flash)}</p>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · zkit console</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body><header><span class="brand">zkit console</span>${nav}${mode}<span class="where">${escapeHtml(ctx.where)}</span></header>
<main><h1>${escapeHtml(title)}</h1>${flash}${body}</main></body></html>`;
}

const ERROR_TITLES = { 400: 'Bad request', 403: 'Refused', 404: 'Not found', 405: 'Method not allowed', 413: 'Form too large', 421: 'Wrong address' };

/** An error page: `title` if given, else the status's. */
export function errorPage(ctx, status, message, title = ERROR_TITLES[status] ?? 'Error') {
  return layout(ctx, title, `<p class="error">${escapeHtml(message)}</p>`);
}

const time = (ms) => (ms === null || ms === undefined || !Number.isFinite(ms) ? '—' : new Date(ms).toISOString().replace('.000Z', 'Z'));
const num = (value) => (value === null || value === undefined ? '—' : escapeHtml(value));

/** A span of milliseconds as people say it: 3 s, 4 min 10 s, 2 h 5 min, 3 d 4 h. */
export function duration(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const sign = ms < 0 ? '-' : '';
  let s = Math.floor(Math.abs(ms) / 1000);
  if (s < 60) return `${sign}${s} s`;
  const units = [['d', 86400], ['h', 3600], ['min', 60], ['s', 1]];
  const parts = [];
  for (const [unit, size] of units) {
    if (s >= size && parts.length < 2) {
      parts.push(`${Math.floor(s / size)} ${unit}`);
      s %= size;
    } else if (parts.length) break;
  }
  return sign + parts.join(' ');
}

/** A time (unix ms) and how long before or after the server's now it is. */
const when = (ms, nowMs) => `${time(ms)} <span class="note">(${ms <= nowMs ? `${duration(nowMs - ms)} ago` : `in ${duration(ms - nowMs)}`})</span>`;

function stat(field, label, value) {
  return `<div class="stat"><b data-field="${field}">${value}</b><span>${label}</span></div>`;
}

function pager(path, params, offset, shown, count) {
  const links = [];
  if (offset > 0) links.push(`<a href="${path}?${q({ ...params, offset: Math.max(0, offset - count) })}" id="prev">← previous ${count}</a>`);
  if (shown === count) links.push(`<a href="${path}?${q({ ...params, offset: offset + count })}" id="next">next ${count} →</a>`);
  return links.length ? `<p>${links.join(' · ')}</p>` : '';
}

/** A write's button: a form that asks for confirmation first. */
function action(ctx, label, fields, danger = false) {
  if (!ctx.writable) return '';
  const hidden = Object.entries({ ...fields, token: ctx.token })
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  return `<form class="inline" method="post" action="/confirm">${hidden}<button type="submit"${danger ? ' class="danger"' : ''} data-action="${escapeHtml(fields.action)}">${escapeHtml(label)}</button></form>`;
}

const ZKIT_AS = { module: 'module', functions: 'Functions library' };

/** The INFO zkit counters, summed over the nodes that run the module; what stands instead where none does. */
function counters(ctx, nodes) {
  const withModule = nodes.filter((node) => node.engine === 'module');
  if (withModule.length === 0) {
    return nodes.some((node) => node.engine === 'functions')
      ? '<p class="note">The Functions library keeps no counters: INFO zkit comes with the module only.</p>'
      : '<p class="note">zkit is not loaded: load the module (loadmodule), or its Functions library (FUNCTION LOAD of zkit.lua) where modules are refused.</p>';
  }
  const rows = Object.keys(withModule[0].counters)
    .filter((field) => field !== 'zkit_version')
    .map((field) => {
      const total = withModule.reduce((sum, node) => sum + Number(node.counters[field] ?? 0), 0);
      return `<tr><td><code>${escapeHtml(field)}</code></td><td class="n" data-field="${escapeHtml(field)}">${escapeHtml(total)}</td></tr>`;
    })
    .join('');
  const over = withModule.length < nodes.length ? ' (summed over the masters with the module)' : ctx.cluster ? ' (summed over masters)' : '';
  return `<table><tr><th>field</th><th class="n">value</th></tr>${rows}</table>
<p class="note">Counters count since the module loaded on each server${over}; docs/commands.md, "Observing zkit", says what each means.</p>`;
}

export function overview(ctx, { nodes, counts }) {
  const rows = nodes
    .map((node) => {
      const zkit = node.engine ? `${ZKIT_AS[node.engine]} ${node.version}` : 'not loaded';
      return `<tr><td>${escapeHtml(node.address)}</td><td>${escapeHtml(node.server ?? '?')}</td><td data-field="zkit">${escapeHtml(zkit)}</td></tr>`;
    })
    .join('');
  const found = [
    ['/queues', 'queues', counts.queues],
    ['/boards', 'boards', counts.boards],
    ['/merges', 'merges in progress', counts.merges],
    ['/rates', 'rate logs', counts.rates],
    ['/recent', 'recently-viewed lists', counts.recents],
  ]
    .map(([href, label, n]) => stat(`count-${label.split(' ')[0]}`, `<a href="${href}">${label}</a>`, n))
    .join('');
  return layout(
    ctx,
    'Overview',
    `<div class="stats">${found}</div>
<h2>${ctx.cluster ? 'Masters' : 'Server'}</h2><table><tr><th>address</th><th>server</th><th>zkit</th></tr>${rows}</table>
<h2>INFO zkit</h2><div id="counters">${counters(ctx, nodes)}</div>`,
    '/',
  );
}

const incomplete = (keys) => (keys.complete === false ? '<p class="note">Only the first keys found are listed: narrow the pattern or raise --max-keys.</p>' : '');

export function queueList(ctx, rows) {
  const body = rows
    .map(({ queue, stats }) => {
      const cells = [
        ['tasks', stats.tasks],
        ['due', stats.due],
        ['lag', duration(stats.oldestDueAgeMs)],
        ['next-due', stats.nextDueMs === null ? '—' : `in ${duration(stats.nextDueMs - stats.nowMs)}`],
        ['inflight', num(stats.inflight)],
        ['expired', num(stats.expired)],
        ['dead', num(stats.dead)],
        ['redelivered', num(stats.redelivered)],
        ['paused', pausedText(stats.paused)],
        ['capped-groups', num(stats.cappedGroups)],
      ];
      return `<tr data-queue="${name(queue.key)}"><td><a href="/queue?${q({ k: id(queue.key) })}">${name(queue.key)}</a></td>${cells
        .map(([field, value]) => `<td class="n" data-field="${field}">${value}</td>`)
        .join('')}</tr>`;
    })
    .join('');
  return layout(
    ctx,
    'Queues',
    rows.length
      ? `<table><tr><th>queue</th><th class="n">tasks</th><th class="n">due</th><th class="n">lag</th><th class="n">next due</th><th class="n">in flight</th><th class="n">expired leases</th><th class="n">dead</th><th class="n">redelivered</th><th class="n">paused</th><th class="n">capped groups</th></tr>${body}</table>
<p class="note">Lag: how long the oldest due task has waited. Expired leases: tasks whose worker died or is late. Paused: polls that name the queue's DATA hash deliver nothing (— when it has none). Capped groups: tenants (DELAY.GROUP) at their cap of tasks in flight or their rate, whose due tasks wait while the others' are served. From DELAY.STATS, O(log N) per queue.</p>`
      : '<p>No queue matches the --queue patterns.</p>',
    '/queues',
  );
}

const pausedText = (paused) => (paused === null || paused === undefined ? '—' : paused ? 'paused' : 'no');

/** Characters of a payload a queue's row shows, and a task's page. */
const PAYLOAD_ROW_CHARS = 80;
const PAYLOAD_PAGE_CHARS = 65536;

/** A payload (bytes) for a page: its text, escaped, cut to `chars` characters, with its size; — when there is none. */
function payloadCell(payload, chars) {
  if (payload === null || payload === undefined) return '<span data-field="payload">—</span>';
  const text = [...show(payload)];
  const cut = text.length > chars ? `${text.slice(0, chars).join('')}…` : text.join('');
  return `<code data-field="payload">${escapeHtml(cut)}</code> <span class="note" data-field="payload-bytes">${payload.length} B</span>`;
}

const TABS = [
  ['ready', 'Ready and scheduled'],
  ['inflight', 'In flight'],
  ['dead', 'Dead'],
];

export function queuePage(ctx, { queue, stats, tab, offset, count, rows }) {
  const k = id(queue.key);
  const header = [
    stat('tasks', 'tasks', stats.tasks),
    stat('due', 'due now', stats.due),
    stat('lag', 'lag (oldest due)', duration(stats.oldestDueAgeMs)),
    stat('next-due', 'next due', stats.nextDueMs === null ? '—' : `in ${duration(stats.nextDueMs - stats.nowMs)}`),
    stat('inflight', 'in flight', num(stats.inflight)),
    stat('expired', 'expired leases', num(stats.expired)),
    stat('dead', 'dead', num(stats.dead)),
    stat('redelivered', 'redelivered', num(stats.redelivered)),
    stat('paused', 'paused', pausedText(stats.paused)),
    stat('capped-groups', 'capped groups', num(stats.cappedGroups)),
  ].join('');
  const sets = ['inflight', 'dead', 'deliveries', 'data']
    .map((set) => `${set}: ${queue[set] ? `<code>${name(queue[set])}</code>` : '—'}`)
    .join(' · ');
  const tabs = TABS.filter(([t]) => t === 'ready' || queue[t])
    .map(([t, label]) => `<a href="/queue?${q({ k, tab: t })}"${t === tab ? ' class="here"' : ''} data-tab="${t}">${label}</a>`)
    .join('');
  const scoreLabel = { ready: 'due', inflight: 'lease ends', dead: 'died' }[tab];
  const back = `/queue?${new URLSearchParams({ k, tab, offset: String(offset) })}`;
  const list = rows
    .map((row) => {
      const task = id(row.member);
      const fields = { queue: k, task, back };
      const actions = [];
      if (tab === 'ready' && row.score > stats.nowMs) actions.push(action(ctx, 'Promote to now', { ...fields, action: 'promote' }));
      if (tab === 'dead') actions.push(action(ctx, 'Retry', { ...fields, action: 'retry' }));
      actions.push(action(ctx, 'Delete', { ...fields, action: `delete-${tab}` }, true));
      const job = queue.data
        ? `<td>${payloadCell(row.payload, PAYLOAD_ROW_CHARS)}</td><td data-field="reason">${row.reason === null ? '—' : name(row.reason)}</td><td data-field="worker">${row.worker === null ? '—' : name(row.worker)}</td>`
        : '';
      return `<tr data-task="${name(row.member)}"><td><a href="/task?${q({ k, t: task })}" data-field="task">${name(row.member)}</a></td>${job}<td>${when(row.score, stats.nowMs)}</td><td class="n" data-field="deliveries">${num(row.deliveries)}</td>${ctx.writable ? `<td>${actions.join(' ')}</td>` : ''}</tr>`;
    })
    .join('');
  const retryAll = tab === 'dead' && rows.length ? `<p>${action(ctx, 'Retry all dead tasks', { queue: k, action: 'retry-all', back, task: '' })}</p>` : '';
  const pause = queue.data ? pauseLine(ctx, k, stats, back) : '';
  const jobHeads = queue.data ? '<th>payload</th><th>last failure</th><th>held by</th>' : '';
  const deliveriesHead = tab === 'dead' ? 'deliveries it died with' : 'deliveries';
  return layout(
    ctx,
    `Queue ${show(queue.key)}`,
    `<div class="stats">${header}</div><p class="note">Sets: ${sets}. Server time ${time(stats.nowMs)}.</p>
${pause}<p class="tabs">${tabs}</p>${retryAll}
${rows.length ? `<table id="tasks"><tr><th>task</th>${jobHeads}<th>${scoreLabel}</th><th class="n">${deliveriesHead}</th>${ctx.writable ? '<th>actions</th>' : ''}</tr>${list}</table>` : '<p id="tasks">No tasks here.</p>'}
${pager('/queue', { k, tab }, offset, rows.length, count)}`,
    '/queues',
  );
}

/** Whether the queue is paused, and on a writable console the button that pauses or resumes it. */
function pauseLine(ctx, k, stats, back) {
  const button = stats.paused
    ? action(ctx, 'Resume the queue', { queue: k, action: 'resume', back, task: '' })
    : action(ctx, 'Pause the queue', { queue: k, action: 'pause', back, task: '' });
  const state = stats.paused
    ? '<b id="paused">Paused</b>: polls that name the DATA hash deliver nothing; tasks are still added, and leased ones still run.'
    : '<span id="paused">Not paused.</span>';
  return `<div class="${stats.paused ? 'warn' : 'note'}">${state} ${button}</div>`;
}

const STATE_NAMES = { queued: 'queued (ready or scheduled)', inflight: 'in flight', dead: 'dead' };
const STATE_TABS = { queued: 'ready', inflight: 'inflight', dead: 'dead' };

/** One task's state and history, DELAY.JOB's. */
export function taskPage(ctx, { queue, task, stats, job }) {
  const k = id(queue.key);
  const scoreLabel = { queued: 'due', inflight: 'lease ends', dead: 'died' }[job.state] ?? 'score';
  const rows = [
    ['state', 'state', job.state === null ? 'in none of the queue’s sets' : escapeHtml(STATE_NAMES[job.state] ?? job.state)],
    ['score', scoreLabel, job.score === null ? '—' : when(job.score, stats.nowMs)],
    ['deliveries', job.state === 'dead' ? 'deliveries it died with' : 'deliveries', num(job.deliveries)],
    ['last-reason', 'last failure', job.lastReason === null ? '—' : name(job.lastReason)],
    ['worker', 'held by', job.worker === null ? '—' : name(job.worker)],
    ['deadline', 'not started by', time(job.deadlineMs)],
  ]
    .map(([field, label, value]) => `<tr><th>${label}</th><td data-field="${field}">${value}</td></tr>`)
    .join('');
  const tab = STATE_TABS[job.state];
  const back = tab ? `<p><a href="/queue?${q({ k, tab })}" id="back">Back to the queue</a></p>` : '';
  const data = queue.data ? '' : '<p class="note">This queue names no DATA hash: no payload or history to show.</p>';
  return layout(
    ctx,
    `Task ${show(task)} in ${show(queue.key)}`,
    `<table id="job">${rows}<tr><th>payload</th><td>${payloadCell(job.payload, PAYLOAD_PAGE_CHARS)}</td></tr></table>${data}
<p class="note">From DELAY.JOB: where the task is, and its payload and history from the DATA hash. Server time ${time(stats.nowMs)}.</p>${back}`,
    '/queues',
  );
}

export function confirmPage(ctx, { title, what, fields }) {
  const hidden = Object.entries({ ...fields, token: ctx.token })
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  return layout(
    ctx,
    title,
    `<p>This runs on the server:</p><p><code id="what">${escapeHtml(what)}</code></p>
<form method="post" action="/do">${hidden}<button type="submit" class="danger" id="confirm">Yes, ${escapeHtml(title.toLowerCase())}</button> <a href="${escapeHtml(fields.back)}" id="cancel">Cancel</a></form>`,
  );
}

export function boardList(ctx, rows, keys) {
  const body = rows
    .map(({ key, stats }) => {
      const cells = [
        ['members', stats.members],
        ['top-total', num(stats.topTotal)],
        ['p99-total', num(stats.p99Total)],
        ['p90-total', num(stats.p90Total)],
        ['p50-total', num(stats.p50Total)],
        ['bottom-total', num(stats.bottomTotal)],
        ['memory-bytes', stats.memoryBytes],
      ];
      return `<tr data-board="${name(key)}"><td><a href="/board?${q({ k: id(key) })}">${name(key)}</a></td>${cells.map(([f, v]) => `<td class="n" data-field="${f}">${v}</td>`).join('')}</tr>`;
    })
    .join('');
  return layout(
    ctx,
    'Boards',
    rows.length
      ? `<table><tr><th>board</th><th class="n">members</th><th class="n">top</th><th class="n">p99</th><th class="n">p90</th><th class="n">median</th><th class="n">bottom</th><th class="n">bytes</th></tr>${body}</table>${incomplete(keys)}
<p class="note">From RANK.STATS: totals at the top, the 99th, 90th and 50th percentile of members, the bottom; memory as MEMORY USAGE estimates it.</p>`
      : '<p>No board matches the --board patterns.</p>',
    '/boards',
  );
}

/** A board's page as a table: rank, member, total, and the member data where the board has a data hash (RANK's DATA). */
/** A board's rows: rank, member, total (with columns, each column's value in its place), and with data the member's data. */
const entryTable = (tableId, entries, withData, highlight, columns = null) => {
  const rows = entries
    .map((e) => {
      const data = withData ? `<td data-field="data">${e.data == null ? '—' : name(e.data)}</td>` : '';
      const values =
        columns === null
          ? `<td class="n" data-field="total">${e.total}</td>`
          : e.columns.map((value, i) => `<td class="n" data-field="column-${i + 1}">${value}</td>`).join('');
      return `<tr data-member="${name(e.member)}"${highlight !== undefined && show(e.member) === highlight ? ' class="here-row"' : ''}><td class="n" data-field="rank">${e.rank}</td><td>${name(e.member)}</td>${values}${data}</tr>`;
    })
    .join('');
  const heads = columns === null ? '<th class="n">total</th>' : columns.map((column) => `<th class="n">${name(column)}</th>`).join('');
  return `<table id="${tableId}"><tr><th class="n">rank</th><th>member</th>${heads}${withData ? '<th>data</th>' : ''}</tr>${rows}</table>`;
};

export function boardPage(ctx, { key, data, asc, columns = null, stats, offset, count, top, member, lookup }) {
  const withData = data !== null;
  const k = id(key);
  const header = [
    stat('members', 'members', stats.members),
    stat('top-total', 'top total', num(stats.topTotal)),
    stat('p50-total', 'median total', num(stats.p50Total)),
    stat('memory-bytes', 'bytes', stats.memoryBytes),
  ].join('');
  let found = '';
  if (member !== undefined) {
    const memberData = withData && lookup.entry?.data != null ? `, data <b data-field="member-data">${name(lookup.entry.data)}</b>` : '';
    found = lookup.entry
      ? `<p id="lookup">${escapeHtml(member)}: rank <b data-field="member-rank">${lookup.entry.rank}</b>, total <b data-field="member-total">${lookup.entry.total}</b>${columns !== null ? ` (${columns.map((column, i) => `${name(column)} <b data-field="member-column-${i + 1}">${lookup.entry.columns[i]}</b>`).join(', ')})` : ''}, reached ${time(lookup.entry.reachedAtMs)}${memberData}.</p>
${entryTable('around', lookup.around, withData, member, columns)}`
      : `<p id="lookup">${escapeHtml(member)} is not on this board.</p>`;
  }
  return layout(
    ctx,
    `Board ${show(key)}`,
    `<div class="stats">${header}</div>
<form method="get" action="/board"><input type="hidden" name="k" value="${escapeHtml(k)}"><label>Member <input name="member" id="member" value="${escapeHtml(member ?? '')}"></label> <button type="submit" id="find">Find with neighbours</button></form>
${found}
<h2>Top ${count}${offset ? ` from rank ${offset + 1}` : ''}</h2>
${entryTable('top', top, withData, undefined, columns)}
${columns !== null ? `<p class="note" id="columns">Ranked by ${columns.map((column) => name(column)).join(', then ')}, then first-come (RANK.COLUMNS); the header's totals are the columns packed.</p>` : ''}
${asc ? '<p class="note" id="ascending">The lowest total ranks first on this board (RANK\'s ASC).</p>' : ''}
${withData ? `<p class="note">Member data from the hash ${name(data)} (RANK's DATA).</p>` : ''}
${pager('/board', { k }, offset, top.length, count)}`,
    '/boards',
  );
}

export function mergeList(ctx, rows, keys) {
  const body = rows
    .map((m) => `<tr data-staging="${name(m.key)}"><td>${name(m.key)}</td><td class="n" data-field="members">${m.members}</td><td class="n">${m.ttlMs < 0 ? 'none' : duration(m.ttlMs)}</td></tr>`)
    .join('');
  return layout(
    ctx,
    'Merges in progress',
    `<p class="note">A stepped RANK.MERGE builds its result in a staging key and renames it onto the destination at its last step: a staging key that exists is a merge under way (or one abandoned, which the next merge with cursor 0 clears).</p>
${rows.length ? `<table><tr><th>staging key</th><th class="n">members merged so far</th><th class="n">expires in</th></tr>${body}</table>${incomplete(keys)}` : '<p>No merge in progress (no key matches the --staging patterns).</p>'}`,
    '/merges',
  );
}

export function rateList(ctx, rows) {
  const windows = [...new Set(rows.flatMap((r) => r.stats.windows.map((w) => w.windowMs)))].sort((a, b) => a - b);
  const body = rows
    .map(({ log, stats }) => {
      const byWindow = new Map(stats.windows.map((w) => [w.windowMs, w.entries]));
      return `<tr data-log="${name(log.key)}"><td>${name(log.key)}</td><td class="n" data-field="entries">${stats.entries}</td><td>${time(stats.newestMs)}</td>${windows
        .map((w) => `<td class="n" data-field="window-${w}">${byWindow.has(w) ? byWindow.get(w) : '—'}</td>`)
        .join('')}</tr>`;
    })
    .join('');
  return layout(
    ctx,
    'Rate logs',
    rows.length
      ? `<table><tr><th>log</th><th class="n">entries</th><th>newest hit</th>${windows.map((w) => `<th class="n">in the last ${duration(w)}</th>`).join('')}</tr>${body}</table>
<p class="note">From RATE.STATS: what RATE.HIT would count now in each window (counting no hit).</p>`
      : '<p>No rate log matches the --rate patterns.</p>',
    '/rates',
  );
}

export function recentList(ctx, rows) {
  const body = rows.map((r) => `<tr><td><a href="/recent?${q({ k: id(r.key) })}">${name(r.key)}</a></td><td class="n" data-field="size">${r.size}</td></tr>`).join('');
  return layout(
    ctx,
    'Recently-viewed lists',
    rows.length ? `<table><tr><th>list</th><th class="n">items</th></tr>${body}</table>` : '<p>No list matches the --recent patterns.</p>',
    '/recent',
  );
}

export function recentPage(ctx, { key, items }) {
  const body = items.map((i) => `<tr data-item="${name(i.member)}"><td>${name(i.member)}</td><td>${time(i.score)}</td></tr>`).join('');
  return layout(
    ctx,
    `Recently viewed ${show(key)}`,
    `<table id="items"><tr><th>item, newest first</th><th>viewed</th></tr>${body}</table>`,
    '/recent',
  );
}
