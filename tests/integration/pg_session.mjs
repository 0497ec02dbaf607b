// A minimal PostgreSQL wire-protocol client (simple query protocol, trust authentication) for the
// integration scripts that need more than psql tells: whether rows reached the client before an
// error, the NOTICEs of each statement, and a per-statement deadline that turns a hang into a
// result instead of a stalled script. One connection is one server session.
//
//   const s = await PgSession.Connect('127.0.0.1', port);
//   const r = await s.Query('SELECT 1', 30000);  // { header, rows, error, notices, ms, hung }
//   s.Close();
import net from 'node:net';

function Int32(v) {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
}

// The fields of an ErrorResponse or NoticeResponse body: { S, C, M, ... } by field code.
function Fields(body) {
  const out = {};
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const code = String.fromCharCode(body[at]);
    const end = body.indexOf(0, at + 1);
    out[code] = body.toString('utf8', at + 1, end);
    at = end + 1;
  }
  return out;
}

export class PgSession {
  constructor(socket) {
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.waiter = null;  // called with each message while a statement runs
    this.closed = null;  // why the connection ended, once it has
    socket.on('data', (data) => {
      this.buffer = Buffer.concat([this.buffer, data]);
      while (this.buffer.length >= 5) {
        const length = this.buffer.readInt32BE(1);
        if (this.buffer.length < 1 + length) break;
        const message = { type: String.fromCharCode(this.buffer[0]),
                          body: this.buffer.subarray(5, 1 + length) };
        this.buffer = this.buffer.subarray(1 + length);
        if (this.waiter) this.waiter(message);
      }
    });
    const end = (why) => {
      if (this.closed === null) this.closed = why;
      if (this.waiter) this.waiter({ type: 'closed', body: Buffer.alloc(0) });
    };
    socket.on('error', (e) => end(e.message));
    socket.on('close', () => end('the server closed the connection'));
  }

  /// Connects as user `user` to database shoal; resolves once the server is ready for queries.
  static Connect(host, port, user = 'tester', timeoutMs = 30000) {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      const session = new PgSession(socket);
      const guard = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no ready session from ${host}:${port} within ${timeoutMs} ms`));
      }, timeoutMs);
      session.waiter = (m) => {
        if (m.type === 'Z') {
          clearTimeout(guard);
          session.waiter = null;
          resolve(session);
        } else if (m.type === 'E' || m.type === 'closed' ||
                   (m.type === 'R' && m.body.readInt32BE(0) !== 0)) {
          clearTimeout(guard);
          socket.destroy();
          reject(new Error(`connecting to ${host}:${port}: ` +
                           (m.type === 'E' ? Fields(m.body).M : m.type === 'R'
                               ? 'the server asks for a password' : session.closed)));
        }
      };
      socket.on('connect', () => {
        const body = Buffer.concat([Int32(196608),
                                    Buffer.from(`user\0${user}\0database\0shoal\0\0`)]);
        socket.write(Buffer.concat([Int32(body.length + 4), body]));
      });
    });
  }

  /// Runs `sql` (one statement) and resolves with { header, rows (text or null values), error
  /// (the ErrorResponse fields, or null), rowsBeforeError, notices (messages), ms, hung }. After
  /// `deadlineMs` without ReadyForQuery the connection is closed and `hung` is true.
  Query(sql, deadlineMs) {
    return new Promise((resolve) => {
      const started = Date.now();
      const r = { header: null, rows: [], error: null, rowsBeforeError: 0, notices: [], ms: 0,
                  hung: false, closed: null };
      const finish = () => {
        clearTimeout(guard);
        this.waiter = null;
        r.ms = Date.now() - started;
        resolve(r);
      };
      const guard = setTimeout(() => {
        r.hung = true;
        this.socket.destroy();
        finish();
      }, deadlineMs);
      if (this.closed !== null) {
        r.closed = this.closed;
        finish();
        return;
      }
      this.waiter = (m) => {
        const b = m.body;
        if (m.type === 'T') {
          const n = b.readInt16BE(0);
          let at = 2;
          r.header = [];
          for (let i = 0; i < n; ++i) {
            const end = b.indexOf(0, at);
            r.header.push(b.toString('utf8', at, end));
            at = end + 1 + 18;
          }
        } else if (m.type === 'D') {
          const n = b.readInt16BE(0);
          let at = 2;
          const row = [];
          for (let i = 0; i < n; ++i) {
            const length = b.readInt32BE(at);
            at += 4;
            if (length < 0) {
              row.push(null);
            } else {
              row.push(b.toString('utf8', at, at + length));
              at += length;
            }
          }
          r.rows.push(row);
        } else if (m.type === 'E') {
          r.error = Fields(b);
          r.rowsBeforeError = r.rows.length;
        } else if (m.type === 'N') {
          r.notices.push(Fields(b).M);
        } else if (m.type === 'Z') {
          finish();
        } else if (m.type === 'closed') {
          r.closed = this.closed;
          finish();
        }
      };
      const text = Buffer.from(sql + '\0');
      this.socket.write(Buffer.concat([Buffer.from('Q'), Int32(text.length + 4), text]));
    });
  }

  Close() {
    if (this.closed === null) {
      this.socket.write(Buffer.from([0x58, 0, 0, 0, 4]));  // Terminate
      this.socket.end();
    }
  }
}
