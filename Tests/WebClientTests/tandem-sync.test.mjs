// Unit tests of the web client library (Sources/TandemServer/Page/Assets/tandem-sync.mjs) under node's
// test runner. The patch vectors are shared: TandemProtocolTests runs the same file through the
// server's Document, so the two implementations cannot drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { applyOps, backoffDelay, scrollSpacing, Session } from '../../Sources/TandemServer/Page/Assets/tandem-sync.mjs';

const vectors = JSON.parse(readFileSync(new URL('../Fixtures/patch-vectors.json', import.meta.url), 'utf8'));

test('every shared patch vector applies as the server applies it, or is refused whole', () => {
  assert.ok(vectors.length >= 25);
  for (const [index, vector] of vectors.entries()) {
    const before = JSON.stringify(vector.document);
    let outcome;
    try {
      outcome = { document: applyOps(structuredClone(vector.document), vector.ops) };
    } catch (error) {
      outcome = { refused: true };
    }
    assert.deepEqual(outcome, vector.expected, `vector ${index}: ${JSON.stringify(vector.ops)} on ${before}`);
  }
});

test('scroll offsets are spaced by the round trip as the Swift client spaces them (shared cases)', () => {
  const cases = JSON.parse(readFileSync(new URL('../Fixtures/high-rate-spacing.json', import.meta.url), 'utf8'));
  assert.ok(cases.length >= 5);
  for (const { roundTripMs, spacingMs, why } of cases) {
    assert.ok(Math.abs(scrollSpacing(roundTripMs) - spacingMs) < 0.001, `${roundTripMs} ms: ${scrollSpacing(roundTripMs)} (${why})`);
  }
});

test('a refused patch leaves the document as it was', () => {
  const document = { a: 1 };
  assert.throws(() => applyOps(document, [{ op: 'set', path: '/b', value: 1 }, { op: 'set', path: '/a/c', value: 1 }]));
  assert.deepEqual(document, { a: 1 });
});

test('a key named __proto__ is a plain member, never the prototype', () => {
  const result = applyOps({}, [{ op: 'set', path: '/__proto__/hacked', value: true }]);
  assert.equal(({}).hacked, undefined);
  assert.ok(Object.keys(result).includes('__proto__'));
});

test('the backoff bound doubles from the base to the cap, with full jitter below it', () => {
  const policy = { base: 500, cap: 8000 };
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 1)), [500, 1000, 2000, 4000, 8000, 8000]);
  assert.equal(backoffDelay(3, policy, () => 0), 0);
});

test('a session sends hello first, then a change as a patch, and shows it at once', async () => {
  const sockets = [];
  globalThis.WebSocket = class {
    constructor(url, protocol) {
      this.url = url; this.protocol = protocol; this.sent = []; this.readyState = 0; sockets.push(this);
      setTimeout(() => { this.readyState = 1; if (this.onopen) this.onopen(); }, 0);
    }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() { this.readyState = 3; this.closed = true; }
    deliver(message) { if (this.onmessage) this.onmessage({ data: JSON.stringify(message) }); }
  };
  globalThis.WebSocket.OPEN = 1;
  const session = new Session({ url: 'ws://fake/v1/sync', token: 't', client: 'c1', backoff: { base: 10, cap: 20 } });
  session.start();
  await new Promise((resolve) => setTimeout(resolve, 10));
  const socket = sockets[0];
  assert.equal(socket.protocol, 'tandem.v1');
  assert.deepEqual(socket.sent[0], { type: 'hello', token: 't', client: 'c1', presence: {} });
  socket.deliver({ type: 'welcome', epoch: 'e1', rev: 0, state: {}, lastSeq: 0, you: { user: 'u', client: 'c1', role: 'host' },
    participants: [], heartbeat: { interval: 10000, timeout: 30000 }, limits: { rate: 0 } });
  assert.equal(session.change([{ op: 'set', path: '/tabIndex', value: 2 }]), true);
  assert.deepEqual(session.visible, { tabIndex: 2 });
  assert.deepEqual(socket.sent.find((m) => m.type === 'patch'), { type: 'patch', seq: 1, ops: [{ op: 'set', path: '/tabIndex', value: 2 }] });
  session.stop();
});
