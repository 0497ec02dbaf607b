// A strict parser of Prometheus's text exposition format 0.0.4, for the tests of `/metrics`
// (console.mjs). It accepts only what the format allows and throws, naming the line, on anything
// else: a sample before its family's TYPE, a family split in two, a bad name or label, an
// unescaped quote, a value that is not a float, histogram buckets that are not cumulative or whose
// +Inf bucket is not _count.
//
//   ParsePrometheusText(text) -> Map(family name -> {type, help, samples: [{name, labels, value}]})
//   SampleValue(families, name, labels = {}) -> the value of the sample with exactly those labels

const kName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const kLabelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const kTypes = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function ParseValue(text, where) {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: bad value '${text}'`);
  return Number(text);
}

// Labels from `{` (at i) to the matching `}`; returns [labels, index after `}`].
function ParseLabels(line, i, where) {
  const labels = {};
  ++i;  // '{'
  for (;;) {
    if (line[i] === '}') return [labels, i + 1];
    const eq = line.indexOf('=', i);
    if (eq < 0) throw new Error(`${where}: label without '='`);
    const name = line.slice(i, eq);
    if (!kLabelName.test(name)) throw new Error(`${where}: bad label name '${name}'`);
    if (name in labels) throw new Error(`${where}: label '${name}' twice`);
    if (line[eq + 1] !== '"') throw new Error(`${where}: label value not quoted`);
    let value = '';
    let j = eq + 2;
    for (;; ++j) {
      if (j >= line.length) throw new Error(`${where}: unterminated label value`);
      const c = line[j];
      if (c === '"') break;
      if (c === '\\') {
        const n = line[++j];
        if (n === 'n') value += '\n';
        else if (n === '\\' || n === '"') value += n;
        else throw new Error(`${where}: bad escape '\\${n}'`);
      } else {
        value += c;
      }
    }
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') ++i;
    else if (line[i] !== '}') throw new Error(`${where}: expected ',' or '}' after a label`);
  }
}

// The family a sample belongs to: itself, or a histogram/summary's name without its suffix.
function FamilyOf(families, name) {
  if (families.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length);
      const f = families.get(base);
      if (f && (f.type === 'histogram' || (f.type === 'summary' && suffix !== '_bucket'))) return base;
    }
  }
  return null;
}

export function ParsePrometheusText(text) {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the text does not end with a newline');
  const families = new Map();
  const closed = new Set();  // families whose samples ended (another family's began)
  let current = null;
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, index) => {
    const where = `line ${index + 1} '${line}'`;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = line.match(/^# (HELP|TYPE) (\S+)(?: (.*))?$/);
      if (!m) return;  // a plain comment
      const [, kind, name, rest = ''] = m;
      if (!kName.test(name)) throw new Error(`${where}: bad metric name`);
      if (closed.has(name) || (current !== null && current !== name && families.has(name)))
        throw new Error(`${where}: family ${name} split`);
      const family = families.get(name) ?? { type: 'untyped', help: null, samples: [], typed: false };
      if (kind === 'TYPE') {
        if (family.typed) throw new Error(`${where}: second TYPE`);
        if (family.samples.length) throw new Error(`${where}: TYPE after samples`);
        if (!kTypes.has(rest)) throw new Error(`${where}: unknown type '${rest}'`);
        family.type = rest;
        family.typed = true;
      } else {
        if (family.help !== null) throw new Error(`${where}: second HELP`);
        family.help = rest.replace(/\\(n|\\)/g, (_, c) => (c === 'n' ? '\n' : '\\'));
      }
      families.set(name, family);
      if (current !== null && current !== name) closed.add(current);
      current = name;
      return;
    }
    let i = 0;
    while (i < line.length && line[i] !== '{' && line[i] !== ' ') ++i;
    const name = line.slice(0, i);
    if (!kName.test(name)) throw new Error(`${where}: bad metric name '${name}'`);
    let labels = {};
    if (line[i] === '{') [labels, i] = ParseLabels(line, i, where);
    if (line[i] !== ' ') throw new Error(`${where}: expected a space before the value`);
    const parts = line.slice(i + 1).split(' ');
    if (parts.length < 1 || parts.length > 2) throw new Error(`${where}: expected a value and an optional timestamp`);
    const value = ParseValue(parts[0], where);
    if (parts.length === 2 && !/^-?\d+$/.test(parts[1])) throw new Error(`${where}: bad timestamp`);
    let familyName = FamilyOf(families, name);
    if (familyName === null) {
      familyName = name;  // untyped, without TYPE
      families.set(name, { type: 'untyped', help: null, samples: [], typed: false });
    }
    if (closed.has(familyName) || (current !== null && current !== familyName && families.get(familyName).samples.length))
      throw new Error(`${where}: family ${familyName} split`);
    if (current !== null && current !== familyName) closed.add(current);
    current = familyName;
    const family = families.get(familyName);
    if (family.type === 'histogram' && name === familyName) throw new Error(`${where}: a histogram sample needs a suffix`);
    if (name.endsWith('_bucket') && family.type === 'histogram' && !('le' in labels))
      throw new Error(`${where}: a bucket without 'le'`);
    family.samples.push({ name, labels, value });
  });
  for (const [name, family] of families) {
    if (family.type !== 'histogram') continue;
    // Per label set (without le): buckets increase, end at +Inf, which equals _count.
    const groups = new Map();
    for (const s of family.samples) {
      const { le, ...rest } = s.labels;
      const key = JSON.stringify(rest);
      const g = groups.get(key) ?? { buckets: [], count: null };
      if (s.name.endsWith('_bucket')) g.buckets.push([ParseValue(le, name), s.value]);
      if (s.name.endsWith('_count')) g.count = s.value;
      groups.set(key, g);
    }
    for (const [key, g] of groups) {
      for (let k = 1; k < g.buckets.length; ++k) {
        if (!(g.buckets[k][0] > g.buckets[k - 1][0])) throw new Error(`${name}${key}: bucket bounds not increasing`);
        if (g.buckets[k][1] < g.buckets[k - 1][1]) throw new Error(`${name}${key}: buckets not cumulative`);
      }
      const last = g.buckets[g.buckets.length - 1];
      if (!last || last[0] !== Infinity) throw new Error(`${name}${key}: no +Inf bucket`);
      if (g.count !== last[1]) throw new Error(`${name}${key}: +Inf bucket ${last[1]} != _count ${g.count}`);
    }
  }
  return families;
}

export function SampleValue(families, name, labels = {}) {
  for (const family of families.values()) {
    for (const s of family.samples) {
      if (s.name !== name) continue;
      const keys = Object.keys(s.labels);
      if (keys.length === Object.keys(labels).length && keys.every((k) => s.labels[k] === labels[k]))
        return s.value;
    }
  }
  return undefined;
}
