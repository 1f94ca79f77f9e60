// The board of a game with people at some seats. It reads each seat's view from the API (its observation, the
// legal actions in words when it decides, the events it could see) and draws the table with the game's replay
// board (window.ReplayBoards) from those events alone, so a seat's page never holds what its player may not see.
// It asks again every `poll_ms`, so the other seats' moves arrive without reloading. On the table page (several
// people) the seat links come in the address's fragment; playing them all here, a hand-off screen hides the
// table whenever the seat to decide changes.
"use strict";

(() => {
  const root = document.getElementById("seat");
  const dataNode = document.getElementById("seat-data");
  if (!root || !dataNode) return;
  const config = JSON.parse(dataNode.textContent);
  const { el, hpMeter, roundLabel, postJSON, readSeat } = window.BoardHelpers;
  const makeBoard = (window.ReplayBoards || {})[config.game];
  const $ = (id) => document.getElementById(id);
  const apiOf = (secret) => config.api.replace("SECRET", secret);

  let seats = config.seats;
  if (config.hot_seat) {
    const given = new URLSearchParams(window.location.hash.slice(1));
    seats = seats.map((seat) => ({ ...seat, secret: given.get(seat.player) || "" })).filter((seat) => seat.secret);
  }
  const known = new Map(seats.map((seat) => [seat.player, { events: [], texts: [], cursor: 0, view: null }]));
  let shown = config.hot_seat ? null : seats[0]?.player || null;
  let playing = !config.hot_seat;
  let busy = false;

  const read = (seat) => readSeat(apiOf(seat.secret), known.get(seat.player));

  // One reading at a time: a poll still under way when a move is sent would bring back a view from before it.
  let reading = null;
  let readAgain = false;
  function refresh() {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      do {
        readAgain = false;
        await readAll();
      } while (readAgain);
      reading = null;
    })();
    return reading;
  }

  async function readAll() {
    try {
      for (const seat of seats) await read(seat);
      $("seat-error").hidden = true;
      root.dataset.version = known.get(seats[0].player).view.version; // the game as last read (every seat alike)
    } catch (error) {
      showError(error.message);
      return;
    }
    render();
  }

  function showError(message) {
    $("seat-error").textContent = message;
    $("seat-error").hidden = false;
  }

  function render() {
    if (!playing) return;
    if (config.hot_seat) {
      const deciding = seats.find((seat) => known.get(seat.player).view?.your_turn);
      if (deciding && deciding.player !== shown) {
        handOff(deciding.player);
        return;
      }
      if (!shown) shown = seats[0].player;
      if (!$("handoff").hidden) return;
    }
    draw(seats.find((seat) => seat.player === shown));
  }

  function handOff(player) {
    // Nothing of the seat that played stays on screen while the device changes hands.
    drawn = null;
    $("seat-board").replaceChildren();
    $("seat-actions").replaceChildren();
    $("seat-log").replaceChildren();
    $("seat-play").hidden = true;
    $("handoff-text").textContent = `Pass the device to the player of seat ${player}. Only that player should look now.`;
    $("handoff").hidden = false;
    $("handoff").dataset.next = player;
    $("handoff-ready").focus();
  }

  function statusText(view) {
    if (view.result) {
      const winner = view.result.winner;
      const who = winner === null ? "A draw" : winner === view.seat || (view.seat.startsWith(`t${winner}`)) ? "You won" : "You lost";
      return `The game is over: ${who} (${view.result.reason}, round ${view.result.rounds}).`;
    }
    if (view.status === "ended") return "This game was left idle and has ended.";
    if (view.your_turn) return `Your turn (seat ${view.seat}): choose a move.`;
    if (view.status === "thinking") return "The computer is deciding…";
    return `Waiting for seat ${view.turn}.`;
  }

  // What the screen shows, so a poll that brings nothing new leaves it (and the keyboard's focus) alone.
  let drawn = null;

  function draw(seat) {
    const kept = known.get(seat.player);
    const view = kept.view;
    if (!view) return;
    const showing = JSON.stringify([seat.player, view, kept.events.length]);
    if (showing === drawn) return;
    drawn = showing;
    $("seat-play").hidden = false;
    $("seat-status").textContent = statusText(view);
    if (makeBoard) {
      const start = kept.events.find((e) => e.type === "match_start") || {};
      const game = makeBoard({ el, hpMeter, roundLabel, start });
      const state = game.start();
      for (const e of kept.events) game.apply(state, e);
      $("seat-board").replaceChildren(game.draw(state, seat.player));
      // The unit whose move this is, where the game has one (an Echo Realms unit's action or Flex move).
      const actor = view.your_turn ? view.observation.actor : null;
      const unit = actor ? $("seat-board").querySelector(`[data-unit="${actor}"]`) : null;
      if (unit) {
        unit.classList.add("to-act");
        unit.querySelector(".unit-name")?.after(el("span", { className: "badge to-act-badge" }, "your move"));
      }
      const inOrder = actor ? $("seat-board").querySelector(`[data-order-unit="${actor}"]`) : null;
      if (inOrder) {
        inOrder.classList.add("to-act");
        inOrder.setAttribute("aria-current", "step");
      }
    }
    // A move's button keeps the focus across a redraw while the same move is offered.
    const focused = $("seat-actions").contains(document.activeElement) ? document.activeElement.dataset.index : null;
    $("seat-actions").replaceChildren(...view.legal.map((entry) => {
      const button = el("button", { type: "button", "data-index": entry.index }, entry.label,
        entry.detail ? el("span", { className: "detail" }, entry.detail) : null);
      button.addEventListener("click", () => send(seat, "actions/", { index: entry.index, version: view.version }));
      return button;
    }));
    if (!view.legal.length && !view.result) $("seat-actions").replaceChildren(el("p", { className: "help" }, "Not your turn."));
    if (focused !== null) $("seat-actions").querySelector(`button[data-index="${focused}"]`)?.focus();
    $("seat-undo").hidden = !view.can_undo;
    $("seat-undo").onclick = () => send(seat, "undo/", { version: view.version });
    let from = 0;
    kept.events.forEach((e, index) => { if (e.type === "round_start") from = index; });
    $("seat-log").replaceChildren(...kept.texts.slice(from).filter((text) => text).map((text) => el("li", {}, text)));
    $("seat-log").scrollTop = $("seat-log").scrollHeight;
    $("seat-end").hidden = !view.match;
    if (view.match) {
      $("seat-replay").href = config.replay.replace("00000000-0000-0000-0000-000000000000", view.match);
      $("seat-rematch").action = config.rematch.replace("SECRET", seat.secret);
    }
  }

  async function send(seat, path, body) {
    if (busy) return;
    busy = true;
    for (const button of $("seat-actions").querySelectorAll("button")) button.disabled = true;
    try {
      await postJSON(apiOf(seat.secret) + path, body, "The move was refused");
    } catch (error) {
      if (!error.status) throw error;
      showError(error.message);
    } finally {
      busy = false;
      drawn = null; // the buttons were disabled for the send: draw them again even if the game did not move
    }
    await refresh();
  }

  if (config.hot_seat) {
    const list = $("seat-link-list");
    for (const seat of seats) {
      const link = new URL(config.page.replace("SECRET", seat.secret), window.location.href);
      list.append(el("li", {}, `Seat ${seat.player}: `, el("a", { href: link.href }, link.href)));
    }
    $("hot-seat-start").addEventListener("click", () => {
      playing = true;
      $("seat-links").hidden = true;
      render();
    });
    $("handoff-ready").addEventListener("click", () => {
      shown = $("handoff").dataset.next;
      $("handoff").hidden = true;
      render();
    });
  }

  setInterval(() => { if (!busy && !document.hidden) refresh(); }, config.poll_ms);
  refresh();
})();
