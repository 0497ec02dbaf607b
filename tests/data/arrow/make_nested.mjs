// Writes nested.arrow, the Arrow IPC file tests/sql/records.slt and maps.slt read, with
// apache-arrow from npm (tests/interop/node_modules). Run: `node tests/data/arrow/make_nested.mjs`;
// the file is committed, so tests never need Node.
//
//   id  int32
//   s   struct<x: int32, y: utf8>          NULL struct in row 3, NULL field y in row 2
//   m   map<utf8, int32>                   an empty map in row 2, NULL in row 4, NULL value in 1
//   l   list<struct<a: int32, b: utf8>>    records inside an array
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../interop/package.json'));
const arrow = require('apache-arrow');

const S = new arrow.Struct([new arrow.Field('x', new arrow.Int32(), true),
                            new arrow.Field('y', new arrow.Utf8(), true)]);
const M = new arrow.Map_(new arrow.Field('entries', new arrow.Struct([
  new arrow.Field('key', new arrow.Utf8(), false), new arrow.Field('value', new arrow.Int32(), true)]), false));
const LS = new arrow.List(new arrow.Field('item', new arrow.Struct([
  new arrow.Field('a', new arrow.Int32(), true), new arrow.Field('b', new arrow.Utf8(), true)]), true));

const table = new arrow.Table({
  id: arrow.vectorFromArray([1, 2, 3, 4], new arrow.Int32()),
  s: arrow.vectorFromArray([{ x: 1, y: 'one' }, { x: 2, y: null }, null, { x: 4, y: 'a b' }], S),
  m: arrow.vectorFromArray([new Map([['a', 1], ['b', null]]), new Map(), new Map([['c', 3]]), null], M),
  l: arrow.vectorFromArray([[{ a: 1, b: 'p' }, { a: 2, b: 'q' }], [], null, [{ a: 4, b: null }]], LS),
});
fs.writeFileSync(path.join(here, 'nested.arrow'), arrow.tableToIPC(table, 'file'));
console.log(table.toString());
