// Unit tests of the web client library (Sources/TandemServer/Page/Assets/tandem-sync.mjs) under node's
// test runner. The patch vectors are shared: TandemProtocolTests runs the same file through the
// server's Document, so the two implementations cannot drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { applyOps, backoffDelay, scrollSpacing, Session } from '../../Sources/TandemServer/Page/Assets/tandem-sync.mjs';
import { ScrollInterpolator } from '../../Sources/TandemServer/Page/Assets/scroll-interpolator.mjs';

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

test('a refused patch leaves the document as it was, and an applied one works on a copy', () => {
  const document = { a: 1 };
  assert.throws(() => applyOps(document, [{ op: 'set', path: '/b', value: 1 }, { op: 'set', path: '/a/c', value: 1 }]));
  assert.deepEqual(document, { a: 1 });
  const original = { list: [1, 2] };
  assert.deepEqual(applyOps(original, [{ op: 'set', path: '/list/1', value: 9 }]), { list: [1, 9] });
  assert.deepEqual(original, { list: [1, 2] });
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

// A session against scripted sockets on a hand-driven clock: node's mock timers run the library's
// timeouts and intervals and its `now`, so every wait below is exact and nothing sleeps. Every socket
// the session opens is in `sockets`, with what it sent; `deliver` hands it a message (an object, or raw text).
function scripted(t, options = {}) {
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 0 });
  const sockets = [];
  globalThis.WebSocket = class {
    constructor(url, protocol) {
      this.url = url; this.protocol = protocol; this.sent = []; this.readyState = 0; sockets.push(this);
      setTimeout(() => { this.readyState = 1; if (this.onopen) this.onopen(); }, 0);
    }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() { this.readyState = 3; this.closed = true; }
    deliver(message) { if (this.onmessage) this.onmessage({ data: typeof message === 'string' ? message : JSON.stringify(message) }); }
  };
  globalThis.WebSocket.OPEN = 1;
  const session = new Session(Object.assign({ url: 'ws://fake/v1/sync', token: 't', client: 'c1', backoff: { base: 10, cap: 20 },
    now: () => Date.now(), random: () => 1 }, options));
  const tick = (ms) => t.mock.timers.tick(ms);
  const until = (check, limit) => {
    for (let waited = 0; !check() && waited < limit; waited += 1) tick(1);
    return check();
  };
  session.start();
  tick(0);
  return { session, sockets, tick, until };
}

const welcome = (fields) => Object.assign({ type: 'welcome', epoch: 'e1', rev: 0, state: {}, lastSeq: 0, you: { user: 'u', client: 'c1', role: 'host' },
  participants: [], heartbeat: { interval: 10000, timeout: 30000 }, limits: { rate: 0 } }, fields);

test('a session sends hello first, then a change as a patch, and shows it at once', (t) => {
  const { session, sockets } = scripted(t);
  const socket = sockets[0];
  assert.equal(socket.protocol, 'tandem.v1');
  assert.deepEqual(socket.sent[0], { type: 'hello', token: 't', client: 'c1', presence: {} });
  socket.deliver(welcome());
  assert.equal(session.change([{ op: 'set', path: '/tabIndex', value: 2 }]), true);
  assert.deepEqual(session.visible, { tabIndex: 2 });
  assert.deepEqual(socket.sent.find((m) => m.type === 'patch'), { type: 'patch', seq: 1, ops: [{ op: 'set', path: '/tabIndex', value: 2 }] });
  session.stop();
});

test('a pending change stays on top of a remote one, a reject rolls it back, scroll offsets coalesce to one per slot', (t) => {
  const { session, sockets, tick } = scripted(t, { presence: { name: 'T' } });
  const socket = sockets[0];
  assert.deepEqual(socket.sent[0], { type: 'hello', token: 't', client: 'c1', presence: { name: 'T' } }, 'no resume on the first connection');
  socket.deliver(welcome({ rev: 3, state: { tabIndex: 0, keep: 'x' } }));
  session.change([{ op: 'set', path: '/tabIndex', value: 2 }]);
  assert.deepEqual(socket.sent.find((m) => m.type === 'patch'), { type: 'patch', seq: 1, ops: [{ op: 'set', path: '/tabIndex', value: 2 }] });
  socket.deliver({ type: 'patch', rev: 4, user: 'o', client: 'o1', seq: 7, ops: [{ op: 'set', path: '/marks/a', value: true }, { op: 'set', path: '/tabIndex', value: 1 }] });
  assert.deepEqual(session.visible, { tabIndex: 2, keep: 'x', marks: { a: true } });
  socket.deliver({ type: 'reject', seq: 1, code: 'invalid_op', message: 'no' });
  assert.deepEqual(session.visible, { tabIndex: 1, keep: 'x', marks: { a: true } });

  // Ten offsets 5 ms apart, before any ack: the first goes at once, then one per 33 ms slot, each the newest then.
  const before = socket.sent.length;
  for (let y = 1; y <= 10; y++) { session.change([{ op: 'set', path: '/contentOffset', value: { x: 0, y: y * 10 } }]); tick(5); }
  tick(80);
  const scrolls = socket.sent.slice(before).filter((m) => m.type === 'patch');
  assert.deepEqual(scrolls.map((m) => m.ops[0].value.y), [10, 70, 100]);
  for (const m of scrolls) socket.deliver({ type: 'ack', seq: m.seq, rev: 3 + m.seq, duplicate: false });
  assert.equal(session.unacknowledged, 0);
  assert.deepEqual(session.visible.contentOffset, { x: 0, y: 100 });
  session.stop();
});

test('a silent connection is dropped after two heartbeat intervals and the session resumes, or takes a full state', (t) => {
  const { session, sockets, tick, until } = scripted(t);
  const first = sockets[0];
  first.deliver(welcome({ rev: 3, heartbeat: { interval: 150, timeout: 450 } }));
  session.change([{ op: 'set', path: '/tabIndex', value: 2 }]);
  first.deliver({ type: 'ack', seq: 1, rev: 4, duplicate: false });
  const silentSince = Date.now();
  assert.ok(until(() => sockets.length === 2, 1000), 'a second connection');
  const deadAfter = Date.now() - silentSince;
  // Nothing for more than two intervals (300 ms), seen at the next check (every 75 ms), then the backoff (10 ms).
  assert.ok(deadAfter > 300 && deadAfter <= 300 + 75 + 10 + 1, `reconnected after ${deadAfter} ms`);
  assert.ok(first.sent.some((m) => m.type === 'ping'), 'it pinged first');
  assert.equal(first.closed, true);
  tick(0);
  assert.deepEqual(sockets[1].sent[0].resume, { epoch: 'e1', rev: 4 });
  // The history no longer covers that rev: the server answers with a full state.
  sockets[1].deliver(welcome({ epoch: 'e2', rev: 1, state: { tabIndex: 5 } }));
  assert.equal(session.status.welcome, 'snapshot');
  assert.equal(session.status.reconnects, 1);
  assert.deepEqual(session.visible, { tabIndex: 5 });
  session.stop();
});

test("a page tells its own events from another user's with the same client id", (t) => {
  const lists = [];
  const { session, sockets } = scripted(t, { onParticipants: (list) => lists.push(list.map((p) => p.user + '/' + p.client + (p.you ? '*' : ''))) });
  const socket = sockets[0];
  socket.deliver(welcome({ you: { user: 'alice', client: 'c1', role: 'host' },
    participants: [{ user: 'alice', client: 'c1', role: 'host', data: {} }, { user: 'mallory', client: 'c1', role: 'guest', data: {} }] }));
  session.change([{ op: 'set', path: '/mine', value: 1 }]);
  // Mallory's patch, same client id and seq: another participant's change, not the ack of ours.
  socket.deliver({ type: 'patch', rev: 1, user: 'mallory', client: 'c1', seq: 1, ops: [{ op: 'set', path: '/theirs', value: 1 }] });
  assert.equal(session.unacknowledged, 1, 'still waiting for its own ack');
  socket.deliver({ type: 'leave', user: 'mallory', client: 'c1' });
  socket.deliver({ type: 'ack', seq: 1, rev: 2, duplicate: false });
  assert.equal(session.unacknowledged, 0);
  assert.deepEqual(session.visible, { mine: 1, theirs: 1 });
  assert.deepEqual(lists[0], ['alice/c1*', 'mallory/c1'], 'two participants, one of them this page');
  assert.deepEqual(lists[lists.length - 1], ['alice/c1*'], "Mallory's leave removes Mallory only");
  session.stop();
});

test('the heartbeat rides out a late pong, and a message that is not JSON ends the connection', (t) => {
  const { session, sockets, tick, until } = scripted(t);
  const first = sockets[0];
  const pings = () => first.sent.filter((m) => m.type === 'ping');
  first.deliver(welcome({ heartbeat: { interval: 2000, timeout: 6000 } }));
  // The first ping is answered at once: the pong deadline becomes 1 s (the floor of RFC 6298's timeout).
  assert.ok(until(() => pings().length === 1, 2500));
  first.deliver({ type: 'pong', t: pings()[0].t });
  // The second is answered 1.5 s late: a miss, a retry, "weak network", then recovery.
  assert.ok(until(() => pings().length === 2, 2500));
  const late = pings()[1].t;
  assert.ok(until(() => session.status.weakNetwork === true, 1500), 'a late pong is a weak network');
  assert.equal(pings().length, 3, 'the ping is tried again at once');
  tick(late + 1500 - Date.now());
  first.deliver({ type: 'pong', t: late });
  assert.equal(session.status.weakNetwork, false);
  assert.equal(session.status.state, 'connected');
  assert.equal(sockets.length, 1, 'a late pong is not a dead connection');
  first.deliver('{"type":"patch",');
  assert.equal(first.closed, true);
  assert.ok(until(() => sockets.length === 2, 100), 'it reconnects');
  session.stop();
});

test('the scroll interpolator shows what the shared cases say, as the Swift one does', () => {
  const { cases } = JSON.parse(readFileSync(new URL('../Fixtures/scroll-interpolation.json', import.meta.url), 'utf8'));
  assert.ok(cases.length >= 7);
  for (const vector of cases) {
    const interpolator = new ScrollInterpolator(vector.maximumDelayMs === undefined ? {} : { maximumDelayMs: vector.maximumDelayMs });
    for (const step of vector.steps) {
      if (step.receive !== undefined) interpolator.receive({ x: 0, y: step.receive }, step.at);
      else if (step.reset) interpolator.reset();
      else {
        const frame = interpolator.frame(step.frame);
        assert.ok(Math.abs(frame.offset.y - step.y) < 0.01, `${vector.name}: at ${step.frame} ms shows ${frame.offset.y}, not ${step.y}`);
        assert.equal(frame.resting, step.resting, `${vector.name}: at ${step.frame} ms`);
      }
    }
  }
});

test('the shared protocol scenarios end as they say, as they do for the Swift client', (t) => {
  const { welcome: base, scenarios } = JSON.parse(readFileSync(new URL('../Fixtures/client-protocol.json', import.meta.url), 'utf8'));
  assert.ok(scenarios.length >= 8);
  for (const scenario of scenarios) {
    t.mock.timers.reset();
    const { session, sockets, tick } = scripted(t);
    let checked = 0;
    const sentPatches = () => sockets.flatMap((socket) => socket.sent).filter((m) => m.type === 'patch').map((m) => ({ seq: m.seq, ops: m.ops }));
    for (const step of scenario.steps) {
      const where = `${scenario.name}: ${JSON.stringify(step)}`;
      if (step.deliver) {
        let message = step.deliver;
        if (message.type === 'welcome') {
          message = Object.assign({}, base, message);
          for (const key of Object.keys(message)) if (message[key] === null) delete message[key];
        }
        sockets[sockets.length - 1].deliver(message);
      } else if (step.change) {
        assert.equal(session.change(step.change), !step.refused, where);
      } else if (step.lost) {
        const socket = sockets[sockets.length - 1];
        socket.onclose({ code: 1006, reason: '' });
      } else if (step.sent) {
        const all = sentPatches();
        assert.deepEqual(all.slice(checked), step.sent, where);
        checked = all.length;
      } else if (step.visible) {
        assert.deepEqual(session.visible, step.visible, where);
      } else if (step.pending !== undefined) {
        assert.equal(session.unacknowledged, step.pending, where);
      }
      tick(50);
    }
    session.stop();
  }
});
