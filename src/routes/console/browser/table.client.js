// The pricing table's scroll cue (src/routes/console/page.tsx): shown while
// columns are off to the right of the table's own scroll box. Plain browser
// JavaScript, no build step, inlined with the page's CSP nonce. The table is
// replaced when it refreshes, so the cue follows the page, not one element.
(() => {
  "use strict";
  const card = document.getElementById("pricing");
  if (card === null) return;
  function updateCue() {
    const scroller = document.getElementById("pricing-scroll");
    const cue = document.getElementById("pricing-cue");
    if (cue === null) return;
    cue.hidden = scroller === null || scroller.scrollLeft + scroller.clientWidth >= scroller.scrollWidth - 1;
  }
  document.addEventListener("scroll", updateCue, { capture: true, passive: true });
  window.addEventListener("resize", updateCue);
  new MutationObserver(updateCue).observe(card, { childList: true, subtree: true });
  updateCue();
})();
