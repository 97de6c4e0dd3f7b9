// Tandem sync protocol v1 for web pages, as an ES module (served by `tandem serve` at
// /client/v1/tandem-sync.mjs): hello/welcome with resume, reconnect with exponential
// backoff and full jitter, heartbeat with RTT-based dead-connection detection, and an outbox of
// optimistic changes (visible state = confirmed state + pending patches replayed on top).
// It knows nothing of any product page: a page imports Session and renders what onState gives it.
const SUBPROTOCOL = 'tandem.v1';
// Close codes after which reconnecting cannot help (bad token, forbidden, replaced).
const FINAL_CLOSE_CODES = { 4001: 'the token is invalid or expired', 4003: 'access is forbidden', 4004: 'the room was deleted', 4009: 'this page was opened again elsewhere', 4010: 'the access this link gave has expired; ask the host for a new one' };
const SCROLL_PATH = '/contentOffset';
// The longest spacing of two scroll offsets, and the shortest (a frame of a 120 Hz display).
const SCROLL_INTERVAL_MS = 33;
const FASTEST_FRAME_MS = 1000 / 120;
// Patches sent and not yet acknowledged at most, as the Swift client's SyncEngineConfiguration.maxInFlight.
const MAX_IN_FLIGHT = 8;
const HELLO_TIMEOUT_MS = 10000;
// Pongs missed in a row, with nothing received in between, that end a connection.
const MAX_MISSES = 3;

// How far apart two scroll offsets go, ms, given the patches' smoothed round trip (null before the first
// ack): a quarter of it, between a 120 Hz frame and SCROLL_INTERVAL_MS, as the Swift client's
// SyncEngine.highRateSpacing (Tests/Fixtures/high-rate-spacing.json holds the cases both run).
function scrollSpacing(patchRtt) {
  if (patchRtt === null || patchRtt === undefined) return SCROLL_INTERVAL_MS;
  return Math.min(SCROLL_INTERVAL_MS, Math.max(FASTEST_FRAME_MS, patchRtt / 4));
}

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
const clone = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

function pointerTokens(path) {
  if (path === '') return [];
  if (typeof path !== 'string' || path[0] !== '/') throw new Error('invalid path ' + JSON.stringify(path));
  return path.slice(1).split('/').map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

// Own-property writes only, so keys like "__proto__" stay plain data.
function put(container, key, value) {
  Object.defineProperty(container, key, { value: value, writable: true, enumerable: true, configurable: true });
}

const elementIndex = (token) => (/^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : -1);

// The value at `tokens` below `node`, or undefined when the path leads nowhere.
function resolve(node, tokens) {
  for (const token of tokens) {
    if (Array.isArray(node)) {
      const index = elementIndex(token);
      if (index < 0 || index >= node.length) return undefined;
      node = node[index];
    } else if (isObject(node) && hasOwn(node, token)) {
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}

// JSON equality (RFC 6902 test): numbers by value, arrays in order, object members in any order.
function equal(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((value, i) => equal(value, b[i]));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => hasOwn(b, key) && equal(a[key], b[key]));
  }
  return a === b;
}

const sameTokens = (a, b) => a.length === b.length && a.every((token, i) => token === b[i]);

// Applies ops to a copy of `document` with the server's rules (see the protocol's op table: set
// creates parent objects, remove of a missing path is a no-op, the RFC 6902 ops as the RFC says);
// throws when an op cannot apply, leaving `document` as is.
function applyOps(document, ops) {
  let root = clone(document);
  const fail = (message) => { throw new Error(message); };
  const setRoot = (value) => { if (!isObject(value)) fail('the root can only be set to an object'); root = clone(value); };
  const parentOf = (tokens) => {
    const parent = resolve(root, tokens.slice(0, -1));
    if (parent === undefined) fail('the parent of /' + tokens.join('/') + ' does not exist');
    if (parent === null || typeof parent !== 'object') fail('the parent of /' + tokens.join('/') + ' is not an object or array');
    return parent;
  };
  const set = (tokens, value) => {
    if (tokens.length === 0) return setRoot(value);
    let parent = root;
    for (let i = 0; i < tokens.length - 1; i++) {
      const token = tokens[i];
      if (Array.isArray(parent)) {
        const index = elementIndex(token);
        if (index < 0 || index >= parent.length) fail('no array element ' + token);
        parent = parent[index];
      } else {
        if (!hasOwn(parent, token)) put(parent, token, {});
        parent = parent[token];
      }
      if (parent === null || typeof parent !== 'object') fail('cannot set inside a ' + (parent === null ? 'null' : typeof parent));
    }
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent)) {
      const index = elementIndex(last);
      if (index < 0 || index >= parent.length) fail('no array element ' + last);
      parent[index] = clone(value);
    } else {
      put(parent, last, clone(value));
    }
  };
  const remove = (tokens, required) => {
    if (tokens.length === 0) fail('the root cannot be removed');
    const parent = resolve(root, tokens.slice(0, -1));
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent)) {
      const index = elementIndex(last);
      if (index >= 0 && index < parent.length) { parent.splice(index, 1); return; }
    } else if (isObject(parent) && hasOwn(parent, last)) {
      delete parent[last];
      return;
    }
    if (required) fail('nothing is at /' + tokens.join('/'));
  };
  const add = (tokens, value) => {
    if (tokens.length === 0) return setRoot(value);
    const parent = parentOf(tokens);
    const last = tokens[tokens.length - 1];
    if (!Array.isArray(parent)) return put(parent, last, clone(value));
    const index = last === '-' ? parent.length : elementIndex(last);
    if (index < 0 || index > parent.length) fail('no place ' + last + ' in the array');
    parent.splice(index, 0, clone(value));
  };
  for (const op of ops) {
    const tokens = pointerTokens(op.path);
    const value = op.value;
    switch (op.op) {
      case 'set': set(tokens, value); break;
      case 'remove': remove(tokens, false); break;
      case 'add': add(tokens, value); break;
      case 'replace': {
        if (tokens.length === 0) { setRoot(value); break; }
        if (resolve(root, tokens) === undefined) fail('nothing to replace at ' + op.path);
        const parent = parentOf(tokens);
        const last = tokens[tokens.length - 1];
        if (Array.isArray(parent)) parent[elementIndex(last)] = clone(value); else put(parent, last, clone(value));
        break;
      }
      case 'test': {
        const current = resolve(root, tokens);
        if (current === undefined || !equal(current, value)) fail('test failed at ' + op.path);
        break;
      }
      case 'copy': case 'move': {
        const from = pointerTokens(op.from);
        const found = resolve(root, from);
        if (found === undefined) fail('nothing is at ' + op.from);
        if (op.op === 'copy') { add(tokens, found); break; }
        if (sameTokens(from, tokens)) break;
        if (tokens.length > from.length && sameTokens(from, tokens.slice(0, from.length))) fail(op.from + ' cannot move into its own child');
        const moved = clone(found);
        remove(from, true);
        add(tokens, moved);
        break;
      }
      default: fail('unknown op ' + op.op);
    }
  }
  return root;
}

// Full jitter: random(0, min(cap, base * 2^attempt)).
// A participant's key: its user and client id together, as the server keys them.
function peerKey(peer) {
  return JSON.stringify([peer.user, peer.client]);
}

function backoffDelay(attempt, policy, random) {
  return random() * Math.min(policy.cap, policy.base * Math.pow(2, attempt));
}

class Session {
  // options: url, token, client, presence, backoff {base, cap} (ms), random, now, and callbacks
  // onState(visible, origin), onStatus(status), onParticipants(list), onNotice(event).
  constructor(options) {
    this.url = options.url;
    this.token = options.token;
    this.client = options.client;
    this.presence = options.presence || {};
    this.backoff = options.backoff || { base: 500, cap: 8000 };
    this.random = options.random || Math.random;
    this.now = options.now || (() => performance.now());
    this.onState = options.onState || (() => {});
    this.onStatus = options.onStatus || (() => {});
    this.onParticipants = options.onParticipants || (() => {});
    this.onNotice = options.onNotice || (() => {});

    this.confirmed = {};
    this.rev = 0;
    this.epoch = null;
    this.seq = 0;
    this.pending = [];   // sent or to be sent: {seq, ops}
    this.resend = [];    // pending patches queued for (re)sending, in seq order
    this.draft = [];     // local ops not yet in a patch; coalesced by path
    this.visible = {};
    this.role = null;
    this.user = null;
    this.participants = new Map();
    this.seen = new Set();
    this.status = { state: 'idle' };
    this.attempt = 0;
    this.connections = 0;
    this.ws = null;
    this.timers = {};
    this.heartbeat = { interval: 10000, timeout: 30000 };
    this.paceMs = 0;
    this.lastSendAt = -Infinity;
    this.lastScrollAt = -Infinity;
    this.lastFrameAt = 0;
    this.pingSentAt = null;
    this.srtt = null;
    this.rttvar = null;
    // Smoothed round trip of patches, send to ack (RFC 6298's α): the spacing of scroll offsets follows it.
    this.patchRtt = null;
    this.stopped = false;
  }

  start() { this.connect(); }

  // Applies a local change at once (optimistic) and queues it; false when it is refused
  // (a viewer, a closed session, or ops that cannot apply to the visible state).
  change(ops) {
    if (this.role === 'viewer' || this.stopped) return false;
    try { applyOps(this.visible, ops); } catch (error) { return false; }
    for (const op of ops) {
      this.draft = this.draft.filter((queued) => queued.path !== op.path);
      this.draft.push(clone(op));
    }
    this.recompute('local');
    this.pump();
    return true;
  }

  setPresence(data) {
    this.presence = data;
    if (this.status.state === 'connected') this.send({ type: 'presence', data: data });
  }

  // Number of local changes not yet acknowledged (drafts count as one).
  get unacknowledged() { return this.pending.length + (this.draft.length > 0 ? 1 : 0); }

  stop() {
    this.stopped = true;
    this.clearTimers();
    if (this.ws) { this.detach(this.ws); this.ws.close(1000); this.ws = null; }
    this.setStatus({ state: 'closed', reason: 'left the room' });
  }

  // MARK: connection

  connect() {
    this.clearTimers();
    this.setStatus({ state: this.connections > 0 ? 'reconnecting' : 'connecting', retryAt: null });
    let ws;
    try { ws = new WebSocket(this.url, SUBPROTOCOL); } catch (error) { this.lost(null, String(error)); return; }
    this.ws = ws;
    ws.onopen = () => {
      this.lastFrameAt = this.now();
      const hello = { type: 'hello', token: this.token, client: this.client, presence: this.presence };
      if (this.epoch !== null) hello.resume = { epoch: this.epoch, rev: this.rev };
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (event) => {
      let message;
      // A message that is not JSON cannot be waited out: drop this connection and reconnect with the backoff.
      try { message = JSON.parse(event.data); } catch (error) { this.dead('the server sent a message this page cannot read'); return; }
      this.heard();
      this.receive(message);
    };
    ws.onclose = (event) => this.lost(event.code, event.reason);
    ws.onerror = () => {};
    this.timers.hello = setTimeout(() => this.dead('no welcome in time'), HELLO_TIMEOUT_MS);
  }

  detach(ws) { ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null; }

  // A connection that stopped answering: drop it without waiting for TCP to notice.
  dead(reason) {
    if (!this.ws) return;
    const ws = this.ws;
    this.detach(ws);
    try { ws.close(); } catch (error) { /* already closing */ }
    this.lost(null, reason);
  }

  lost(code, reason) {
    if (this.ws) this.detach(this.ws);
    this.ws = null;
    this.clearTimers();
    if (this.stopped) return;
    if (code !== null && hasOwn(FINAL_CLOSE_CODES, code)) {
      this.setStatus({ state: 'closed', code: code, reason: FINAL_CLOSE_CODES[code] });
      return;
    }
    const delay = backoffDelay(this.attempt, this.backoff, this.random);
    this.attempt += 1;
    const retryAt = this.now() + delay;
    this.setStatus({ state: 'reconnecting', retryAt: retryAt, code: code, reason: reason || '' });
    this.timers.retry = setTimeout(() => this.connect(), delay);
    this.timers.countdown = setInterval(() => this.setStatus(Object.assign({}, this.status)), 200);
  }

  clearTimers() {
    for (const key of Object.keys(this.timers)) { clearTimeout(this.timers[key]); clearInterval(this.timers[key]); }
    this.timers = {};
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  setStatus(status) {
    this.status = status;
    this.onStatus(status);
  }

  // MARK: messages

  receive(message) {
    switch (message.type) {
      case 'welcome': this.welcome(message); break;
      case 'patch': this.remotePatch(message); this.recompute('remote'); break;
      case 'ack': this.ack(message); break;
      case 'reject': this.reject(message); break;
      case 'join': this.join(message, true); break;
      case 'presence': {
        const participant = this.participants.get(peerKey(message));
        if (participant) { participant.data = message.data || {}; this.onParticipants(this.participantList()); }
        break;
      }
      case 'leave': {
        const participant = this.participants.get(peerKey(message));
        if (participant) {
          this.participants.delete(peerKey(message));
          this.seen.delete(peerKey(message));
          this.onParticipants(this.participantList());
          this.onNotice({ kind: 'leave', participant: participant });
        }
        break;
      }
      case 'pong': this.pong(message); break;
      case 'error': this.onNotice({ kind: 'error', code: message.code, message: message.message }); break;
      default: break;
    }
  }

  welcome(message) {
    clearTimeout(this.timers.hello);
    const resumed = !hasOwn(message, 'state') && Array.isArray(message.replay);
    if (resumed) {
      for (const patch of message.replay) this.remotePatch(patch);
    } else {
      this.confirmed = isObject(message.state) ? message.state : {};
    }
    this.epoch = message.epoch;
    this.rev = message.rev;
    const lastSeq = message.lastSeq || 0;
    this.pending = this.pending.filter((patch) => patch.seq > lastSeq);
    // Sent over the lost connection: their round trips end there.
    for (const patch of this.pending) delete patch.sentAt;
    this.resend = this.pending.slice();
    this.seq = Math.max(this.seq, lastSeq);
    this.role = message.you ? message.you.role : null;
    this.user = message.you ? message.you.user : null;
    if (message.heartbeat) this.heartbeat = message.heartbeat;
    const rate = message.limits ? message.limits.rate : 0;
    this.paceMs = rate > 0 ? 1000 / (0.8 * rate) : 0;
    // People seen before a reconnect are not announced again when they reappear.
    for (const key of this.participants.keys()) this.seen.add(key);
    this.participants = new Map();
    for (const participant of message.participants || []) this.join(participant, false);
    this.onParticipants(this.participantList());
    this.attempt = 0;
    this.connections += 1;
    this.pingSentAt = null;
    if (this.role === 'viewer') this.draft = [];
    this.recompute('remote');
    this.setStatus({ state: 'connected', welcome: resumed ? 'resumed' : 'snapshot', reconnects: this.connections - 1, rev: this.rev });
    this.startHeartbeat();
    this.pump();
  }

  remotePatch(patch) {
    if (this.isMe(patch)) {
      // Our own patch applied over an earlier connection: it counts as that seq's ack.
      this.pending = this.pending.filter((pending) => pending.seq !== patch.seq);
      this.resend = this.resend.filter((pending) => pending.seq !== patch.seq);
    }
    try {
      this.confirmed = applyOps(this.confirmed, patch.ops || []);
    } catch (error) {
      // Cannot happen with a correct server; a snapshot on the next connection repairs it.
      this.epoch = null;
      this.dead('a remote patch did not apply');
    }
    this.rev = Math.max(this.rev, patch.rev);
  }

  ack(message) {
    const index = this.pending.findIndex((patch) => patch.seq === message.seq);
    if (index >= 0) {
      const patch = this.pending[index];
      this.pending.splice(index, 1);
      if (patch.sentAt !== undefined) {
        const sample = this.now() - patch.sentAt;
        this.patchRtt = this.patchRtt === null ? sample : 0.875 * this.patchRtt + 0.125 * sample;
      }
      if (!message.duplicate) {
        try { this.confirmed = applyOps(this.confirmed, patch.ops); } catch (error) { this.epoch = null; this.dead('an acked patch did not apply'); }
      }
    }
    this.rev = Math.max(this.rev, message.rev);
    this.recompute('ack');
    this.pump();
  }

  reject(message) {
    this.pending = this.pending.filter((patch) => patch.seq !== message.seq);
    this.resend = this.resend.filter((patch) => patch.seq !== message.seq);
    this.recompute('rollback');
    this.onNotice({ kind: 'reject', code: message.code, message: message.message });
    this.pump();
  }

  join(message, announce) {
    const participant = { user: message.user, client: message.client, role: message.role, name: message.name, data: message.data || {} };
    const key = peerKey(message);
    const known = this.participants.has(key) || this.seen.has(key);
    this.participants.set(key, participant);
    if (announce) {
      this.onParticipants(this.participantList());
      if (!known && !this.isMe(message)) this.onNotice({ kind: 'join', participant: participant });
    }
  }

  // A client id counts within its user's: another user may name the same one.
  isMe(peer) {
    return peer.client === this.client && peer.user === this.user;
  }

  participantList() {
    return Array.from(this.participants.values()).map((participant) => Object.assign({ you: this.isMe(participant) }, participant));
  }

  recompute(origin) {
    let visible = this.confirmed;
    for (const patch of this.pending) {
      // A pending patch that no longer applies on top of newer remote state will be rejected by
      // the server; until then it is left out of the visible state.
      try { visible = applyOps(visible, patch.ops); } catch (error) { /* skipped */ }
    }
    try { visible = applyOps(visible, this.draft); } catch (error) { this.draft = []; }
    this.visible = visible;
    this.onState(visible, origin);
  }

  // MARK: outbox

  pump() {
    if (this.timers.pump || this.status.state !== 'connected') return;
    for (;;) {
      const resending = this.resend.length > 0;
      if (!resending && (this.draft.length === 0 || this.pending.length >= MAX_IN_FLIGHT)) return;
      const now = this.now();
      let wait = this.lastSendAt + this.paceMs - now;
      const touchesScroll = (resending ? this.resend[0].ops : this.draft).some((op) => op.path === SCROLL_PATH || op.path.startsWith(SCROLL_PATH + '/'));
      // The newest offset wins: drafts keep coalescing while an offset waits for its slot.
      if (touchesScroll && !resending) wait = Math.max(wait, this.lastScrollAt + scrollSpacing(this.patchRtt) - now);
      if (wait > 0) {
        this.timers.pump = setTimeout(() => { delete this.timers.pump; this.pump(); }, wait);
        return;
      }
      let patch;
      if (resending) {
        patch = this.resend.shift();
      } else {
        this.seq += 1;
        patch = { seq: this.seq, ops: this.draft };
        this.draft = [];
        this.pending.push(patch);
      }
      if (!this.send({ type: 'patch', seq: patch.seq, ops: patch.ops })) { this.resend.unshift(patch); return; }
      patch.sentAt = now;
      this.lastSendAt = now;
      if (touchesScroll) this.lastScrollAt = now;
    }
  }

  // MARK: heartbeat

  startHeartbeat() {
    const interval = Math.max(100, this.heartbeat.interval || 10000);
    this.misses = 0;
    this.retried = [];
    this.timers.ping = setInterval(() => {
      if (this.pingSentAt === null) this.ping(this.pongTimeout(interval));
    }, interval);
    this.timers.watch = setInterval(() => {
      const now = this.now();
      if (now - this.lastFrameAt > 2 * interval) { this.dead('no frame for ' + Math.round(2 * interval) + ' ms'); return; }
      if (this.pingSentAt === null || now - this.pingSentAt <= this.pingDeadline) return;
      // A late pong is a miss, not a death: retry at once with the deadline doubled (RFC 6298 §5.5);
      // any frame clears the misses. Only MAX_MISSES in a row with nothing in between end the connection.
      this.misses += 1;
      if (this.misses >= MAX_MISSES) { this.dead('no answer to ' + this.misses + ' pings in a row'); return; }
      this.retried.push(this.pingSentAt);
      if (this.retried.length > MAX_MISSES) this.retried.shift();
      this.ping(Math.min(this.pongTimeout(interval) * Math.pow(2, this.misses), 2 * interval));
      this.setStatus(Object.assign({}, this.status, { weakNetwork: true }));
    }, Math.min(500, interval / 2));
  }

  ping(deadline) {
    let t = this.now();
    if (this.retried.length > 0 && t <= this.retried[this.retried.length - 1]) t = this.retried[this.retried.length - 1] + 0.001;
    this.pingSentAt = t;
    this.pingDeadline = deadline;
    this.send({ type: 'ping', t: t });
  }

  // A frame arrived: the link is alive, earlier misses are forgiven.
  heard() {
    this.lastFrameAt = this.now();
    if (this.misses > 0) {
      this.misses = 0;
      if (this.status.weakNetwork) this.setStatus(Object.assign({}, this.status, { weakNetwork: false }));
    }
  }

  // RFC 6298 retransmission timeout from the measured RTT, within [1 s, interval].
  pongTimeout(interval) {
    if (this.srtt === null) return interval;
    return Math.min(interval, Math.max(1000, this.srtt + 4 * this.rttvar));
  }

  pong(message) {
    let sentAt = null;
    if (this.pingSentAt !== null && message.t === this.pingSentAt) {
      sentAt = this.pingSentAt;
      this.pingSentAt = null;
      this.retried = [];
    } else {
      // The answer to a ping given up on still measures the (slow) round trip.
      const index = (this.retried || []).indexOf(message.t);
      if (index < 0) return;
      sentAt = this.retried[index];
      this.retried.splice(0, index + 1);
    }
    const sample = this.now() - sentAt;
    if (this.srtt === null) {
      this.srtt = sample;
      this.rttvar = sample / 2;
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - sample);
      this.srtt = 0.875 * this.srtt + 0.125 * sample;
    }
  }
}

export { Session, applyOps, backoffDelay, pointerTokens, scrollSpacing, FINAL_CLOSE_CODES, MAX_IN_FLIGHT, SCROLL_INTERVAL_MS };
