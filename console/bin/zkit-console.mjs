#!/usr/bin/env node
// zkit-console: starts the web console (zkit-console --help).
import { parseOptions, USAGE } from '../src/options.mjs';
import { createConsole } from '../src/server.mjs';

let options;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  console.error(`zkit-console: ${error.message}`);
  process.exit(2);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const consoleApp = createConsole(options);
consoleApp.store.client.on('error', (error) => console.error(`zkit-console: redis: ${error.message}`));
const address = await consoleApp.listen();
// Bound to every address, it is reached here as localhost (0.0.0.0 is no name it answers to).
const everywhere = address.address === '0.0.0.0' || address.address === '::';
const host = everywhere ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
console.log(
  `zkit-console: http://${host}:${address.port}/ for ${options.shownUrl}${options.cluster ? ' (cluster)' : ''}, ${options.writable ? 'writable: writes are offered, each confirmed' : 'read-only'}`,
);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    await consoleApp.close().catch(() => {});
    process.exit(0);
  });
}
