// What the replay viewer and the live boards share: building elements, an HP meter, a round's name. The game's
// board scripts (window.ReplayBoards) are handed these.
"use strict";

window.BoardHelpers = (() => {
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "className") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function hpMeter(label, value, max) {
    const share = max > 0 ? Math.max(0, Math.min(100, (100 * value) / max)) : 0;
    const bar = el("span", { className: share < 34 ? "low" : share < 67 ? "mid" : "" });
    bar.style.width = `${share}%`;
    return el("div", {
      className: "meter hp-meter", role: "meter", "aria-label": `HP of ${label}`, "aria-valuemin": 0,
      "aria-valuemax": max, "aria-valuenow": value, "aria-valuetext": `${value} of ${max} HP`,
    }, bar);
  }

  const roundLabel = (round) => (round > 0 ? `Round ${round}` : "Before round 1");

  // An API answer's JSON; a refusal throws its message (or `refused` and the status) with the answer's `status`.
  async function answerOf(response, refused) {
    const body = await response.json();
    if (!response.ok) {
      throw Object.assign(new Error(body.message || `${refused} (${response.status}).`), { status: response.status });
    }
    return body;
  }

  // An API answer read with GET; a lost connection throws without a `status`.
  async function getJSON(url) {
    return answerOf(await fetch(url, { headers: { Accept: "application/json" } }), "The game could not be read");
  }

  // The CSRF token Django set in its cookie, for the API's POSTs from a page.
  const csrf = () => (document.cookie.match(/(?:^|; )csrftoken=([^;]*)/) || [])[1] || "";

  // `body` POSTed as JSON from a page, with the CSRF token; its answer, or a refusal thrown as `getJSON` does.
  async function postJSON(url, body, refused) {
    const response = await fetch(url, {
      method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf() },
    });
    return answerOf(response, refused);
  }

  // A seat's view read from `kept.cursor` on, every page of its new events added to what `kept` holds (`events`,
  // `texts`, `cursor`, `view`). Fewer moves than last read means a move was taken back: the events after it are
  // no longer the game's, so they are all read again. A refusal throws as `getJSON` does.
  async function readSeat(url, kept) {
    for (;;) {
      const body = await getJSON(`${url}?since=${kept.cursor}`);
      if (kept.view && body.moves < kept.view.moves) {
        Object.assign(kept, { events: [], texts: [], cursor: 0, view: null });
        continue;
      }
      kept.events.push(...body.events);
      kept.texts.push(...body.texts);
      kept.cursor = body.cursor;
      kept.view = body;
      if (!body.more_events) return body;
    }
  }

  return { el, hpMeter, roundLabel, getJSON, postJSON, readSeat };
})();
