/// The page's stylesheet (`/page/app.css`).
enum PageStylesheet {
    static let text = #"""
:root {
  --ink: #1d2330;
  --muted: #677085;
  --accent: #2f6fed;
  --surface: #ffffff;
  --canvas: #eef1f6;
  --hero-height: 280px;
  --bar-height: 56px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: var(--ink);
  background: var(--canvas);
}
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; }
button { font: inherit; }
button:disabled { cursor: not-allowed; opacity: 0.45; }

.session {
  position: sticky; top: 0; z-index: 10;
  display: flex; align-items: center; gap: 12px; flex-wrap: wrap;
  padding: 8px 16px; background: var(--ink); color: #fff; min-height: 48px;
}
.brand { font-weight: 700; letter-spacing: 0.04em; }
.status { padding: 3px 10px; border-radius: 999px; font-size: 13px; background: #6b7280; white-space: nowrap; }
.status[data-state="connected"] { background: #178a4c; }
.status[data-state="reconnecting"], .status[data-state="connecting"] { background: #b7791f; }
.status[data-state="closed"] { background: #c53030; }
.role-note { padding: 3px 10px; border-radius: 999px; font-size: 13px; background: #4a5568; }
.timeline { display: flex; align-items: center; gap: 8px; font-size: 13px; }
.timeline input { width: 160px; }
.timeline-label { white-space: nowrap; font-variant-numeric: tabular-nums; }
body.scrubbing .detail { outline: 3px solid #d69e2e; outline-offset: -3px; }
.participants { display: flex; gap: 10px; list-style: none; margin: 0 0 0 auto; padding: 0; flex-wrap: wrap; }
.participants li { display: flex; align-items: center; gap: 6px; font-size: 13px; }
.avatar {
  --avatar-hue: 210;
  display: inline-grid; place-items: center; width: 28px; height: 28px; border-radius: 50%;
  background: hsl(var(--avatar-hue) 60% 45%); color: #fff; font-size: 12px; font-weight: 700;
}

.stage { display: flex; justify-content: center; padding: 16px; }
.phone {
  position: relative; width: 390px; max-width: 100%; height: 720px; max-height: calc(100vh - 80px);
  min-height: 420px; display: flex; flex-direction: column;
  background: var(--surface); border-radius: 24px; overflow: hidden; box-shadow: 0 12px 40px rgb(20 30 50 / 0.18);
}
.navbar {
  --bar-alpha: 0;
  position: absolute; top: 0; left: 0; right: 0; z-index: 2; height: var(--bar-height);
  display: flex; align-items: center; justify-content: space-between; padding: 0 16px;
  background: rgb(255 255 255 / var(--bar-alpha)); color: #fff;
  transition: color 0.15s, box-shadow 0.15s;
}
.navbar[data-title="primary"] { color: var(--ink); }
.navbar[data-title="inverted"] { text-shadow: 0 1px 3px rgb(0 0 0 / 0.45); }
.navbar.shadow { box-shadow: 0 1px 6px rgb(0 0 0 / 0.2); }
.navbar-title { font-weight: 600; }
.cart { display: inline-flex; align-items: center; gap: 4px; font-weight: 600; }
.session[data-state="reconnecting"] .participants, .session[data-state="closed"] .participants { opacity: 0.45; }
.detail { flex: 1; overflow-y: auto; overscroll-behavior: contain; }
body.viewer .detail { overflow-y: hidden; }
.hero {
  height: var(--hero-height); display: flex; align-items: center; justify-content: center; gap: 0;
  background: linear-gradient(160deg, #1e3a8a, #0f766e 70%, #134e4a);
}
.hero-cup { width: 84px; height: 110px; border-radius: 40px; background: linear-gradient(#e5e7eb, #9ca3af); box-shadow: inset 0 -8px 0 #6b7280; }
.hero-band { width: 90px; height: 120px; border: 14px solid #d1d5db; border-bottom: none; border-radius: 70px 70px 0 0; margin: 0 -14px 70px; }
.summary { padding: 16px; }
.summary h1 { margin: 0 0 4px; font-size: 22px; }
.price { margin: 0 0 8px; font-size: 20px; font-weight: 700; color: var(--accent); }
.was { font-size: 14px; color: var(--muted); text-decoration: line-through; font-weight: 400; }
.badges { display: flex; flex-wrap: wrap; gap: 6px; min-height: 26px; }
.badge { padding: 3px 10px; border-radius: 999px; background: #fde68a; color: #713f12; font-size: 12px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.tabs { display: flex; border-bottom: 1px solid #e2e8f0; padding: 0 8px; }
.tabs button { flex: 1; padding: 12px 4px; background: none; border: none; border-bottom: 3px solid transparent; color: var(--muted); cursor: pointer; }
.tabs button[aria-selected="true"] { color: var(--ink); border-bottom-color: var(--accent); font-weight: 600; }
.panel { padding: 8px 16px 32px; min-height: 2400px; }
.panel h2 { font-size: 16px; margin: 20px 0 6px; }
.panel p { margin: 0 0 12px; line-height: 1.6; color: #3b4252; }
.panel table { width: 100%; border-collapse: collapse; }
.panel td { padding: 10px 4px; border-bottom: 1px solid #edf2f7; }
.panel td:first-child { color: var(--muted); }
.review { border: 1px solid #e2e8f0; border-radius: 12px; padding: 4px 12px; margin: 12px 0; }
.actions { display: flex; gap: 8px; padding: 10px 12px; border-top: 1px solid #e2e8f0; background: var(--surface); }
.actions button { flex: 1; padding: 10px 6px; border-radius: 10px; border: 1px solid #cbd5e0; background: #fff; cursor: pointer; }
.actions button[aria-pressed="true"] { background: #fef3c7; border-color: #d69e2e; }
.actions button.primary { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; }
.actions button.primary[aria-pressed="true"] { background: #178a4c; border-color: #178a4c; }

.toasts { position: fixed; left: 50%; bottom: 96px; transform: translateX(-50%); z-index: 20; pointer-events: none; max-width: 90vw; }
.toast {
  pointer-events: auto; padding: 10px 18px; border-radius: 12px; background: rgb(29 35 48 / 0.92); color: #fff;
  opacity: 0; transform: translateY(8px); transition: opacity 0.25s, transform 0.25s; cursor: pointer;
}
.toast.shown { opacity: 1; transform: none; }
.noscript, body.no-token .stage { padding: 24px; }

.invite {
  position: fixed; inset: 0; z-index: 30; display: grid; place-items: center; padding: 16px;
  background: rgb(20 26 38 / 0.55);
}
.invite[hidden] { display: none; }
.invite-card {
  width: 340px; max-width: 100%; display: flex; flex-direction: column; gap: 10px; padding: 22px;
  background: var(--surface); border-radius: 16px; box-shadow: 0 16px 48px rgb(0 0 0 / 0.3);
}
.invite-card h2 { margin: 0; font-size: 20px; }
.invite-card p { margin: 0; color: var(--muted); line-height: 1.5; font-size: 14px; }
.invite-card label { font-weight: 600; font-size: 14px; }
.invite-card input { font: inherit; padding: 10px 12px; border: 1px solid #cbd5e0; border-radius: 10px; }
.invite-card input:focus-visible { outline: 3px solid rgb(47 111 237 / 0.45); outline-offset: 1px; border-color: var(--accent); }
.invite-card input[aria-invalid="true"] { border-color: #c53030; }
.invite-card button { padding: 10px; border-radius: 10px; border: 1px solid var(--accent); background: var(--accent); color: #fff; font-weight: 600; cursor: pointer; }
.invite-error:empty { display: none; }
.invite-error { padding: 10px 12px; border-radius: 10px; background: #fff5f5; border: 1px solid #feb2b2; color: #9b2c2c; font-size: 14px; line-height: 1.45; }
.invite-error strong { display: block; }
"""#
}
