// Every command declaration's examples (docs/commands.json), each called
// through its typed method on one server and on the cluster: the method's
// parameters are read back from the example's words by the command's layout
// (COMMANDS), the command the method sends must be the example word for
// word, and its reply must parse. A command gets this test by being
// declared, with no line here; every-command.mjs checks replies.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { beforeEach, test } from 'node:test';
import Redis from 'ioredis';
import { COMMANDS, zkit } from 'zkit';
import * as h from './helpers.mjs';

// test-clients.sh copies the file beside this one; in the repository it is docs/commands.json.
const copied = new URL('./commands.json', import.meta.url);
const declared = existsSync(copied) ? copied : new URL('../../../docs/commands.json', import.meta.url);
const EXAMPLES = Object.entries(JSON.parse(readFileSync(declared, 'utf8'))).flatMap(([name, doc]) =>
  doc.examples.map((words) => [name, words]),
);
const METHODS = new Map(Object.entries(COMMANDS).map(([method, spec]) => [spec.command, method]));

/** The parts a word may start, by token: options, flags and the lists of a choice. */
function tokensOf(layout) {
  const found = new Map();
  for (const part of layout) {
    if (part.kind === 'option' || part.kind === 'flag') found.set(part.token, part);
    if (part.kind === 'choice') for (const alternative of part.alternatives) found.set(alternative.token, { kind: 'alternative', ...alternative });
  }
  return found;
}

const blocksOf = (words, fields) => {
  const blocks = [];
  for (let i = 0; i < words.length; i += fields.length) blocks.push(Object.fromEntries(fields.map((field, j) => [field, words[i + j]])));
  return blocks;
};

/** The method's parameters that build `words` (after the command's name): buildCall's inverse. */
function parametersOf(spec, words) {
  const tokens = tokensOf(spec.layout);
  const positional = spec.layout.filter((part) => !['option', 'flag', 'choice'].includes(part.kind));
  const choice = spec.layout.find((part) => part.kind === 'choice');
  const values = [];
  const options = {};
  let i = 1;
  while (i < words.length) {
    const part = tokens.get(words[i].toUpperCase());
    if (part === undefined) {
      const next = positional.shift();
      if (next.kind === 'keys') {
        const count = Number(words[i]);
        values.push(words.slice(i + 1, i + 1 + count));
        i += 1 + count;
      } else if (next.kind === 'args') {
        values.push(words.slice(i + 1)); // every word after the token
        i = words.length;
      } else if (next.kind === 'blocks') {
        values.push(blocksOf(words.slice(i), next.fields)); // the blocks run to the end
        i = words.length;
      } else {
        values.push(words[i++]);
      }
    } else if (part.kind === 'flag') {
      options[part.name] = true;
      i += 1;
    } else if (part.kind === 'alternative') {
      const rest = words.slice(i + 1);
      const value = part.single ? rest[0] : part.fields ? blocksOf(rest, part.fields) : rest;
      if (part.token === choice.alternatives[0].token) values.push(value); // the first list is a positional parameter
      else options[part.name] = value;
      i = part.single ? i + 2 : words.length;
    } else if (typeof part.fields === 'string') {
      let end = i + 1; // a list: up to the next token
      while (end < words.length && !tokens.has(words[end].toUpperCase())) end += 1;
      options[part.name] = words.slice(i + 1, end);
      i = end;
    } else {
      const fields = words.slice(i + 1, i + 1 + part.fields.length);
      options[part.name] =
        part.fields.length === 1 ? fields[0] : part.tuple ? fields : Object.fromEntries(part.fields.map((field, j) => [field.name, fields[j]]));
      i += 1 + part.fields.length;
    }
  }
  return Object.keys(options).length ? [...values, options] : values;
}

/** An ioredis client that records the commands it sends, as words. */
function recording(client) {
  const sent = [];
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, ...rest) => {
    sent.push([command.name, ...command.args.map(String)]);
    return send(command, ...rest);
  };
  return { client, sent };
}

beforeEach(h.newPrefix);

for (const [topology, connect] of [
  ['one server', () => new Redis(h.SERVER)],
  ['the cluster', () => new Redis.Cluster(h.CLUSTER)],
]) {
  test(`every declared example through its method, on ${topology}`, async () => {
    const { client, sent } = recording(connect());
    const z = zkit(client);
    await z.engine();
    const called = new Set();
    for (const [name, example] of EXAMPLES) {
      const words = example.map((word) => (word.includes('{t}') ? h.currentPrefix() + word : word));
      if (words[0] !== name) {
        await client.call(...words); // a native command that sets up the next example
        continue;
      }
      const method = METHODS.get(name);
      const params = parametersOf(COMMANDS[method], words);
      sent.length = 0;
      await z[method](...params);
      if (h.ENGINE === 'module') assert.deepEqual(sent.at(-1).map((w, j) => (j === 0 ? w.toUpperCase() : w)), words, name);
      called.add(name);
    }
    assert.deepEqual([...called].sort(), [...METHODS.keys()].sort());
    await client.quit();
  });
}
