// The replay viewer: steps through a stored match's event log (embedded by the page, with each event's
// play-by-play line rendered by the engine) and draws the table as it stood after each event. The table is
// drawn by the game's board, which its own script (loaded first) registers in `window.ReplayBoards`: a
// function of the shared helpers (board_helpers.js) answering { start(), apply(state, event), silent(state, event),
// outcome(matchEnd), draw(state, viewer) } and, for a game with hidden information, `seats` (id, label) and
// `seatLabel(id)` for "View as".
"use strict";

(() => {
  const root = document.getElementById("replay");
  const dataNode = document.getElementById("replay-data");
  if (!root || !dataNode) return;
  const data = JSON.parse(dataNode.textContent);
  const events = data.events;
  const texts = data.texts;
  if (!events.length) {
    document.getElementById("replay-text").textContent = "This match has no events to replay.";
    return;
  }

  const $ = (selector) => root.querySelector(selector);
  const controls = $(".replay-controls");
  const counter = $("#replay-counter");
  const textLine = $("#replay-text");
  const outcomeLine = $("#replay-outcome");
  const board = $("#replay-board");
  const roundSelect = $("#replay-round");
  const speedSelect = $("#replay-speed");
  const viewerSelect = $("#replay-viewer");
  const button = (action) => controls.querySelector(`[data-action="${action}"]`);

  const { el, hpMeter, roundLabel } = window.BoardHelpers;
  const start = events.find((e) => e.type === "match_start") || {};
  const makeBoard = (window.ReplayBoards || {})[data.game];
  if (!makeBoard) {
    document.getElementById("replay-text").textContent = "This game's replay board could not be loaded.";
    return;
  }
  const game = makeBoard({ el, hpMeter, roundLabel, start });
  const seats = game.seats || [];
  const seatLabel = game.seatLabel || ((id) => id);

  // ------------------------------------------------------------------------------ stepping

  let position = 1; // events[0 .. position - 1] are applied
  let state = null;
  let applied = 0;
  let timer = null;
  const viewer = () => (viewerSelect ? viewerSelect.value : "");
  const visible = (e) => !viewer() || !e.visible_to || e.visible_to.includes(viewer());

  function rebuild(to) {
    state = game.start();
    applied = 0;
    advance(to);
  }

  function advance(to) {
    while (applied < to) {
      const e = events[applied];
      if (visible(e)) game.apply(state, e);
      applied += 1;
    }
  }

  function show() {
    const e = events[position - 1];
    counter.textContent = `Event ${position} of ${events.length}`;
    textLine.textContent = visible(e) ? (texts[position - 1] || game.silent(state, e))
      : `Hidden from ${seatLabel(viewer())}: a ${e.type} event that seat could not see.`;
    outcomeLine.textContent = state.outcome ? game.outcome(state.outcome) : "";
    board.replaceChildren(game.draw(state, viewer()));
    button("back").disabled = position <= 1;
    button("forward").disabled = position >= events.length;
    const round = roundStarts.filter((index) => index + 1 <= position).pop();
    roundSelect.value = round === undefined ? roundSelect.options[0]?.value || "" : String(round + 1);
    if (position >= events.length) pause();
  }

  function go(to) {
    const target = Math.max(1, Math.min(events.length, to));
    if (target < applied) rebuild(target);
    else advance(target);
    position = target;
    show();
  }

  function play() {
    if (timer || position >= events.length) return;
    const perSecond = Number(speedSelect.value) || 10;
    const stepsPerTick = Math.max(1, Math.round(perSecond / 25));
    timer = setInterval(() => go(position + stepsPerTick), (1000 * stepsPerTick) / perSecond);
    counter.setAttribute("aria-live", "off"); // a count read out many times a second helps nobody
    button("play").disabled = true;
    button("pause").disabled = false;
    button("pause").focus();
  }

  function pause() {
    if (!timer) return;
    clearInterval(timer);
    timer = null;
    counter.setAttribute("aria-live", "polite");
    button("play").disabled = false;
    button("pause").disabled = true;
    if (document.activeElement === button("pause") || document.activeElement === document.body) button("play").focus();
  }

  // Rounds to jump to: where each round starts in the log.
  const roundStarts = [];
  events.forEach((e, index) => {
    if (e.type !== "round_start") return;
    roundStarts.push(index);
    roundSelect.append(el("option", { value: index + 1 }, `Round ${e.round}`));
  });
  if (viewerSelect) {
    for (const seat of seats) viewerSelect.append(el("option", { value: seat.id }, seat.label));
    viewerSelect.addEventListener("change", () => { rebuild(position); show(); });
  }

  controls.addEventListener("click", (event) => {
    const action = event.target.closest("[data-action]");
    if (!action) return;
    const act = action.dataset.action;
    if (act === "back") { pause(); go(position - 1); }
    else if (act === "forward") { pause(); go(position + 1); }
    else if (act === "play") play();
    else if (act === "pause") pause();
    else if (act === "jump" && roundSelect.value) { pause(); go(Number(roundSelect.value)); }
  });
  speedSelect.addEventListener("change", () => { if (timer) { pause(); play(); } });
  root.addEventListener("keydown", (event) => {
    if (event.target.closest("select, input, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowLeft") { event.preventDefault(); pause(); go(position - 1); }
    else if (event.key === "ArrowRight") { event.preventDefault(); pause(); go(position + 1); }
  });

  controls.hidden = false;
  rebuild(position);
  show();
})();
