// The JavaScript half of the canonical JSON form (README.md): apache-arrow schemas and batches to
// canonical JSON, the comparison that prints a precise diff, and the compression codecs.
//
// Values are decoded from the raw Arrow buffers (validity bitmap, values, offsets, dictionary)
// rather than through apache-arrow's convenience getters, which round timestamps to milliseconds
// and return decimals as opaque objects; the getters are used only as a cross-check where they are
// exact (booleans, integers, strings).
import * as arrow from 'apache-arrow';
import lz4 from 'lz4js';
import * as fzstd from 'fzstd';
import zstdCodec from 'zstd-codec';

const UNIT_NAMES = ['s', 'ms', 'us', 'ns'];

export function canonicalType(type) {
  if (arrow.DataType.isDictionary(type)) {
    const index = canonicalType(type.indices);
    return `dictionary(${index},${canonicalType(type.dictionary)}${type.isOrdered ? ',ordered' : ''})`;
  }
  switch (type.typeId) {
    case arrow.Type.Null: return 'null';
    case arrow.Type.Bool: return 'bool';
    case arrow.Type.Int: return `${type.isSigned ? 'int' : 'uint'}${type.bitWidth}`;
    case arrow.Type.Float:
      if (type.precision === arrow.Precision.SINGLE) return 'float32';
      if (type.precision === arrow.Precision.DOUBLE) return 'float64';
      return 'float16';
    case arrow.Type.Decimal: return `decimal(${type.precision},${type.scale})`;
    case arrow.Type.Date: return type.unit === arrow.DateUnit.DAY ? 'date32' : 'date64';
    case arrow.Type.Timestamp: {
      const unit = UNIT_NAMES[type.unit];
      return type.timezone ? `timestamp(${unit},${type.timezone})` : `timestamp(${unit})`;
    }
    case arrow.Type.Interval:
      if (type.unit === arrow.IntervalUnit.MONTH_DAY_NANO) return 'interval_mdn';
      return type.unit === arrow.IntervalUnit.DAY_TIME ? 'interval_dt' : 'interval_ym';
    case arrow.Type.Utf8: return 'utf8';
    case arrow.Type.Binary: return 'binary';
    case arrow.Type.List: return `list<${canonicalField(type.children[0])}>`;
    case arrow.Type.LargeList: return `large_list<${canonicalField(type.children[0])}>`;
    case arrow.Type.FixedSizeList: return `fixed_size_list<${type.listSize}, ${canonicalField(type.children[0])}>`;
    case arrow.Type.Struct: return `struct<${type.children.map(canonicalField).join(', ')}>`;
    case arrow.Type.Map: return `map<${canonicalField(type.children[0])}${type.keysSorted ? ', keys_sorted' : ''}>`;
    default: return `unsupported:${String(type)}`;
  }
}

// A child of a nested type: "name: type", with " not null" when it is not nullable.
export function canonicalField(field) {
  return `${field.name}: ${canonicalType(field.type)}${field.nullable ? '' : ' not null'}`;
}

function metadataObject(map) {
  const out = {};
  for (const [k, v] of map ?? new Map()) out[k] = v;
  return out;
}

export function canonicalSchema(schema) {
  return {
    schema: schema.fields.map((f) => ({
      name: f.name,
      type: canonicalType(f.type),
      nullable: f.nullable,
      metadata: metadataObject(f.metadata),
    })),
    metadata: metadataObject(schema.metadata),
  };
}

function view(typed) {
  return new DataView(typed.buffer, typed.byteOffset, typed.byteLength);
}

function hex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// Validity of element i following the Arrow rules, plus a consistency check of the null count
// (a reader that trusts a wrong null count shows wrong values, so a wrong count must fail).
function validity(data, where) {
  const n = data.length;
  if (data.typeId === arrow.Type.Null) return () => false;
  const bitmap = data.nullBitmap;
  if (data.nullCount === 0) return () => true;
  if (!bitmap || bitmap.length * 8 < data.offset + n) {
    throw new Error(`${where}: null count ${data.nullCount} but no (or a short) validity bitmap`);
  }
  const bit = (i) => ((bitmap[(data.offset + i) >> 3] >> ((data.offset + i) & 7)) & 1) === 1;
  let zeros = 0;
  for (let i = 0; i < n; i++) if (!bit(i)) zeros++;
  if (zeros !== data.nullCount) {
    throw new Error(`${where}: null count ${data.nullCount} but the bitmap has ${zeros} nulls`);
  }
  return bit;
}

function variableBytes(data, i, where) {
  const begin = data.valueOffsets[i];
  const end = data.valueOffsets[i + 1];
  if (!(begin >= 0 && end >= begin && end <= data.values.length)) {
    throw new Error(`${where}: bad offsets [${begin}, ${end}) for ${data.values.length} data bytes`);
  }
  return data.values.subarray(begin, end);
}

// Canonical values of every element of one Data chunk.
export function canonicalData(data, where) {
  const n = data.length;
  const valid = validity(data, where);
  const out = new Array(n);
  const decode = valueDecoder(data, where);
  for (let i = 0; i < n; i++) out[i] = valid(i) ? decode(i) : null;
  return out;
}

function valueDecoder(data, where) {
  const type = data.type;
  if (arrow.DataType.isDictionary(type)) {
    const chunks = data.dictionary?.data ?? [];
    const decoded = [];
    chunks.forEach((chunk, k) => decoded.push(...canonicalData(chunk, `${where} dictionary chunk ${k}`)));
    return (i) => {
      const index = Number(data.values[i]);
      if (!(index >= 0 && index < decoded.length)) {
        throw new Error(`${where}: dictionary index ${index} out of range (${decoded.length} values)`);
      }
      return decoded[index];
    };
  }
  switch (type.typeId) {
    case arrow.Type.Null: return () => null;
    case arrow.Type.Bool:
      return (i) => {
        const pos = data.offset + i;
        return ((data.values[pos >> 3] >> (pos & 7)) & 1) === 1 ? 'true' : 'false';
      };
    case arrow.Type.Int: return (i) => String(data.values[i]);
    case arrow.Type.Float: {
      const dv = view(data.values);
      if (type.precision === arrow.Precision.SINGLE) {
        return (i) => dv.getUint32(4 * i, true).toString(16).padStart(8, '0');
      }
      if (type.precision === arrow.Precision.DOUBLE) {
        return (i) => dv.getBigUint64(8 * i, true).toString(16).padStart(16, '0');
      }
      throw new Error(`${where}: float16 is not a Shoal type`);
    }
    case arrow.Type.Decimal: {
      const dv = view(data.values);
      const bytes = type.bitWidth / 8;
      if (![32, 64, 128, 256].includes(type.bitWidth)) {
        throw new Error(`${where}: decimal bit width ${type.bitWidth}`);
      }
      if (bytes === 4) return (i) => String(dv.getInt32(4 * i, true));
      return (i) => {
        let v = 0n;
        for (let k = bytes / 8 - 1; k >= 0; k--) {
          v = (v << 64n) | dv.getBigUint64(i * bytes + 8 * k, true);
        }
        return BigInt.asIntN(type.bitWidth, v).toString();
      };
    }
    case arrow.Type.Date: {
      const dv = view(data.values);
      if (type.unit === arrow.DateUnit.DAY) return (i) => String(dv.getInt32(4 * i, true));
      return (i) => String(dv.getBigInt64(8 * i, true));
    }
    case arrow.Type.Timestamp: {
      const dv = view(data.values);
      return (i) => String(dv.getBigInt64(8 * i, true));
    }
    case arrow.Type.Interval: {
      if (type.unit !== arrow.IntervalUnit.MONTH_DAY_NANO) {
        throw new Error(`${where}: only month-day-nano intervals are Shoal types`);
      }
      const dv = view(data.values);
      return (i) =>
        `${dv.getInt32(16 * i, true)},${dv.getInt32(16 * i + 4, true)},${dv.getBigInt64(16 * i + 8, true)}`;
    }
    case arrow.Type.Utf8:
      return (i) => {
        try {
          return utf8Decoder.decode(variableBytes(data, i, where));
        } catch (e) {
          throw new Error(`${where}: row ${i}: ${e.message}`);
        }
      };
    case arrow.Type.Binary: return (i) => hex(variableBytes(data, i, where));
    // Nested values are JSON arrays (README.md): a list's items, a struct's fields, a map's
    // [key, value] entries. Children are decoded whole, then cut by the offsets.
    case arrow.Type.List:
    case arrow.Type.LargeList:
    case arrow.Type.Map: {
      const child = data.children[0];
      const items = canonicalData(child, `${where} child ${JSON.stringify(type.children[0].name)}`);
      return (i) => {
        const begin = Number(data.valueOffsets[i]);
        const end = Number(data.valueOffsets[i + 1]);
        if (!(begin >= 0 && end >= begin && end <= items.length)) {
          throw new Error(`${where}: row ${i}: bad list offsets [${begin}, ${end}) for ${items.length} items`);
        }
        return items.slice(begin, end);
      };
    }
    case arrow.Type.FixedSizeList: {
      const child = data.children[0];
      const items = canonicalData(child, `${where} child ${JSON.stringify(type.children[0].name)}`);
      const size = type.listSize;
      if (items.length < data.length * size) {
        throw new Error(`${where}: ${items.length} items for ${data.length} lists of ${size}`);
      }
      return (i) => items.slice(i * size, (i + 1) * size);
    }
    case arrow.Type.Struct: {
      const fields = data.children.map((child, k) => canonicalData(child, `${where} field ${JSON.stringify(type.children[k].name)}`));
      fields.forEach((values, k) => {
        if (values.length < data.length) throw new Error(`${where}: field ${k} has ${values.length} rows for ${data.length}`);
      });
      return (i) => fields.map((values) => values[i]);
    }
    default: throw new Error(`${where}: type ${String(type)} is not a Shoal type`);
  }
}

// apache-arrow's own getters, for the types where they are exact: a second opinion on our decoding.
function crossCheck(vector, values, where) {
  const type = vector.type;
  const valueType = arrow.DataType.isDictionary(type) ? type.dictionary : type;
  const id = valueType.typeId;
  if (![arrow.Type.Bool, arrow.Type.Int, arrow.Type.Utf8].includes(id)) return;
  for (let i = 0; i < values.length; i++) {
    const got = vector.get(i);
    const mine = values[i];
    const theirs = got === null || got === undefined ? null : String(got);
    if (theirs !== mine) {
      throw new Error(`${where}: row ${i}: apache-arrow's getter says ${JSON.stringify(theirs)}, buffers say ${JSON.stringify(mine)}`);
    }
  }
}

export function canonicalBatch(batch, batchIndex) {
  const columns = [];
  batch.schema.fields.forEach((field, c) => {
    const vector = batch.getChildAt(c);
    const where = `batch ${batchIndex} column ${JSON.stringify(field.name)}`;
    if (vector.length !== batch.numRows) {
      throw new Error(`${where}: ${vector.length} rows in a batch of ${batch.numRows}`);
    }
    const values = [];
    vector.data.forEach((chunk, k) => values.push(...canonicalData(chunk, `${where} chunk ${k}`)));
    crossCheck(vector, values, where);
    columns.push(values);
  });
  return { num_rows: batch.numRows, columns };
}

// Reads a file or stream; keeps batch boundaries. Empty batches are real messages and are kept;
// apache-arrow's placeholder for a stream without batches is not a batch and is dropped.
export function readCanonical(bytes) {
  // apache-arrow views uncompressed buffers in place and needs them 8-byte aligned in memory;
  // a fresh copy starts at byte 0 of its ArrayBuffer.
  const aligned = new Uint8Array(bytes.length);
  aligned.set(bytes);
  const reader = arrow.RecordBatchReader.from(aligned);
  reader.open();
  // Taken before iterating: the reader forgets its schema and footer when it finishes.
  const schema = reader.schema;
  const footer = reader.footer;
  const isFile = reader.isFile();
  if (!schema) throw new Error('no schema message');
  const batches = [];
  for (const batch of reader) {
    if (batch.constructor.name === '_InternalEmptyPlaceholderRecordBatch') continue;
    batches.push(canonicalBatch(batch, batches.length));
  }
  return { schema, footer, isFile, json: { ...canonicalSchema(schema), batches } };
}

function show(v) {
  const s = JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

// Differences between two canonical JSON objects, most precise first; [] when equal. The "ipc"
// section is not data and is not compared here.
export function diffCanonical(expected, actual) {
  const diffs = [];
  const push = (msg) => diffs.length < 60 && diffs.push(msg);
  const ef = expected.schema;
  const af = actual.schema;
  if (ef.length !== af.length) push(`schema: ${ef.length} fields expected, ${af.length} found`);
  for (let f = 0; f < Math.min(ef.length, af.length); f++) {
    for (const key of ['name', 'type', 'nullable']) {
      if (ef[f][key] !== af[f][key]) {
        push(`schema field #${f} (${ef[f].name}): ${key} expected ${show(ef[f][key])}, found ${show(af[f][key])}`);
      }
    }
    if (!sameObject(ef[f].metadata, af[f].metadata)) {
      push(`schema field #${f} (${ef[f].name}): metadata expected ${show(ef[f].metadata)}, found ${show(af[f].metadata)}`);
    }
  }
  if (!sameObject(expected.metadata, actual.metadata)) {
    push(`schema metadata expected ${show(expected.metadata)}, found ${show(actual.metadata)}`);
  }
  const eb = expected.batches;
  const ab = actual.batches;
  if (eb.length !== ab.length) {
    push(`batches: ${eb.length} expected (rows ${eb.map((b) => b.num_rows)}), ${ab.length} found (rows ${ab.map((b) => b.num_rows)})`);
  }
  for (let b = 0; b < Math.min(eb.length, ab.length); b++) {
    if (eb[b].num_rows !== ab[b].num_rows) {
      push(`batch ${b}: ${eb[b].num_rows} rows expected, ${ab[b].num_rows} found`);
    }
    const ec = eb[b].columns;
    const ac = ab[b].columns;
    if (ec.length !== ac.length) push(`batch ${b}: ${ec.length} columns expected, ${ac.length} found`);
    for (let c = 0; c < Math.min(ec.length, ac.length); c++) {
      const name = ef[c]?.name ?? `#${c}`;
      if (ec[c].length !== ac[c].length) {
        push(`batch ${b} column ${name}: ${ec[c].length} values expected, ${ac[c].length} found`);
      }
      for (let i = 0; i < Math.min(ec[c].length, ac[c].length); i++) {
        if (JSON.stringify(ec[c][i]) !== JSON.stringify(ac[c][i])) {
          push(`batch ${b} column ${name} row ${i}: expected ${show(ec[c][i])}, found ${show(ac[c][i])}`);
        }
      }
    }
  }
  return diffs;
}

function sameObject(a, b) {
  const ka = Object.keys(a ?? {}).sort();
  const kb = Object.keys(b ?? {}).sort();
  return JSON.stringify(ka) === JSON.stringify(kb) && ka.every((k) => a[k] === b[k]);
}

// ---- the encapsulated messages of an IPC stream or file ----

function dataView(bytes) {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

// The messages of a stream starting at byte `start`, up to the end-of-stream marker or the end of
// the input: [{pos, message, bodyStart}].
export function walkMessages(bytes, start = 0) {
  const dv = dataView(bytes);
  const out = [];
  let pos = start;
  while (pos + 4 <= bytes.length) {
    let length = dv.getInt32(pos, true);
    let metadataStart = pos + 4;
    if (length === -1) {
      length = pos + 8 <= bytes.length ? dv.getInt32(pos + 4, true) : 0;
      metadataStart = pos + 8;
    }
    if (length === 0) break;
    const message = new arrow.MessageReader(bytes.subarray(pos)).readMessage();
    if (!message) throw new Error(`no message at byte ${pos}`);
    const bodyStart = metadataStart + length;
    out.push({ pos, message, bodyStart });
    pos = bodyStart + Number(message.bodyLength);
  }
  return out;
}

// The body buffers of a compressed record batch or dictionary message: [{start, length}] with
// absolute byte positions; [] when the message is not compressed.
function compressedBuffers({ message, bodyStart }) {
  const header = message.isDictionaryBatch() ? message.header().data : message.header();
  if (!(message.isRecordBatch() || message.isDictionaryBatch()) || !header.compression) return [];
  return header.buffers.filter((b) => Number(b.length) > 0)
    .map((b) => ({ start: bodyStart + Number(b.offset), length: Number(b.length), type: header.compression.type }));
}

// Arrow requires each compressed buffer to start with its uncompressed length (int64), or -1 when
// the bytes that follow are not compressed. apache-arrow's reader never looks at the value, so it
// is checked here: [] when every prefix is right, else the problems.
export function checkLengthPrefixes(bytes, messages) {
  const dv = dataView(bytes);
  const problems = [];
  for (const entry of messages) {
    compressedBuffers(entry).forEach(({ start, length, type }, k) => {
      const where = `message at byte ${entry.pos}, buffer ${k} at byte ${start}`;
      if (length < 8) return problems.push(`${where}: ${length} bytes, too short for the length prefix`);
      const prefix = dv.getBigInt64(start, true);
      if (prefix === -1n) return undefined;
      const frame = bytes.subarray(start + 8, start + length);
      const actual = prefix === 0n && frame.length === 0 ? 0 : arrow.compressionRegistry.get(type).decode(frame).length;
      if (BigInt(actual) !== prefix) problems.push(`${where}: length prefix ${prefix}, but the frame decodes to ${actual} bytes`);
      return undefined;
    });
  }
  return problems;
}

// apache-arrow 21.2.0 writes the compressed length where Arrow wants the uncompressed one (fixed
// upstream by apache/arrow-js pull request 470, not yet released). Rewrites those prefixes in
// place so that spec-conforming readers, Shoal's included, can read the file; returns how many.
export function repairLengthPrefixes(bytes, messages) {
  const dv = dataView(bytes);
  let repaired = 0;
  for (const entry of messages) {
    for (const { start, length, type } of compressedBuffers(entry)) {
      const prefix = dv.getBigInt64(start, true);
      if (prefix === -1n || length <= 8) continue;
      const actual = BigInt(arrow.compressionRegistry.get(type).decode(bytes.subarray(start + 8, start + length)).length);
      if (actual !== prefix) {
        dv.setBigInt64(start, actual, true);
        repaired++;
      }
    }
  }
  return repaired;
}

// apache-arrow makes typed arrays directly on what a codec returns, so the result must start at an
// 8-byte aligned offset of its ArrayBuffer; fzstd returns views into a larger buffer.
const ownBuffer = (bytes) => (bytes.byteOffset % 8 === 0 ? bytes : bytes.slice());

// LZ4 frames: lz4js (pure JS). ZSTD: fzstd (pure JS) decodes, so that Shoal's libzstd output is
// checked by an independent decoder; zstd-codec (libzstd compiled to JS by Emscripten, shipped in
// the npm package) encodes, since no pure-JS zstd encoder exists.
export async function registerCodecs() {
  arrow.compressionRegistry.set(arrow.CompressionType.LZ4_FRAME, {
    encode: (data) => lz4.compress(data),
    decode: (data) => ownBuffer(lz4.decompress(data)),
  });
  const simple = await new Promise((resolve) => {
    zstdCodec.ZstdCodec.run((zstd) => resolve(new zstd.Simple()));
  });
  arrow.compressionRegistry.set(arrow.CompressionType.ZSTD, {
    encode: (data) => simple.compress(data, 3),
    decode: (data) => ownBuffer(fzstd.decompress(data)),
  });
}
