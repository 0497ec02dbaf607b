// node read_shoal.mjs DIR
//
// Reads every IPC file (.arrow) and stream (.arrows) that `arrow_interop_tool write DIR` produced
// with apache-arrow and checks it against DIR/<name>.expected.json: schema (names, types,
// nullability, metadata), every value of every batch (batch boundaries kept), and what is on the
// wire (file vs stream, decimal bit widths, body compression and length prefixes of every
// message). Prints a precise diff for every file that differs and exits 1 if any did.
import fs from 'node:fs';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import {
  canonicalSchema, checkLengthPrefixes, diffCanonical, readCanonical, registerCodecs, walkMessages,
} from './canonical.mjs';

const COMPRESSION = { none: null, lz4_frame: arrow.CompressionType.LZ4_FRAME, zstd: arrow.CompressionType.ZSTD };
const MAGIC = Buffer.from('ARROW1');

// Every dictionary and record batch message of the input: [{pos, message, bodyStart}]. Files are
// walked through their footer's blocks, streams message by message.
function messagesOf(bytes, isFile, footer) {
  if (!isFile) return walkMessages(bytes);
  const out = [];
  const blocks = [];
  for (let i = 0; i < footer.numDictionaries; i++) blocks.push(['dictionary block', footer.getDictionaryBatch(i)]);
  for (let i = 0; i < footer.numRecordBatches; i++) blocks.push(['record batch block', footer.getRecordBatch(i)]);
  for (const [what, block] of blocks) {
    const pos = Number(block.offset);
    const message = new arrow.MessageReader(bytes.subarray(pos)).readMessage();
    if (!message) throw new Error(`no message at the ${what} offset ${pos}`);
    if (Number(message.bodyLength) !== Number(block.bodyLength)) {
      throw new Error(`${what} at ${pos}: footer says body ${block.bodyLength} bytes, message says ${message.bodyLength}`);
    }
    out.push({ pos, message, bodyStart: pos + Number(block.metaDataLength) });
  }
  return out;
}

function describe({ pos, message }) {
  if (message.isRecordBatch()) {
    return { where: `message at byte ${pos}`, kind: 'record batch', bodyLength: Number(message.bodyLength), compression: message.header().compression };
  }
  if (message.isDictionaryBatch()) {
    const header = message.header();
    return { where: `message at byte ${pos}`, kind: `dictionary ${header.id}${header.isDelta ? ' (delta)' : ''}`, bodyLength: Number(message.bodyLength), compression: header.data.compression };
  }
  return null;
}

function checkWire(bytes, expected, read) {
  const problems = [];
  const ipc = expected.ipc;
  const isFile = bytes.length >= 6 && bytes.subarray(0, 6).equals(MAGIC);
  if (isFile !== (ipc.format === 'file')) problems.push(`written as ${ipc.format} but ${isFile ? 'starts' : 'does not start'} with ARROW1`);
  if (isFile !== read.isFile) problems.push(`apache-arrow opened it as a ${read.isFile ? 'file' : 'stream'}`);
  if (isFile && !bytes.subarray(bytes.length - 6).equals(MAGIC)) problems.push('file does not end with ARROW1');

  for (const field of read.schema.fields) {
    const type = arrow.DataType.isDictionary(field.type) ? field.type.dictionary : field.type;
    if (arrow.DataType.isDecimal(type)) {
      const want = type.precision <= 18 && !ipc.widen_decimal64 ? 64 : 128;
      if (type.bitWidth !== want) problems.push(`field ${field.name}: decimal(${type.precision},${type.scale}) has bitWidth ${type.bitWidth}, expected ${want}`);
    }
  }

  const want = COMPRESSION[ipc.compression];
  if (want === undefined) problems.push(`unknown compression ${ipc.compression}`);
  const entries = messagesOf(bytes, isFile, read.footer);
  problems.push(...checkLengthPrefixes(bytes, entries));
  const messages = entries.map(describe).filter((m) => m !== null);
  let withBody = 0;
  for (const m of messages) {
    if (m.bodyLength === 0) continue;  // nothing to compress; either marking is fine
    withBody++;
    const got = m.compression ? m.compression.type : null;
    if (got !== want) {
      problems.push(`${m.where} (${m.kind}): compression ${got === null ? 'none' : arrow.CompressionType[got]}, expected ${ipc.compression}`);
    }
  }
  const expectedBatches = expected.batches.length;
  const recordBatches = messages.filter((m) => m.kind === 'record batch').length;
  if (recordBatches !== expectedBatches) problems.push(`${recordBatches} record batch messages, expected ${expectedBatches}`);
  if (want !== null && withBody === 0 && expected.batches.some((b) => b.num_rows > 0)) {
    problems.push('compression expected but no message has a body');
  }
  return problems;
}

async function main() {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node read_shoal.mjs DIR');
    process.exit(2);
  }
  await registerCodecs();
  const names = fs.readdirSync(dir).filter((f) => /\.arrows?$/.test(f)).sort();
  if (names.length === 0) {
    console.error(`read_shoal: no .arrow/.arrows files in ${dir}`);
    process.exit(1);
  }
  let failed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const expectedPath = path.join(dir, name.replace(/\.arrows?$/, '.expected.json'));
    const problems = [];
    try {
      const expected = JSON.parse(fs.readFileSync(expectedPath, 'utf8'));
      const bytes = fs.readFileSync(file);
      const read = readCanonical(bytes);
      problems.push(...diffCanonical(expected, read.json));
      problems.push(...checkWire(bytes, expected, read));
      if (read.isFile) {
        // The messages between the leading magic and the footer must also read as a stream,
        // with the same schema message as the footer's schema. (The footer is cut off because
        // apache-arrow's stream reader reads on past an end-of-stream marker that follows no
        // batch.)
        const footerLength = bytes.readInt32LE(bytes.length - 10);
        const embedded = readCanonical(bytes.subarray(8, bytes.length - 10 - footerLength));
        problems.push(...diffCanonical(expected, embedded.json).map((d) => `as a stream: ${d}`));
        const footerSchema = JSON.stringify(canonicalSchema(read.schema));
        const streamSchema = JSON.stringify(canonicalSchema(embedded.schema));
        if (footerSchema !== streamSchema) problems.push(`footer schema ${footerSchema} differs from schema message ${streamSchema}`);
      }
    } catch (e) {
      problems.push(`apache-arrow could not read it: ${e.stack ?? e}`);
    }
    if (problems.length > 0) {
      failed++;
      console.error(`FAIL ${name}`);
      for (const p of problems) console.error(`  ${p}`);
    } else {
      console.log(`ok   ${name}`);
    }
  }
  console.log(`read_shoal: ${names.length - failed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}

await main();
