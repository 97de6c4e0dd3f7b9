// Moves a follower's view smoothly through the scroll offsets that arrive from the room: the web
// client's twin of TandemKit's ScrollInterpolator (served at /client/v1/scroll-interpolator.mjs), run
// on the same cases (Tests/Fixtures/scroll-interpolation.json) by node's tests and by the Swift tests.
//
// Each offset goes on a timeline one mean gap after the previous one, unless it arrived outside twice
// the gaps' deviation from there (the leader's pace, not the network's); a frame shows the timeline one
// mean gap and one deviation behind its time, tweened linearly between received offsets only, so the
// view never overshoots and rests exactly on the last one. A jump of `snapDistance` or more is shown at
// once; the first offset after a pause of more than `pauseMs` moves in over one typical gap.
// Times are milliseconds from any monotonic clock (performance.now(), a requestAnimationFrame stamp).

export class ScrollInterpolator {
  constructor(options = {}) {
    this.snapDistance = options.snapDistance ?? 1000;
    this.maximumDelayMs = options.maximumDelayMs ?? 300;
    this.pauseMs = options.pauseMs ?? 250;
    this.samples = [];
    this.received = 0;
    this.lastArrival = null;
    this.meanGap = null;
    this.gapDeviation = 0;
    this.shownInstant = -Infinity;
  }

  // The current render delay, ms: 0 until two offsets arrived close together.
  get delay() {
    if (this.meanGap === null) return 0;
    return Math.min(this.maximumDelayMs, this.meanGap + this.gapDeviation);
  }

  // An offset ({x, y}) arrived at `now`; returns its number (the first is 0).
  receive(offset, now) {
    const number = this.received;
    this.received += 1;
    const last = this.samples[this.samples.length - 1];
    const lastArrival = this.lastArrival;
    this.lastArrival = now;
    if (last === undefined || lastArrival === null
      || Math.abs(offset.x - last.offset.x) >= this.snapDistance || Math.abs(offset.y - last.offset.y) >= this.snapDistance) {
      this.samples = [{ offset, time: now, number }];
      return number;
    }
    const gap = now - lastArrival;
    let time = now;
    if (gap > this.pauseMs) {
      // A new motion: it starts from where the view rests, over one typical gap.
      this.samples = [{ offset: last.offset, time: Math.max(last.time, now - (this.meanGap ?? 0)), number: last.number }];
    } else {
      if (this.meanGap === null) {
        this.meanGap = gap;
        this.gapDeviation = gap / 2;
      } else {
        this.gapDeviation = 0.75 * this.gapDeviation + 0.25 * Math.abs(this.meanGap - gap);
        this.meanGap = 0.875 * this.meanGap + 0.125 * gap;
      }
      const slack = 2 * this.gapDeviation;
      time = Math.max(last.time, Math.min(Math.max(last.time + this.meanGap, now - slack), now + slack));
    }
    this.samples.push({ offset, time, number });
    return number;
  }

  // Forgets every offset (another tab, the user's own scrolling): the next one is shown at once.
  reset() {
    this.samples = [];
  }

  // The frame to show at `now` (nondecreasing), null before any offset arrived:
  // {offset, older, newer, fraction, resting}.
  frame(now) {
    const newest = this.samples[this.samples.length - 1];
    if (newest === undefined) return null;
    const instant = Math.max(this.shownInstant, now - this.delay);
    this.shownInstant = instant;
    let start = 0;
    while (start + 1 < this.samples.length && this.samples[start + 1].time <= instant) start += 1;
    if (start > 0) this.samples.splice(0, start);
    const older = this.samples[0];
    if (this.samples.length === 1 || instant <= older.time) {
      const resting = this.samples.length === 1;
      const shown = resting ? newest : older;
      return { offset: shown.offset, older: shown.number, newer: shown.number, fraction: 0, resting };
    }
    const newer = this.samples[1];
    const fraction = Math.min(1, (instant - older.time) / (newer.time - older.time));
    return {
      offset: { x: older.offset.x + (newer.offset.x - older.offset.x) * fraction, y: older.offset.y + (newer.offset.y - older.offset.y) * fraction },
      older: older.number, newer: newer.number, fraction, resting: false,
    };
  }
}
