/// The page's HTML: markup only; scripts and styles load from `/page/…` so the CSP needs no `'unsafe-inline'`.
enum PageIndexDocument {
    static let text = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Tandem · shared product page</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/page/app.css">
<script src="/page/scroll-chrome.js" defer></script>
<script src="/page/sync.js" defer></script>
<script src="/page/app.js" defer></script>
</head>
<body>
<header class="session" id="session">
  <span class="brand">Tandem</span>
  <span class="status" id="status" role="status" data-state="connecting">Connecting…</span>
  <span class="role-note" id="role" hidden>View only</span>
  <span class="timeline" id="timeline" hidden>
    <input type="range" id="timeline-range" min="0" max="0" value="0" step="1" aria-label="The page at a past revision">
    <span class="timeline-label" id="timeline-label">live</span>
    <button type="button" id="timeline-live" hidden>Back to live</button>
  </span>
  <ul class="participants" id="participants" aria-label="Participants"></ul>
</header>
<div class="stage" id="stage">
  <div class="phone">
    <div class="navbar" id="navbar" data-title="inverted">
      <span class="navbar-title">Aurora Headphones</span>
      <span class="cart" aria-label="Items in cart"><svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true"><path d="M3 4h2.5l2.2 10.2a1 1 0 0 0 1 .8h8.6a1 1 0 0 0 1-.8L20 8H6.6" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"/><circle cx="9.5" cy="19" r="1.5" fill="currentColor"/><circle cx="17" cy="19" r="1.5" fill="currentColor"/></svg><span id="cart-count">0</span></span>
    </div>
    <main class="detail" id="detail">
      <div class="hero" aria-hidden="true"><div class="hero-cup left"></div><div class="hero-band"></div><div class="hero-cup right"></div></div>
      <section class="summary">
        <h1>Aurora Wireless Headphones</h1>
        <p class="price">$249.00 <span class="was">$299.00</span></p>
        <div class="badges" id="badges" aria-label="Marks"></div>
      </section>
      <div class="tabs" role="tablist">
        <button type="button" role="tab" id="tab-0" data-control>Details</button>
        <button type="button" role="tab" id="tab-1" data-control>Specs</button>
        <button type="button" role="tab" id="tab-2" data-control>Reviews</button>
      </div>
      <section class="panel" id="panel-0" role="tabpanel" aria-labelledby="tab-0"></section>
      <section class="panel" id="panel-1" role="tabpanel" aria-labelledby="tab-1" hidden></section>
      <section class="panel" id="panel-2" role="tabpanel" aria-labelledby="tab-2" hidden></section>
    </main>
    <footer class="actions">
      <button type="button" id="video" data-control aria-pressed="false">▶ Video</button>
      <button type="button" id="price-sheet" data-control aria-pressed="false">Price sheet</button>
      <button type="button" id="add-to-cart" class="primary" data-control aria-pressed="false">Add to cart</button>
    </footer>
  </div>
</div>
<section class="invite" id="invite" role="dialog" aria-modal="true" aria-labelledby="invite-title" aria-describedby="invite-about" hidden>
  <form class="invite-card" id="invite-form" novalidate>
    <h2 id="invite-title">Join a shared page</h2>
    <p id="invite-about">You were invited to browse this page together. Everyone in the room sees the name you enter.</p>
    <label for="invite-name">Your name</label>
    <input id="invite-name" name="name" type="text" autocomplete="nickname" spellcheck="false" required maxlength="\#(InviteRoutes.maxNameBytes)" aria-describedby="invite-error">
    <div class="invite-error" id="invite-error" role="alert"></div>
    <button type="submit" id="invite-join" class="primary">Join</button>
  </form>
</section>
<div class="toasts" id="toasts" aria-live="polite"></div>
<noscript><p class="noscript">This page needs JavaScript to join a Tandem room.</p></noscript>
</body>
</html>
"""#
}
