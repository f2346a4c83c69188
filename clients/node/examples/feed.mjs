// Feed: pages newest first with exact cursors; pull-down for newer items,
// pull-up for older ones, never repeating or skipping an item. (ioredis)
import assert from 'node:assert/strict';
import { zkit } from 'zkit';

const items = (from, to) => Array.from({ length: to - from }, (_, i) => ({ score: from + i, member: `item:${from + i}` }));
const members = (page) => page.items.map((item) => item.member);

export async function feed(redis, prefix = '') { // prefix: your app's key namespace
  const z = zkit(redis);
  const key = `${prefix}feed:user:7`;
  assert.equal(await z.feedAdd(key, items(100, 116), { cap: 500 }), 16);
  let page = await z.feedPage(key, { count: 3 }); // first load: newest first
  assert.deepEqual(members(page), ['item:115', 'item:114', 'item:113']);
  let { top } = page; // keep both cursors
  const { bottom } = page;

  await z.feedAdd(key, items(116, 120), { cap: 500 });
  let newer = [];
  do { // pull-down: repeat until nothing newer remains
    page = await z.feedPage(key, { count: 3, newer: top });
    newer = [...members(page), ...newer]; // later pages show above
    if (page.items.length) top = page.top;
  } while (page.more);
  assert.deepEqual(newer, ['item:119', 'item:118', 'item:117', 'item:116']);

  page = await z.feedPage(key, { count: 3, older: bottom }); // pull-up: one page per scroll
  assert.deepEqual(members(page), ['item:112', 'item:111', 'item:110']); // no repeat of item:113
  assert.equal(page.more, true); // older items remain: scroll on from page.bottom
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { runExample } = await import('./run-example.mjs'); // REDIS_URL, one server or a cluster, keys of its own
  await runExample(feed, 'ioredis');
}
