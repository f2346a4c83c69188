// The console's command line: where Redis is, how to reach it, where to
// listen, which keys are queues, boards, rate logs, recently-viewed lists and
// merges in progress. Every key list is a name or a SCAN pattern.

import { readFileSync } from 'node:fs';

export const USAGE = `zkit-console: a web console for zkit's queues, boards, rate logs and recently-viewed lists

  zkit-console [options]

Connection
  --url URL          redis://[user@]host:port (default redis://127.0.0.1:6379); rediss:// for TLS.
                     The password comes from ZKIT_CONSOLE_PASSWORD (or the URL); it is never shown.
  --cluster          the URL is a seed node of a Redis Cluster
  --tls-ca FILE      CA certificate(s) to trust for rediss://
  --tls-insecure     do not verify the server's certificate (tests only)

Web
  --host ADDRESS     address to listen on (default 127.0.0.1: this machine only)
  --allow-host NAME  a name the console answers to besides localhost, 127.0.0.1 and [::1]: the
                     name its users type, or a proxy passes on, to reach it (repeat for several).
                     Any other Host is refused, on every address it listens on
  --port N           port to listen on (default 7070; 0 picks a free one)
  --writable         offer writes (retry, delete, promote, pause, resume), each confirmed first;
                     without it the console only reads

Keys (repeat a flag for several; the defaults follow the guides' layouts)
  --queue SPEC       QUEUE[,inflight=KEY][,dead=KEY][,deliveries=KEY][,data=KEY]; a * in QUEUE is
                     a SCAN pattern and stands for the same text in the other keys, which default
                     to QUEUE:inflight, QUEUE:dead, QUEUE:deliveries and QUEUE:data (the hash of
                     its jobs' payloads and history); KEY= (empty) names none (default {*})
  --board SPEC       PATTERN[,data=KEY][,columns=KEY][,asc] boards, the hash of their members' data
                     (RANK's DATA) and of their columns (RANK.COLUMNS); a * in KEY stands for the
                     text the one * in PATTERN matched; asc: the boards rank their lowest total
                     first (RANK's ASC: lap times)
                     (default gifts:*, {room*}:*, *:board and best:*, without data)
  --rate SPEC        PATTERN[=WINDOW-MS,...] rate logs and the windows of their limits
                     (default user:*:comment=5000,3600000 and user:*:upload=60000)
  --recent PATTERN   recently-viewed lists (default MemberRecentGoods:* and *:recent)
  --staging PATTERN  staging keys of stepped RANK.MERGEs in progress (default *:staging)
  --max-keys N       keys listed per pattern (default 200)
  --help`;

const DEFAULTS = {
  queue: ['{*}'],
  board: ['gifts:*', '{room*}:*', '*:board', 'best:*'],
  rate: ['user:*:comment=5000,3600000', 'user:*:upload=60000'],
  recent: ['MemberRecentGoods:*', '*:recent'],
  staging: ['*:staging'],
};

/** The names every console answers to: this machine's. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** A host name as a Host header carries it: lower case, an IPv6 address in brackets; `what` names its source in an error. */
export function hostName(text, what) {
  const ipv6 = /^\[?[0-9a-f]*:[0-9a-f]*:[0-9a-f:.]*\]?$/i.test(text);
  if (!ipv6 && /[:/@?#\s]/.test(text)) throw new Error(`${what} ${text}: a name alone, without a port or path`);
  try {
    return new URL(`http://${ipv6 ? `[${text.replace(/^\[|\]$/g, '')}]` : text}`).hostname;
  } catch {
    throw new Error(`${what} ${text}: not a host name`);
  }
}

/** A queue spec: the queue's name or pattern and its other sets' templates. */
export function parseQueueSpec(spec) {
  const [queue, ...parts] = spec.split(',');
  const sets = { inflight: `${queue}:inflight`, dead: `${queue}:dead`, deliveries: `${queue}:deliveries`, data: `${queue}:data` };
  for (const part of parts) {
    const [name, value] = part.split('=', 2);
    if (!(name in sets) || value === undefined) throw new Error(`--queue ${spec}: expected inflight=, dead=, deliveries= or data=`);
    sets[name] = value === '' ? null : value;
  }
  if ((queue.match(/\*/g) ?? []).length > 1) throw new Error(`--queue ${spec}: at most one * in the queue's pattern`);
  return { queue, ...sets };
}

/** A board spec: the board's name or pattern, the templates of its member data hash and of its columns' hash (null: none), and whether it ranks lowest first. */
export function parseBoardSpec(spec) {
  const [pattern, ...parts] = spec.split(',');
  const hashes = { data: null, columns: null };
  let asc = false;
  for (const part of parts) {
    if (part === 'asc') {
      asc = true;
      continue;
    }
    const [name, value] = part.split('=', 2);
    if (!(name in hashes) || value === undefined) throw new Error(`--board ${spec}: expected data=, columns= or asc`);
    hashes[name] = value === '' ? null : value;
  }
  if ((hashes.data !== null || hashes.columns !== null) && (pattern.match(/\*/g) ?? []).length > 1) {
    throw new Error(`--board ${spec}: at most one * in a pattern with data= or columns=`);
  }
  if (asc && hashes.columns !== null) throw new Error(`--board ${spec}: asc does not apply with columns= (each column sets its order)`);
  return { pattern, ...hashes, asc };
}

export function parseRateSpec(spec) {
  const [pattern, windows = '60000,86400000'] = spec.split('=', 2);
  const list = windows.split(',').map(Number);
  if (list.some((w) => !Number.isInteger(w) || w < 1)) throw new Error(`--rate ${spec}: windows are whole milliseconds`);
  return { pattern, windows: list };
}

export function parseOptions(argv, env = process.env) {
  const lists = { queue: [], board: [], rate: [], recent: [], staging: [] };
  const options = {
    url: 'redis://127.0.0.1:6379',
    cluster: false,
    tlsCa: null,
    tlsInsecure: false,
    host: '127.0.0.1',
    allowedHosts: [...LOOPBACK_NAMES],
    port: 7070,
    writable: false,
    maxKeys: 200,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`);
      return argv[++i];
    };
    switch (flag) {
      case '--url': options.url = value(); break;
      case '--cluster': options.cluster = true; break;
      case '--tls-ca': options.tlsCa = readFileSync(value()); break;
      case '--tls-insecure': options.tlsInsecure = true; break;
      case '--host': options.host = value(); break;
      case '--allow-host': options.allowedHosts.push(hostName(value(), flag)); break;
      case '--port': options.port = Number(value()); break;
      case '--writable': options.writable = true; break;
      case '--max-keys': options.maxKeys = Number(value()); break;
      case '--help': options.help = true; break;
      default: {
        const name = flag.replace(/^--/, '');
        if (!(name in lists)) throw new Error(`unknown option ${flag} (--help lists them)`);
        lists[name].push(value());
      }
    }
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new Error('--port: 0 to 65535');
  if (!Number.isInteger(options.maxKeys) || options.maxKeys < 1) throw new Error('--max-keys: a positive integer');
  for (const name of Object.keys(lists)) if (lists[name].length === 0) lists[name] = DEFAULTS[name];
  const url = new URL(options.url);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error('--url: redis:// or rediss://');
  options.password = env.ZKIT_CONSOLE_PASSWORD || decodeURIComponent(url.password) || undefined;
  url.password = '';
  // What pages and logs may show: the URL without its password.
  options.shownUrl = url.toString();
  options.redisUrl = url;
  options.queues = lists.queue.map(parseQueueSpec);
  options.boards = lists.board.map(parseBoardSpec);
  options.rates = lists.rate.map(parseRateSpec);
  options.recents = lists.recent;
  options.stagings = lists.staging;
  return options;
}
