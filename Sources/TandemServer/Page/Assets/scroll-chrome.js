'use strict';
// The navigation bar's look as a pure function of the scroll offset: the same rules and constants
// as TandemKit's ScrollChromeConfiguration.next(offset:previous:), checked against the shared
// table in docs/scroll-chrome-cases.json.
(function (global) {
  function requireFinite(field, value) {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new Error('scroll chrome: ' + field + ' must be a finite number, got ' + value);
    }
  }

  // A validated configuration; fadeStart and hysteresis default to 0.
  function configuration(options) {
    const fadeStart = options.fadeStart === undefined ? 0 : options.fadeStart;
    const fadeEnd = options.fadeEnd;
    const hysteresis = options.hysteresis === undefined ? 0 : options.hysteresis;
    requireFinite('fadeStart', fadeStart);
    requireFinite('fadeEnd', fadeEnd);
    requireFinite('hysteresis', hysteresis);
    if (!(fadeEnd > fadeStart)) throw new Error('scroll chrome: fadeEnd (' + fadeEnd + ') must be greater than fadeStart (' + fadeStart + ')');
    if (hysteresis < 0) throw new Error('scroll chrome: hysteresis must not be negative');
    const limit = (fadeEnd - fadeStart) / 2;
    if (hysteresis > limit) throw new Error('scroll chrome: hysteresis ' + hysteresis + ' exceeds half the fade range (' + limit + ')');
    return Object.freeze({ fadeStart: fadeStart, fadeEnd: fadeEnd, hysteresis: hysteresis });
  }

  function midpoint(config) {
    return config.fadeStart + (config.fadeEnd - config.fadeStart) / 2;
  }

  // Background opacity: linear from 0 at fadeStart to 1 at fadeEnd, clamped; NaN is the resting position.
  function alpha(config, offset) {
    if (Number.isNaN(offset)) return 0;
    if (offset <= config.fadeStart) return 0;
    if (offset >= config.fadeEnd) return 1;
    return Math.min(1, Math.max(0, (offset - config.fadeStart) / (config.fadeEnd - config.fadeStart)));
  }

  // The bar's state at `offset` given the state shown for the previous offset (or null).
  function next(config, offset, previous) {
    if (Number.isNaN(offset)) return previous || next(config, config.fadeStart, null);
    const mid = midpoint(config);
    let onBar;
    let shadow;
    if (previous) {
      onBar = previous.titleColor === 'primary' ? !(offset < mid - config.hysteresis) : offset >= mid + config.hysteresis;
      shadow = previous.castsShadow ? !(offset < config.fadeEnd - config.hysteresis) : offset >= config.fadeEnd;
    } else {
      onBar = offset >= mid;
      shadow = offset >= config.fadeEnd;
    }
    return {
      backgroundAlpha: alpha(config, offset),
      titleColor: onBar ? 'primary' : 'inverted',
      statusBarStyle: onBar ? 'darkContent' : 'lightContent',
      castsShadow: shadow,
    };
  }

  global.TandemScrollChrome = Object.freeze({ configuration: configuration, midpoint: midpoint, alpha: alpha, next: next });
})(window);
