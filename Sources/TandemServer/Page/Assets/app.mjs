// The shared product page: renders the room state, turns clicks and scrolling into patches, and
// shows who is here. All state changes, local and remote, reach the page through render().
// A module: it imports the web client library the server serves, as any page of an app would.
import { Session } from '/client/v1/tandem-sync.mjs';
import { ScrollInterpolator } from '/client/v1/scroll-interpolator.mjs';

const HERO_HEIGHT = 280;
const BAR_HEIGHT = 56;
const TOAST_VISIBLE_MS = 2200;
const TOAST_LEAVE_MS = 250;
const MARK_CONTROLS = { video_playing: 'video', price_sheet_shown: 'price-sheet' };
// The server's rules the page applies before asking it (PageSettings: the index carries them).
const SETTINGS = JSON.parse(document.getElementById('page-settings').textContent);
const MAX_NAME_BYTES = SETTINGS.maxNameBytes;
const INVITATION_CODE = new RegExp('^[0-9]{' + SETTINGS.invitationCodeLengths[0] + ',' + SETTINGS.invitationCodeLengths[1] + '}$');

const $ = (id) => document.getElementById(id);
const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

// Toasts with the feedback queue's semantics: one visible at a time, duplicates coalesced, and
// the promise of show() settles only after the toast has fully disappeared.
class ToastQueue {
  constructor(container) {
    this.container = container;
    this.queue = [];
    this.current = null;
    this.completed = [];
  }

  show(text) {
    const same = (item) => item.text === text && !item.leaving;
    const existing = (this.current && same(this.current)) ? this.current : this.queue.find(same);
    if (existing) return existing.promise;
    const item = { text: text, leaving: false };
    item.promise = new Promise((resolve) => { item.resolve = resolve; });
    this.queue.push(item);
    this.advance();
    return item.promise;
  }

  advance() {
    if (this.current || this.queue.length === 0) return;
    const item = this.queue.shift();
    this.current = item;
    item.element = document.createElement('div');
    item.element.className = 'toast';
    item.element.textContent = item.text;
    item.element.addEventListener('click', () => this.dismiss(item));
    this.container.appendChild(item.element);
    setTimeout(() => item.element.classList.add('shown'), 20);
    item.timer = setTimeout(() => this.dismiss(item), TOAST_VISIBLE_MS);
  }

  dismiss(item) {
    if (item.leaving) return;
    item.leaving = true;
    clearTimeout(item.timer);
    item.element.classList.remove('shown');
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      item.element.remove();
      this.current = null;
      this.completed.push(item.text);
      item.resolve();
      this.advance();
    };
    item.element.addEventListener('transitionend', finish, { once: true });
    setTimeout(finish, TOAST_LEAVE_MS + 150);
  }
}

function claimsOf(token) {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const json = decodeURIComponent(Array.from(atob(payload), (c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0')).join(''));
    const claims = JSON.parse(json);
    return claims && typeof claims === 'object' ? claims : {};
  } catch (error) {
    return {};
  }
}

function randomHex(bytes) {
  const values = new Uint8Array(bytes);
  crypto.getRandomValues(values);
  return Array.from(values, (value) => value.toString(16).padStart(2, '0')).join('');
}

function initials(name) {
  const words = String(name).trim().split(/\s+/).filter(Boolean);
  const letters = words.slice(0, 2).map((word) => Array.from(word)[0].toUpperCase());
  return letters.join('') || '?';
}

function hue(text) {
  let hash = 0;
  for (const character of String(text)) hash = (hash * 31 + character.codePointAt(0)) >>> 0;
  return hash % 360;
}

function buildPanels() {
  const topics = ['Sound', 'Comfort', 'Battery', 'Noise cancelling', 'Controls', 'Microphones', 'Connectivity', 'Materials',
    'Travel case', 'Charging', 'App', 'Warranty', 'Care', 'In the box'];
  const details = $('panel-0');
  topics.forEach((topic, index) => {
    const section = document.createElement('article');
    const heading = document.createElement('h2');
    heading.textContent = (index + 1) + '. ' + topic;
    const text = document.createElement('p');
    text.textContent = topic + ' — tuned for long listening sessions: balanced lows, clear mids and airy highs, ' +
      'with a fit that stays comfortable for hours. Section ' + (index + 1) + ' of ' + topics.length + '.';
    section.append(heading, text);
    details.appendChild(section);
  });
  const specs = $('panel-1');
  const table = document.createElement('table');
  const rows = [['Driver', '40 mm dynamic'], ['Frequency response', '4 Hz – 40 kHz'], ['Battery', '38 h (ANC on)'], ['Charging', 'USB-C, 10 min = 5 h'],
    ['Weight', '254 g'], ['Bluetooth', '5.4, multipoint'], ['Codecs', 'AAC, SBC, LC3'], ['Microphones', '8 beamforming'], ['Colours', 'Graphite, Sand, Ocean']];
  for (let round = 0; round < 5; round++) {
    for (const [name, value] of rows) {
      const row = table.insertRow();
      row.insertCell().textContent = name;
      row.insertCell().textContent = value;
    }
  }
  specs.appendChild(table);
  const reviews = $('panel-2');
  const people = ['Mina', 'Jonas', 'Priya', 'Tom', 'Aiko', 'Lena', 'Omar', 'Sara', 'Wei', 'Nora', 'Paul', 'Rosa'];
  people.forEach((person, index) => {
    const card = document.createElement('article');
    card.className = 'review';
    const heading = document.createElement('h2');
    heading.textContent = '★★★★' + (index % 3 === 0 ? '☆' : '★') + '  ' + person;
    const text = document.createElement('p');
    text.textContent = 'Review ' + (index + 1) + ': great sound and a battery that lasts a whole week of commuting.';
    card.append(heading, text);
    reviews.appendChild(card);
  });
}

function start() {
  const parameters = new URLSearchParams(location.hash.slice(1));
  const token = parameters.get('token');
  buildPanels();
  if (token) {
    join(token, parameters);
  } else if (parameters.has('invite')) {
    askForName(parameters.get('invite'));
  } else {
    document.body.classList.add('no-token');
    setControlsDisabled(true);
    $('status').dataset.state = 'closed';
    $('status').textContent = 'No token: open this page as /#token=… or /#invite=CODE (tandem serve and tandem invite print ready-to-open links)';
  }
}

function setControlsDisabled(disabled) {
  for (const control of document.querySelectorAll('button[data-control]')) control.disabled = disabled;
}

// Text with its first letter capitalised (the server's messages start in lower case).
function sentence(text) {
  const value = String(text || '').trim();
  return value ? value[0].toUpperCase() + value.slice(1) + (/[.!?]$/.test(value) ? '' : '.') : '';
}

// Why a name cannot be sent, or '' when it can (the server's rules: 1 to MAX_NAME_BYTES UTF-8
// bytes, no control characters).
function nameProblem(name) {
  if (!name) return 'Enter your name: everyone in the room will see it.';
  if (new TextEncoder().encode(name).length > MAX_NAME_BYTES) return 'Use a shorter name (at most ' + MAX_NAME_BYTES + ' bytes of text).';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'The name cannot contain control characters.';
  return '';
}

// What to tell the user about a refused accept, and whether trying again can help.
function acceptFailure(status, body, retryAfter) {
  const detail = sentence(body && typeof body.message === 'string' ? body.message : '');
  switch (status) {
    case 410: return { summary: 'This invitation has expired or was already used.', detail: detail, final: true };
    case 404: return { summary: 'No invitation has this code.', detail: detail, final: true };
    case 429: return { summary: 'Too many attempts.', detail: detail || 'Try again in ' + retryAfter + ' s.', final: false, wait: retryAfter };
    default:
      if (status >= 500) return { summary: 'The server could not accept the invitation right now. Try again.', detail: detail, final: false };
      return { summary: 'The server refused the request (' + status + ').', detail: detail, final: false };
  }
}

// The invitation form: a name, one POST to accept the code, then the token replaces the code in
// the fragment (a reload reconnects instead of spending the code again) and the page joins.
function askForName(code) {
  const dialog = $('invite');
  const form = $('invite-form');
  const input = $('invite-name');
  input.maxLength = MAX_NAME_BYTES;
  const button = $('invite-join');
  const stage = $('stage');
  const status = $('status');
  let waitTimer = null;
  setControlsDisabled(true);
  status.dataset.state = 'invited';
  status.textContent = 'Invited · enter your name to join';
  stage.inert = true;
  dialog.hidden = false;

  function showError(summary, detail) {
    const parts = [];
    if (summary) {
      const strong = document.createElement('strong');
      strong.textContent = summary;
      parts.push(strong);
    }
    if (detail) parts.push(document.createTextNode(detail));
    $('invite-error').replaceChildren(...parts);
  }

  function close(reason) {
    input.disabled = true;
    button.disabled = true;
    status.dataset.state = 'closed';
    status.textContent = 'Not joined: ' + reason;
  }

  function waitBeforeRetry(seconds) {
    let left = Math.max(1, Math.ceil(seconds));
    button.disabled = true;
    const tick = () => {
      if (left <= 0) {
        waitTimer = null;
        button.disabled = false;
        button.textContent = 'Join';
        return;
      }
      button.textContent = 'Try again in ' + left + ' s';
      left -= 1;
      waitTimer = setTimeout(tick, 1000);
    };
    tick();
  }

  if (!INVITATION_CODE.test(code)) {
    showError('This invitation link is broken.', 'It needs the code of digits after #invite=; ask the host for the link again.');
    close('the invitation link is broken');
    return;
  }
  input.focus();
  input.addEventListener('input', () => {
    if (input.getAttribute('aria-invalid') !== 'true') return;
    input.setAttribute('aria-invalid', 'false');
    showError('', '');
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (button.disabled || waitTimer) return;
    const name = input.value.trim();
    const problem = nameProblem(name);
    input.setAttribute('aria-invalid', String(Boolean(problem)));
    if (problem) {
      showError(problem, '');
      input.focus();
      return;
    }
    showError('', '');
    input.value = name;
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    let response = null;
    let body = null;
    try {
      // The code travels only in this request's path: no query string, no referrer, no cookies.
      response = await fetch('/v1/invites/' + code + '/accept', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' },
        body: JSON.stringify({ name: name }),
        credentials: 'omit',
        cache: 'no-store',
        redirect: 'error',
        referrerPolicy: 'no-referrer',
      });
      body = await response.json().catch(() => null);
    } catch (error) {
      response = null;
    }
    form.removeAttribute('aria-busy');
    button.disabled = false;
    if (response && response.ok && body && typeof body.token === 'string' && body.token) {
      history.replaceState(null, '', location.pathname + location.search + '#token=' + body.token);
      dialog.hidden = true;
      stage.inert = false;
      join(body.token, new URLSearchParams());
      return;
    }
    if (!response) {
      showError('Could not reach the server.', 'Check the connection and try again.');
      return;
    }
    const retryAfter = Math.max(1, parseInt(response.headers.get('Retry-After') || '30', 10) || 30);
    const failure = response.ok
      ? { summary: 'The server answered without a token.', detail: 'Try again.', final: false }
      : acceptFailure(response.status, body, retryAfter);
    showError(failure.summary, failure.detail);
    if (failure.final) close(failure.summary.replace(/\.$/, '').toLowerCase());
    else if (failure.wait) waitBeforeRetry(failure.wait);
    else input.focus();
  });
}

function join(token, parameters) {
  const claims = claimsOf(token);
  const name = parameters.get('name') || claims.name || claims.sub || 'Guest';
  const avatar = parameters.get('avatar') || initials(name);
  const detail = $('detail');
  const toasts = new ToastQueue($('toasts'));
  const chrome = TandemScrollChrome.configuration({ fadeStart: 0, fadeEnd: HERO_HEIGHT - BAR_HEIGHT, hysteresis: 8 });
  let bar = null;
  let appliedTop = 0;
  let shownOffset = null;
  // Remote offsets are followed smoothly, one animation frame at a time (as ScrollSync.followFrame).
  const follower = new ScrollInterpolator();
  let following = null;
  let shownTab = null;
  function followFrame() {
    following = null;
    const frame = follower.frame(performance.now());
    if (frame === null) return;
    if (Math.abs(detail.scrollTop - frame.offset.y) >= 1) {
      detail.scrollTop = frame.offset.y;
      appliedTop = detail.scrollTop;
    }
    if (!frame.resting) following = requestAnimationFrame(followFrame);
  }
  function stopFollowing() {
    follower.reset();
    if (following !== null) cancelAnimationFrame(following);
    following = null;
  }
  let role = claims.role === 'viewer' ? 'viewer' : null;

  const session = new Session({
    url: (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/v1/sync',
    token: token,
    client: 'web-' + randomHex(6),
    presence: { name: name, avatar: avatar },
    onState: (state, origin) => render(state, origin),
    onStatus: () => renderStatus(),
    onParticipants: (list) => renderParticipants(list),
    onNotice: (notice) => announce(notice),
  });

  function renderBar() {
    bar = TandemScrollChrome.next(chrome, detail.scrollTop, bar);
    const element = $('navbar');
    element.style.setProperty('--bar-alpha', String(bar.backgroundAlpha));
    element.dataset.title = bar.titleColor;
    element.dataset.alpha = bar.backgroundAlpha.toFixed(3);
    element.classList.toggle('shadow', bar.castsShadow);
    document.documentElement.dataset.statusBar = bar.statusBarStyle;
  }

  // The timeline (hosts): the page as it was at a past rev, read over the rooms API, read-only while
  // shown; live changes keep arriving and "back to live" shows them.
  const timeline = { shownRev: null, request: 0 };
  function scrubTo(rev) {
    const request = ++timeline.request;
    timeline.shownRev = rev;
    document.body.classList.add('scrubbing');
    $('timeline-live').hidden = false;
    $('timeline-label').textContent = 'rev ' + rev + ' · loading';
    renderStatus();
    fetch('/v1/rooms/' + encodeURIComponent(claims.room) + '/state?rev=' + rev, { headers: { Authorization: 'Bearer ' + token } })
      .then((response) => response.json().then((body) => ({ ok: response.ok, body: body })))
      .then(({ ok, body }) => {
        if (request !== timeline.request || timeline.shownRev === null) return;
        if (!ok) { $('timeline-label').textContent = 'rev ' + rev + ' · ' + (body.message || 'not available'); return; }
        $('timeline-label').textContent = 'rev ' + rev + ' of ' + session.rev;
        paint(body.state, 'history');
      })
      .catch(() => { if (request === timeline.request) $('timeline-label').textContent = 'rev ' + rev + ' · not reachable'; });
  }
  function backToLive() {
    timeline.request++;
    timeline.shownRev = null;
    document.body.classList.remove('scrubbing');
    $('timeline-live').hidden = true;
    paint(session.visible, 'remote');
  }
  function renderTimeline() {
    const range = $('timeline-range');
    range.max = String(session.rev);
    if (timeline.shownRev === null) {
      range.value = String(session.rev);
      $('timeline-label').textContent = 'live · rev ' + session.rev;
    }
  }

  function render(state, origin) {
    renderTimeline();
    // While a past rev is shown, live changes wait for "back to live".
    if (timeline.shownRev === null) paint(state, origin);
  }

  function paint(state, origin) {
    const tabIndex = Number.isInteger(state.tabIndex) ? state.tabIndex : 0;
    // Another tab: its offsets are not a motion from the last tab's.
    if (tabIndex !== shownTab) { shownTab = tabIndex; stopFollowing(); }
    for (let index = 0; index < 3; index++) {
      const selected = index === tabIndex;
      $('tab-' + index).setAttribute('aria-selected', String(selected));
      $('panel-' + index).hidden = !selected;
    }
    const inCart = state.addToCartSelected === true;
    const cart = $('add-to-cart');
    cart.textContent = inCart ? '✓ In cart' : 'Add to cart';
    cart.setAttribute('aria-pressed', String(inCart));
    $('cart-count').textContent = inCart ? '1' : '0';

    const marks = state.marks !== null && typeof state.marks === 'object' && !Array.isArray(state.marks) ? state.marks : {};
    const badges = $('badges');
    badges.replaceChildren(...Object.keys(marks).sort().map((key) => {
      const badge = document.createElement('span');
      badge.className = 'badge';
      badge.dataset.mark = key;
      badge.textContent = key;
      return badge;
    }));
    for (const [mark, id] of Object.entries(MARK_CONTROLS)) $(id).setAttribute('aria-pressed', String(hasOwn(marks, mark)));

    // The view follows the state's offset when that offset changes, not whenever the two
    // differ: the user's newest scroll position may not have reached the state yet (scroll
    // events come a frame later), and an ack must not pull the view back to an older one.
    const offset = state.contentOffset && typeof state.contentOffset.y === 'number' ? state.contentOffset.y : 0;
    if (offset !== shownOffset) {
      shownOffset = offset;
      if (origin !== 'local') {
        // A jump of a screen or more is shown at once.
        follower.snapDistance = Math.max(1, detail.clientHeight);
        follower.receive({ x: 0, y: offset }, performance.now());
        if (following === null) followFrame();
      }
    }
    renderBar();
    renderStatus();
  }

  function renderStatus() {
    const status = session.status;
    const element = $('status');
    element.dataset.state = status.state;
    $('session').dataset.state = status.state;
    element.dataset.welcome = status.welcome || '';
    let text;
    switch (status.state) {
      case 'connected':
        text = 'Connected · ' + (status.reconnects > 0 ? (status.welcome === 'resumed' ? 'resumed' : 'snapshot') : 'joined') + ' · rev ' + session.rev
          + (status.weakNetwork ? ' · weak network' : '');
        break;
      case 'reconnecting':
        text = status.retryAt ? 'Reconnecting in ' + Math.max(0, (status.retryAt - performance.now()) / 1000).toFixed(1) + ' s' : 'Reconnecting…';
        break;
      case 'closed':
        text = 'Disconnected: ' + status.reason;
        break;
      default:
        text = 'Connecting…';
    }
    element.textContent = text;
    if (session.role) role = session.role;
    // Before the first welcome the role is unknown; after a final close, or while a past rev is
    // shown, nothing can be sent.
    const readOnly = role === 'viewer' || session.connections === 0 || status.state === 'closed' || timeline.shownRev !== null;
    $('timeline').hidden = role !== 'host';
    document.body.classList.toggle('viewer', role === 'viewer');
    $('role').hidden = role !== 'viewer';
    setControlsDisabled(readOnly);
  }

  function renderParticipants(list) {
    const items = list.sort((a, b) => (b.you - a.you) || String(a.user).localeCompare(String(b.user))).map((participant) => {
      const item = document.createElement('li');
      item.dataset.client = participant.client;
      item.dataset.user = participant.user;
      const data = participant.data || {};
      const shownName = displayName(participant);
      const badge = document.createElement('span');
      badge.className = 'avatar';
      badge.style.setProperty('--avatar-hue', String(hue(participant.user)));
      badge.textContent = typeof data.avatar === 'string' && data.avatar ? Array.from(data.avatar).slice(0, 2).join('') : initials(shownName);
      const label = document.createElement('span');
      label.className = 'participant-name';
      label.textContent = shownName + (participant.you ? ' (you)' : '') + (participant.role === 'viewer' ? ' · viewer' : '');
      item.title = shownName + ' — ' + participant.role;
      item.append(badge, label);
      return item;
    });
    $('participants').replaceChildren(...items);
  }

  // The token's name when it has one (a participant cannot pass for someone else through presence); a
  // token without a name lets its holder name themselves.
  function displayName(participant) {
    const chosen = participant.data && typeof participant.data.name === 'string' ? participant.data.name : '';
    return participant.name || chosen || participant.user;
  }

  function announce(notice) {
    switch (notice.kind) {
      case 'join': toasts.show(displayName(notice.participant) + ' joined'); break;
      case 'leave': toasts.show(displayName(notice.participant) + ' left'); break;
      case 'reject': toasts.show('Change undone: ' + notice.message); break;
      case 'error': toasts.show('Server: ' + notice.message); break;
      default: break;
    }
  }

  function toggle(path, on) {
    session.change([on ? { op: 'set', path: path, value: true } : { op: 'remove', path: path }]);
  }

  for (let index = 0; index < 3; index++) {
    $('tab-' + index).addEventListener('click', () => session.change([{ op: 'set', path: '/tabIndex', value: index }]));
  }
  $('add-to-cart').addEventListener('click', () => {
    session.change([{ op: 'set', path: '/addToCartSelected', value: session.visible.addToCartSelected !== true }]);
  });
  for (const [mark, id] of Object.entries(MARK_CONTROLS)) {
    $(id).addEventListener('click', () => {
      const marks = session.visible.marks;
      toggle('/marks/' + mark, !(marks && typeof marks === 'object' && hasOwn(marks, mark)));
    });
  }
  detail.addEventListener('scroll', () => {
    renderBar();
    // Offsets this page applied itself are echoes, not user scrolling. Only this view (the
    // primary scroll view of the active tab) reports offsets.
    if (Math.abs(detail.scrollTop - appliedTop) < 1 || role === 'viewer' || timeline.shownRev !== null) return;
    // The user's own scrolling wins over the remote motion being followed.
    stopFollowing();
    appliedTop = detail.scrollTop;
    session.change([{ op: 'set', path: '/contentOffset', value: { x: 0, y: Math.round(detail.scrollTop) } }]);
  }, { passive: true });

  $('timeline-range').addEventListener('input', (event) => {
    const rev = Number(event.target.value);
    if (rev >= session.rev) backToLive(); else scrubTo(rev);
  });
  $('timeline-live').addEventListener('click', () => backToLive());

  window.tandemPage = Object.freeze({
    session: session,
    toasts: toasts,
    snapshot: () => ({
      status: Object.assign({}, session.status, { text: $('status').textContent }),
      rev: session.rev,
      role: session.role,
      client: session.client,
      state: session.visible,
      pending: session.unacknowledged,
      scrollTop: detail.scrollTop,
      bar: bar,
      participants: session.participantList(),
      toastsCompleted: toasts.completed.slice(),
      shownRev: timeline.shownRev,
    }),
  });
  render(session.visible, 'remote');
  session.start();
  // Leaving the page (reload, navigation, closing the tab) is a deliberate leave: a clean close
  // lets the others see it at once instead of after the server's presence grace. A page the
  // browser brings back from its history cache starts over rather than showing a closed session.
  window.addEventListener('pagehide', () => session.stop());
  window.addEventListener('pageshow', (event) => { if (event.persisted) location.reload(); });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
