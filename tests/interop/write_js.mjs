// node write_js.mjs DIR
//
// Writes Arrow IPC files (.arrow) and streams (.arrows) with apache-arrow covering every Shoal type,
// plus DIR/<name>.expected.json. The data is specified first as canonical strings (README.md) and
// the Arrow buffers are built from that specification by hand, so the expected JSON is the
// specification itself and does not depend on any Arrow decoder. Each file is also read back with
// apache-arrow before it is handed to Shoal, so that a failure later is Shoal's, not ours.
import fs from 'node:fs';
import path from 'node:path';
import * as arrow from 'apache-arrow';
import {
  canonicalType, checkLengthPrefixes, diffCanonical, readCanonical, registerCodecs, repairLengthPrefixes,
  walkMessages,
} from './canonical.mjs';

const M64 = (1n << 64n) - 1n;

function mix(row, col) {
  let x = (BigInt(row + 1) * 0x9e3779b97f4a7c15n) & M64;
  x ^= (BigInt(col + 1) * 0xc2b2ae3d27d4eb4fn) & M64;
  x ^= x >> 29n;
  return (x * 0xbf58476d1ce4e5b9n) & M64;
}

// ---- value generators: canonical strings (never null; nulls are decided by the caller) ----

function intGen(bits, signed) {
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  const specials = [min, max, 0n, signed ? -1n : max - 1n, 1n, min + 1n];
  return (row, col) => (row % 3 === 0
    ? specials[(row / 3) % specials.length]
    : (signed ? BigInt.asIntN(bits, mix(row, col)) : BigInt.asUintN(bits, mix(row, col)))).toString();
}

function floatGen(bits) {
  const specials = bits === 32
    ? ['00000000', '80000000', '7f800000', 'ff800000', '7fc00000', '00000001', '7f7fffff', '3dcccccd', 'ffc00042', '00800000']
    : ['0000000000000000', '8000000000000000', '7ff0000000000000', 'fff0000000000000', '7ff8000000000000',
      '0000000000000001', '7fefffffffffffff', '3fb999999999999a', 'fff8000000000042', '0010000000000000'];
  return (row, col) => {
    if (row % 3 === 0) return specials[(row / 3) % specials.length];
    const v = Number(mix(row, col) % 2000001n - 1000000n) / 9;
    const dv = new DataView(new ArrayBuffer(8));
    if (bits === 32) {
      dv.setFloat32(0, v, true);
      return dv.getUint32(0, true).toString(16).padStart(8, '0');
    }
    dv.setFloat64(0, v, true);
    return dv.getBigUint64(0, true).toString(16).padStart(16, '0');
  };
}

function decimalGen(precision) {
  const max = 10n ** BigInt(precision) - 1n;
  const specials = [0n, 1n, -1n, max, -max, 100n, 12345n % (max + 1n)];
  return (row, col) => {
    if (row % 3 === 0) return specials[(row / 3) % specials.length].toString();
    const wide = (mix(row, col) << 64n) | mix(row + 1000, col);
    const v = wide % (max + 1n);
    return (mix(row, col + 99) & 1n ? -v : v).toString();
  };
}

function dateGen() {
  const specials = [0, -1, 1, 18262, -719162, 2932896, -2147483648, 2147483647];
  return (row, col) => String(row % 3 === 0 ? specials[(row / 3) % specials.length] : Number(mix(row, col) % 200000n) - 100000);
}

function timestampGen() {
  const specials = [0n, -1n, -(1n << 63n), (1n << 63n) - 1n, 1700000000123456789n, -62135596800000000n];
  return (row, col) => (row % 3 === 0 ? specials[(row / 3) % specials.length] : BigInt.asIntN(64, mix(row, col))).toString();
}

function intervalGen() {
  const specials = ['0,0,0', '1,2,3', '-1,-2,-3', '2147483647,-2147483648,9223372036854775807', '12,30,86400000000000', '0,0,-9223372036854775808'];
  return (row, col) => {
    if (row % 3 === 0) return specials[(row / 3) % specials.length];
    const x = mix(row, col);
    return `${Number(x % 2401n) - 1200},${Number((x >> 16n) % 61n) - 30},${BigInt.asIntN(64, x * 3n)}`;
  };
}

function utf8Gen() {
  const specials = ['', 'b', 'Grüße', '中文字符', '🐟🐠 school', 'tab\tquote"back\\slash\nnl', 'ctl\u0000\u0007\u001f', '\u2029 para, \uFEFF bom, \uD83E\uDD88 shark', 'y'.repeat(257) + 'ø'];
  return (row, col) => (row % 3 === 0 ? specials[(row / 3) % specials.length] : `js row ${row} · col ${col}`);
}

function binaryGen() {
  const specials = ['', '00', 'fffe0001', '616263', '80'.repeat(70)];
  return (row, col) => {
    if (row % 3 === 0) return specials[(row / 3) % specials.length];
    const x = mix(row, col);
    let s = '';
    for (let k = 0n; k < x % 19n; k++) s += ((x >> (k % 8n * 8n)) & 0xffn).toString(16).padStart(2, '0');
    return s;
  };
}

// ---- Arrow buffers from canonical strings ----

const GARBAGE = 0xa5;  // under null slots: a reader must never look at it

function validityOf(values) {
  const nullCount = values.filter((v) => v === null).length;
  if (nullCount === 0) return { nullCount, nullBitmap: undefined };
  const nullBitmap = new Uint8Array(Math.ceil(values.length / 8) || 1);
  values.forEach((v, i) => { if (v !== null) nullBitmap[i >> 3] |= 1 << (i & 7); });
  return { nullCount, nullBitmap };
}

function fixedBytes(values, width, put) {
  const bytes = new Uint8Array(values.length * width).fill(GARBAGE);
  const dv = new DataView(bytes.buffer);
  values.forEach((v, i) => { if (v !== null) put(dv, i * width, v); });
  return bytes;
}

function variable(values, toBytes) {
  const chunks = values.map((v) => (v === null ? new Uint8Array(0) : toBytes(v)));
  const valueOffsets = new Int32Array(values.length + 1);
  chunks.forEach((c, i) => { valueOffsets[i + 1] = valueOffsets[i] + c.length; });
  const data = new Uint8Array(valueOffsets[values.length]);
  chunks.forEach((c, i) => data.set(c, valueOffsets[i]));
  return { valueOffsets, data };
}

function typed(ArrayType, bytes) {
  return new ArrayType(bytes.buffer, bytes.byteOffset, bytes.byteLength / ArrayType.BYTES_PER_ELEMENT);
}

function buildData(type, values) {
  const length = values.length;
  const { nullCount, nullBitmap } = validityOf(values);
  const base = { type, length, nullCount, nullBitmap };
  switch (type.typeId) {
    case arrow.Type.Null: return arrow.makeData({ type, length });
    case arrow.Type.Bool: {
      const bits = new Uint8Array(Math.ceil(length / 8) || 1);
      values.forEach((v, i) => { if (v !== 'false') bits[i >> 3] |= 1 << (i & 7); });  // null slots set
      return arrow.makeData({ ...base, data: bits });
    }
    case arrow.Type.Int: {
      const w = type.bitWidth / 8;
      const bytes = fixedBytes(values, w, (dv, o, v) => {
        const x = BigInt(v);
        if (w === 1) dv.setUint8(o, Number(BigInt.asUintN(8, x)));
        else if (w === 2) dv.setUint16(o, Number(BigInt.asUintN(16, x)), true);
        else if (w === 4) dv.setUint32(o, Number(BigInt.asUintN(32, x)), true);
        else dv.setBigUint64(o, BigInt.asUintN(64, x), true);
      });
      return arrow.makeData({ ...base, data: typed(type.ArrayType, bytes) });
    }
    case arrow.Type.Float: {
      const w = type.precision === arrow.Precision.SINGLE ? 4 : 8;
      const bytes = fixedBytes(values, w, (dv, o, v) => (w === 4
        ? dv.setUint32(o, parseInt(v, 16), true) : dv.setBigUint64(o, BigInt(`0x${v}`), true)));
      return arrow.makeData({ ...base, data: typed(type.ArrayType, bytes) });
    }
    case arrow.Type.Decimal: {
      const w = type.bitWidth / 8;
      const bytes = fixedBytes(values, w, (dv, o, v) => {
        const x = BigInt.asUintN(type.bitWidth, BigInt(v));
        for (let k = 0; k < w / 8; k++) dv.setBigUint64(o + 8 * k, (x >> BigInt(64 * k)) & M64, true);
      });
      return arrow.makeData({ ...base, data: typed(Uint32Array, bytes) });
    }
    case arrow.Type.Date: {
      const bytes = fixedBytes(values, 4, (dv, o, v) => dv.setInt32(o, Number(v), true));
      return arrow.makeData({ ...base, data: typed(Int32Array, bytes) });
    }
    case arrow.Type.Timestamp: {
      const bytes = fixedBytes(values, 8, (dv, o, v) => dv.setBigInt64(o, BigInt(v), true));
      return arrow.makeData({ ...base, data: typed(BigInt64Array, bytes) });
    }
    case arrow.Type.Interval: {
      const bytes = fixedBytes(values, 16, (dv, o, v) => {
        const [m, d, ns] = v.split(',');
        dv.setInt32(o, Number(m), true);
        dv.setInt32(o + 4, Number(d), true);
        dv.setBigInt64(o + 8, BigInt(ns), true);
      });
      return arrow.makeData({ ...base, data: typed(Int32Array, bytes) });
    }
    case arrow.Type.Utf8:
      return arrow.makeData({ ...base, ...variable(values, (v) => new TextEncoder().encode(v)) });
    case arrow.Type.Binary:
      return arrow.makeData({ ...base, ...variable(values, (v) => Uint8Array.from(Buffer.from(v, 'hex'))) });
    // Nested values are arrays (README.md); null lists own no items.
    case arrow.Type.List:
    case arrow.Type.LargeList:
    case arrow.Type.Map: {
      const items = [];
      const offsets = [0];
      values.forEach((v) => {
        if (v !== null) items.push(...v);
        offsets.push(items.length);
      });
      const valueOffsets = type.typeId === arrow.Type.LargeList
        ? BigInt64Array.from(offsets.map((o) => BigInt(o))) : Int32Array.from(offsets);
      return arrow.makeData({ ...base, valueOffsets, child: buildData(type.children[0].type, items) });
    }
    case arrow.Type.FixedSizeList: {
      const items = values.flatMap((v) => (v === null ? new Array(type.listSize).fill(null) : v));
      return arrow.makeData({ ...base, child: buildData(type.children[0].type, items) });
    }
    case arrow.Type.Struct: {
      const children = type.children.map((f, k) => buildData(f.type, values.map((v) => (v === null ? null : v[k]))));
      return arrow.makeData({ ...base, children });
    }
    default: throw new Error(`no builder for ${type}`);
  }
}

// A dictionary column: `indices` (numbers or null) into `dictionary`, an arrow.Vector whose chunks
// concatenate to `dictValues`. Returns the Data and the decoded canonical values.
function buildDictData(type, indices, dictionary, dictValues) {
  const idx = buildData(type.indices, indices.map((i) => (i === null ? null : String(i))));
  const data = arrow.makeData({ type, length: indices.length, nullCount: idx.nullCount, nullBitmap: idx.nullBitmap, data: idx.values, dictionary });
  return { data, values: indices.map((i) => (i === null ? null : dictValues[i])) };
}

// ---- the test tables ----

const DICT_VALUES = ['alpha', null, 'ñandú', '', '🦈', 'same', 'zeta'];
const DICT_I8_VALUES = ['lo', 'mid', 'hi'];

function allTypesSpec() {
  const dict = new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32());
  const dictI8 = new arrow.Dictionary(new arrow.Utf8(), new arrow.Int8(), null, true);
  return [
    { name: 'j_null', type: new arrow.Null(), canon: 'null', gen: () => 'unused' },
    { name: 'j_bool', type: new arrow.Bool(), canon: 'bool', gen: (r, c) => ((mix(r, c) & 1n) ? 'true' : 'false') },
    { name: 'j_int8', type: new arrow.Int8(), canon: 'int8', gen: intGen(8, true) },
    { name: 'j_int16', type: new arrow.Int16(), canon: 'int16', gen: intGen(16, true) },
    { name: 'j_int32', type: new arrow.Int32(), canon: 'int32', gen: intGen(32, true) },
    { name: 'j_int64', type: new arrow.Int64(), canon: 'int64', gen: intGen(64, true) },
    { name: 'j_uint8', type: new arrow.Uint8(), canon: 'uint8', gen: intGen(8, false) },
    { name: 'j_uint16', type: new arrow.Uint16(), canon: 'uint16', gen: intGen(16, false) },
    { name: 'j_uint32', type: new arrow.Uint32(), canon: 'uint32', gen: intGen(32, false) },
    { name: 'j_uint64', type: new arrow.Uint64(), canon: 'uint64', gen: intGen(64, false) },
    { name: 'j_float32', type: new arrow.Float32(), canon: 'float32', gen: floatGen(32) },
    { name: 'j_float64', type: new arrow.Float64(), canon: 'float64', gen: floatGen(64) },
    // Decimal(scale, precision, bitWidth). 128-bit decimals of precision <= 18 are narrowed by
    // Shoal; 64-bit ones (Arrow's Decimal64) are read as they are.
    { name: 'j_dec15_2_w64', type: new arrow.Decimal(2, 15, 64), canon: 'decimal(15,2)', gen: decimalGen(15), metadata: { 'shoal.sql_type': 'DECIMAL(15,2)' } },
    { name: 'j_dec15_2_w128', type: new arrow.Decimal(2, 15, 128), canon: 'decimal(15,2)', gen: decimalGen(15) },
    { name: 'j_dec18_0_w128', type: new arrow.Decimal(0, 18, 128), canon: 'decimal(18,0)', gen: decimalGen(18) },
    { name: 'j_dec18_18_w64', type: new arrow.Decimal(18, 18, 64), canon: 'decimal(18,18)', gen: decimalGen(18) },
    { name: 'j_dec19_4', type: new arrow.Decimal(4, 19, 128), canon: 'decimal(19,4)', gen: decimalGen(19) },
    { name: 'j_dec38_10', type: new arrow.Decimal(10, 38, 128), canon: 'decimal(38,10)', gen: decimalGen(38) },
    { name: 'j_date32', type: new arrow.DateDay(), canon: 'date32', gen: dateGen() },
    { name: 'j_ts_s', type: new arrow.TimestampSecond(), canon: 'timestamp(s)', gen: timestampGen() },
    { name: 'j_ts_ms_tz', type: new arrow.TimestampMillisecond('+07:00'), canon: 'timestamp(ms,+07:00)', gen: timestampGen() },
    { name: 'j_ts_us', type: new arrow.TimestampMicrosecond(), canon: 'timestamp(us)', gen: timestampGen() },
    { name: 'j_ts_us_utc', type: new arrow.TimestampMicrosecond('UTC'), canon: 'timestamp(us,UTC)', gen: timestampGen() },
    { name: 'j_ts_ns_tokyo', type: new arrow.TimestampNanosecond('Asia/Tokyo'), canon: 'timestamp(ns,Asia/Tokyo)', gen: timestampGen() },
    { name: 'j_interval', type: new arrow.IntervalMonthDayNano(), canon: 'interval_mdn', gen: intervalGen() },
    { name: 'j_utf8', type: new arrow.Utf8(), canon: 'utf8', gen: utf8Gen() },
    { name: 'j_binary', type: new arrow.Binary(), canon: 'binary', gen: binaryGen() },
    { name: 'j_dict', type: dict, canon: 'dictionary(int32,utf8)', dictValues: DICT_VALUES },
    { name: 'j_dict_i8_ordered', type: dictI8, canon: 'dictionary(int8,utf8,ordered)', dictValues: DICT_I8_VALUES },
    { name: 'j_int64_not_null', type: new arrow.Int64(), canon: 'int64', nullable: false, gen: intGen(64, true) },
    { name: 'j_ключ', type: new arrow.Utf8(), canon: 'utf8', gen: utf8Gen() },
  ];
}

// Canonical values of any type the nested table uses; nested ones are arrays whose lengths (0..3,
// empty lists included) and nulls at every level follow from the row and column.
function valueGen(type) {
  switch (type.typeId) {
    case arrow.Type.Bool: return (r, c) => ((mix(r, c) & 1n) ? 'true' : 'false');
    case arrow.Type.Int: return intGen(type.bitWidth, type.isSigned);
    case arrow.Type.Float: return floatGen(type.precision === arrow.Precision.SINGLE ? 32 : 64);
    case arrow.Type.Decimal: return decimalGen(type.precision);
    case arrow.Type.Date: return dateGen();
    case arrow.Type.Utf8: return utf8Gen();
    case arrow.Type.List:
    case arrow.Type.LargeList:
    case arrow.Type.FixedSizeList: {
      const item = type.children[0];
      const gen = valueGen(item.type);
      const fixed = type.typeId === arrow.Type.FixedSizeList;
      return (r, c) => Array.from({ length: fixed ? type.listSize : Number(mix(r, c + 50) % 4n) },
        (_, k) => (item.nullable && (r + k * 3 + c) % 5 === 0 ? null : gen(r * 4 + k, c + 1)));
    }
    case arrow.Type.Struct: {
      const gens = type.children.map((f) => valueGen(f.type));
      return (r, c) => type.children.map((f, k) => (f.nullable && (r + k + c) % 6 === 0 ? null : gens[k](r, c + 1 + k)));
    }
    case arrow.Type.Map: {
      const [key, value] = type.children[0].type.children;
      const keyGen = valueGen(key.type);
      const valueGenerator = valueGen(value.type);
      return (r, c) => Array.from({ length: Number(mix(r, c + 60) % 4n) }, (_, k) => [
        keyGen(r * 4 + k, c + 1),
        value.nullable && (r + k + c) % 4 === 0 ? null : valueGenerator(r * 4 + k, c + 2),
      ]);
    }
    default: throw new Error(`no generator for ${type}`);
  }
}

function nestedSpec() {
  const f = (name, type, nullable = true) => new arrow.Field(name, type, nullable);
  const point = new arrow.Struct([f('x', new arrow.Int32()), f('name', new arrow.Utf8())]);
  const entries = (k, v) => f('entries', new arrow.Struct([f('key', k, false), f('value', v)]), false);
  const spec = [
    { name: 'j_ints', type: new arrow.List(f('item', new arrow.Int32())) },
    { name: 'j_strings', type: new arrow.List(f('element', new arrow.Utf8(), false)) },
    { name: 'j_matrix', type: new arrow.List(f('item', new arrow.List(f('item', new arrow.Int64())))) },
    { name: 'j_points', type: new arrow.List(f('item', point)) },
    {
      // Decimal128 of precision 15 inside a struct: Shoal narrows it to its 64-bit decimals.
      name: 'j_record',
      type: new arrow.Struct([f('id', new arrow.Int64(), false), f('tags', new arrow.List(f('item', new arrow.Utf8()))),
        f('price', new arrow.Decimal(2, 15, 128)), f('inner', point)]),
      metadata: { 'js.comment': 'struct of list' },
    },
    { name: 'j_map', type: new arrow.Map_(entries(new arrow.Utf8(), new arrow.Int32())) },
    { name: 'j_map_of_lists', type: new arrow.Map_(entries(new arrow.Int64(), new arrow.List(f('item', new arrow.Float64())))) },
    { name: 'j_fixed', type: new arrow.FixedSizeList(3, f('item', new arrow.Int16())) },
    { name: 'j_fixed_structs', type: new arrow.FixedSizeList(2, f('item', point)) },
    { name: 'j_large', type: new arrow.LargeList(f('item', new arrow.Utf8())) },
    { name: 'j_not_null', type: new arrow.List(f('item', new arrow.DateDay())), nullable: false },
  ];
  return spec.map((s) => ({ ...s, canon: canonicalType(s.type), gen: valueGen(s.type) }));
}

const SCHEMA_METADATA = { 'shoal.interop': 'js', 'clé': 'välue ✓' };

function makeSchema(spec, metadata = SCHEMA_METADATA) {
  const fields = spec.map((s) => new arrow.Field(s.name, s.type, s.nullable ?? true, new Map(Object.entries(s.metadata ?? {}))));
  return new arrow.Schema(fields, new Map(Object.entries(metadata)));
}

function expectedSchema(spec, metadata = SCHEMA_METADATA) {
  return {
    schema: spec.map((s) => ({ name: s.name, type: s.canon, nullable: s.nullable ?? true, metadata: s.metadata ?? {} })),
    metadata,
  };
}

// Rows [first, first + n) of a table; `dictionaries` maps a column name to the arrow.Vector its
// batch uses (shared across batches for the file format, which allows one dictionary per id).
function makeBatch(schema, spec, first, n, withNulls, dictionaries) {
  const children = [];
  const columns = [];
  spec.forEach((s, c) => {
    const rows = Array.from({ length: n }, (_, k) => first + k);
    const isNull = (r) => s.type.typeId === arrow.Type.Null
      || ((s.nullable ?? true) && withNulls && (r * 5 + c * 2) % 7 === 0);
    if (arrow.DataType.isDictionary(s.type)) {
      const { vector, values } = dictionaries[s.name];
      const indices = rows.map((r) => (isNull(r) ? null : (r * 3 + c) % values.length));
      const built = buildDictData(s.type, indices, vector, values);
      children.push(built.data);
      columns.push(built.values);
      return;
    }
    const values = rows.map((r) => (isNull(r) ? null : s.gen(r, c)));
    children.push(buildData(s.type, values));
    columns.push(values);
  });
  const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: n, nullCount: 0, children });
  return { batch: new arrow.RecordBatch(schema, data), expected: { num_rows: n, columns } };
}

function dictionaryVector(type, values) {
  return { vector: new arrow.Vector([buildData(type.dictionary, values)]), values };
}

function writeIpc(file, schema, batches, compressionType) {
  const Writer = file ? arrow.RecordBatchFileWriter : arrow.RecordBatchStreamWriter;
  const writer = new Writer(compressionType === null ? {} : { compressionType });
  writer.reset(undefined, schema);
  for (const b of batches) writer.write(b);
  writer.finish();
  return writer.toUint8Array(true);
}

async function main() {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node write_js.mjs DIR');
    process.exit(2);
  }
  await registerCodecs();
  fs.mkdirSync(dir, { recursive: true });
  const cases = [];

  const spec = allTypesSpec();
  const schema = makeSchema(spec);
  const shared = {
    j_dict: dictionaryVector(spec.find((s) => s.name === 'j_dict').type, DICT_VALUES),
    j_dict_i8_ordered: dictionaryVector(spec.find((s) => s.name === 'j_dict_i8_ordered').type, DICT_I8_VALUES),
  };
  const parts = [
    makeBatch(schema, spec, 0, 13, true, shared),
    makeBatch(schema, spec, 40, 0, true, shared),   // an empty batch
    makeBatch(schema, spec, 100, 21, true, shared),
    makeBatch(schema, spec, 300, 8, false, shared),  // no nulls: no validity bitmaps
  ];
  const compressions = { none: null, lz4_frame: arrow.CompressionType.LZ4_FRAME, zstd: arrow.CompressionType.ZSTD };
  for (const file of [true, false]) {
    for (const [cname, ctype] of Object.entries(compressions)) {
      cases.push({
        name: `js_all_types_${file ? 'file' : 'stream'}_${cname}`, file, compression: ctype, schema,
        batches: parts.map((p) => p.batch),
        expected: { ...expectedSchema(spec), batches: parts.map((p) => p.expected) },
      });
    }
    cases.push({
      name: `js_no_batches_${file ? 'file' : 'stream'}`, file, compression: null, schema, batches: [],
      expected: { ...expectedSchema(spec), batches: [] },
    });
  }

  // Every nested shape, with nulls at every level, empty lists and a sliced batch.
  {
    const nspec = nestedSpec();
    const nschema = makeSchema(nspec);
    const nparts = [
      makeBatch(nschema, nspec, 0, 13, true, {}),
      makeBatch(nschema, nspec, 40, 0, true, {}),
      makeBatch(nschema, nspec, 300, 8, false, {}),
    ];
    const whole = makeBatch(nschema, nspec, 100, 21, true, {});
    nparts.push({
      batch: whole.batch.slice(3, 17),
      expected: { num_rows: 14, columns: whole.expected.columns.map((col) => col.slice(3, 17)) },
    });
    for (const file of [true, false]) {
      for (const [cname, ctype] of [['none', null], ['zstd', arrow.CompressionType.ZSTD]]) {
        cases.push({
          name: `js_nested_${file ? 'file' : 'stream'}_${cname}`, file, compression: ctype, schema: nschema,
          batches: nparts.map((p) => p.batch),
          expected: { ...expectedSchema(nspec), batches: nparts.map((p) => p.expected) },
        });
      }
    }
  }

  // Stream format: every batch but the third brings its own dictionary (a replacement), and the
  // delta stream extends the first dictionary with delta batches.
  const dictSpec = [
    { name: 'id', type: new arrow.Int64(), canon: 'int64', nullable: false, gen: (r) => String(r) },
    { name: 'd', type: new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()), canon: 'dictionary(int32,utf8)' },
  ];
  const dictSchema = makeSchema(dictSpec, {});
  {
    const dicts = [['a', 'b'], ['c', null, 'd', 'e'], null, ['f']];
    let current;
    const parts2 = dicts.map((values, k) => {
      if (values) current = dictionaryVector(dictSpec[1].type, values);
      return makeBatch(dictSchema, dictSpec, k * 5, 5, true, { d: current });
    });
    cases.push({
      name: 'js_dict_replacement_stream', file: false, compression: null, schema: dictSchema,
      batches: parts2.map((p) => p.batch),
      expected: { ...expectedSchema(dictSpec, {}), batches: parts2.map((p) => p.expected) },
    });
  }
  {
    const type = dictSpec[1].type;
    const chunks = [buildData(type.dictionary, ['p', 'q']), buildData(type.dictionary, ['r', null]), buildData(type.dictionary, ['s'])];
    const values = ['p', 'q', 'r', null, 's'];
    const parts3 = [1, 2, 3].map((k) => {
      const vector = new arrow.Vector(chunks.slice(0, k));
      const n = [2, 4, 5][k - 1];  // values the first k chunks hold
      return makeBatch(dictSchema, dictSpec, k * 7, 7, true, { d: { vector, values: values.slice(0, n) } });
    });
    // The file format allows deltas too (not replacements); they apply in footer order.
    for (const file of [false, true]) {
      cases.push({
        name: `js_dict_delta_${file ? 'file' : 'stream'}`, file, compression: null, schema: dictSchema,
        batches: parts3.map((p) => p.batch),
        expected: { ...expectedSchema(dictSpec, {}), batches: parts3.map((p) => p.expected) },
      });
    }
  }

  let failed = 0;
  for (const c of cases) {
    const bytes = writeIpc(c.file, c.schema, c.batches, c.compression);
    if (c.compression !== null) {
      const messages = walkMessages(bytes, c.file ? 8 : 0);
      const repaired = repairLengthPrefixes(bytes, messages);
      const problems = checkLengthPrefixes(bytes, messages);
      if (problems.length > 0 || messages.length === 0) {
        failed++;
        console.error(`FAIL ${c.name}: ${messages.length} messages, length prefixes still wrong: ${problems.join('; ')}`);
      }
      console.log(`${c.name}: repaired ${repaired} compressed-buffer length prefixes`);
    }
    const file = path.join(dir, `${c.name}.${c.file ? 'arrow' : 'arrows'}`);
    fs.writeFileSync(file, bytes);
    fs.writeFileSync(path.join(dir, `${c.name}.expected.json`), `${JSON.stringify(c.expected, null, 1)}\n`);
    const diffs = diffCanonical(c.expected, readCanonical(bytes).json);
    if (diffs.length > 0) {
      failed++;
      console.error(`FAIL apache-arrow does not read back its own ${file}:`);
      for (const d of diffs) console.error(`  ${d}`);
    } else {
      console.log(`wrote ${file} (${c.batches.length} batches)`);
    }
  }
  process.exit(failed > 0 ? 1 : 0);
}

await main();
