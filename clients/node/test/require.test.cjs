// The package loads with require() as well as import, with its types beside it.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const fs = require('node:fs');
const path = require('node:path');

test('require("zkit") exposes the API and ships .d.ts', () => {
  const zkit = require('zkit');
  for (const name of ['zkit', 'Zkit', 'zkitModule', 'zkitFunctionsModule', 'ZkitNotLoaded', 'DelayWorker', 'CrossSlotError', 'COMMANDS', 'keySlot']) {
    assert.ok(zkit[name], name);
  }
  assert.equal(zkit.keySlot('{user1000}.following'), zkit.keySlot('{user1000}.followers'));
  assert.equal(zkit.keySlot('foo'), 12182); // CLUSTER KEYSLOT foo
  const dir = path.dirname(require.resolve('zkit'));
  assert.ok(fs.existsSync(path.join(dir, 'index.d.ts')));
});
