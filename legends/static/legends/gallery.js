// The gallery's pages are swapped in by htmx: the page link that had keyboard focus is gone, so focus moves
// to the count above the cards, and the next Tab reaches the first card of the new page.
"use strict";

document.addEventListener("htmx:afterSwap", (event) => {
  if (event.detail.target.id !== "gallery-results" || !event.detail.boosted) return;
  const summary = document.getElementById("gallery-summary");
  if (summary) summary.focus({ preventScroll: true });
});
