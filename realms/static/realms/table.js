// The Army Sheet of an Echo Realms game played with physical cards. The engine on the server runs the game: this
// page reads a seat's view (both sides: nothing is hidden once armies are deployed), shows what the pencil sheet
// would hold and what the engine worked out (the attack order, who acts, effects and their last rounds,
// cooldowns, the fallen), offers the pending decision's legal actions to confirm, and sends the players' changes
// at the table (HP by hand, effects put on or taken off) and undos.
//
// The state read last, the card words and the changes not sent yet are kept in localStorage, and the page itself
// by a service worker (cardsdb/pages/offline.py), so the sheet shows at once, opens again and keeps taking
// changes without a connection; changes made offline are sent in order when it returns
// (an HP change applies to the game as it then stands; a decision chosen offline names the version it was chosen
// at, and is refused if the table moved on meanwhile).
"use strict";

(() => {
  const root = document.getElementById("table-game");
  const dataNode = document.getElementById("table-data");
  if (!root || !dataNode) return;
  const config = JSON.parse(dataNode.textContent);
  const $ = (id) => document.getElementById(id);
  const SIDE_NAMES = { a: "Army A", b: "Army B" };
  const STAT_NAMES = { atk: "ATK", def: "DEF", spd: "SPD" };
  const MAX_SINCE = 1000000000;

  const given = new URLSearchParams(window.location.hash.slice(1));
  const secrets = {};
  for (const side of ["a", "b"]) if (given.get(side)) secrets[side] = given.get(side);
  const held = Object.keys(secrets);
  const storeKey = `realms-table:${config.id}`;
  const apiOf = (side) => config.api.replace("SECRET", secrets[side]);
  const { getJSON, postJSON, readSeat } = window.BoardHelpers;

  function loadKept() {
    try {
      const kept = JSON.parse(window.localStorage.getItem(storeKey) || "null");
      if (kept && Array.isArray(kept.queue)) return kept;
    } catch (error) { /* a damaged copy is read again from the server */ }
    return { view: null, events: [], texts: [], cursor: 0, queue: [], decider: null };
  }
  const kept = loadKept();
  kept.cards = config.cards; // the card words travel with the state, for a page opened without a connection
  const save = () => { try { window.localStorage.setItem(storeKey, JSON.stringify(kept)); } catch (error) { /* full */ } };

  // The board helpers' elements, with `text` for the text and `on` for listeners.
  function el(tag, attrs = {}, ...children) {
    const { text, on, class: className, ...rest } = attrs;
    const node = window.BoardHelpers.el(tag, { ...rest, className }, ...(text === undefined ? [] : [text]), ...children);
    for (const [type, listener] of Object.entries(on || {})) node.addEventListener(type, listener);
    return node;
  }

  // ------------------------------------------------------------------ reading

  async function readView() {
    const side = held[0];
    await readSeat(apiOf(side), kept);
    // The legal actions are in the deciding seat's own view: read it when this device holds that seat too.
    const turn = kept.view.turn;
    kept.decider = turn === side ? kept.view : turn && secrets[turn] ? await getJSON(`${apiOf(turn)}?since=${MAX_SINCE}`) : null;
  }

  let busy = false;
  let again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      do {
        again = false;
        await flush();
        await readView();
        online(true);
        $("table-error").hidden = true;
      } while (again);
    } catch (error) {
      if (error.status) showError(error.message); else online(false);
    } finally {
      busy = false;
      save();
      render();
    }
  }

  function schedule() {
    window.setTimeout(async () => { await refresh(); schedule(); }, config.poll_ms);
  }

  // ------------------------------------------------------------------ sending

  // Queued sends go out in order; a refused one is dropped with its reason shown, a network failure stops here.
  async function flush() {
    while (kept.queue.length) {
      const item = kept.queue[0];
      try {
        const answer = await postJSON(item.path, item.body, "Refused");
        if (kept.view) kept.view.version = answer.version; // read in full next; a choice made now names it
      } catch (error) {
        if (!error.status) throw error;
        showError(`${item.what}: ${error.message}`);
      }
      kept.queue.shift();
      save();
    }
  }

  async function send(path, body, what) {
    kept.queue.push({ path, body, what });
    save();
    render();
    await refresh();
  }

  // The version a decision or an undo is chosen at: the game as read, moved on by each change of this device still
  // waiting to be sent (each moves it by one), so that only another device's change in between refuses it.
  const seenVersion = () => kept.view.version + kept.queue.length;

  const tableChange = (change, what) => send(`${apiOf(held[0])}table-changes/`, { change }, what);

  function showError(message) {
    $("table-error").textContent = message;
    $("table-error").hidden = false;
  }

  function online(isOnline) {
    const note = $("table-connection");
    const waiting = kept.queue.length;
    note.hidden = isOnline && !waiting;
    note.textContent = isOnline ? `Sending ${waiting} change${waiting === 1 ? "" : "s"}…`
      : `No connection: the sheet shows the table as last read${waiting ? `, and ${waiting} change${waiting === 1 ? "" : "s"} made here will be sent when it is back` : ""}.`;
  }

  // ------------------------------------------------------------------ drawing

  function unitName(unit) {
    return `${unit.name} (${SIDE_NAMES[unit.side]})`;
  }

  // HP changes not sent yet, by unit: shown on the sheet at once.
  function waitingHp() {
    const sums = {};
    for (const item of kept.queue) {
      const change = item.body.change;
      if (change && change[0] === "hp") sums[change[1]] = (sums[change[1]] || 0) + change[2];
    }
    return sums;
  }

  function render() {
    const view = kept.view;
    if (!held.length) {
      $("table-status").textContent = "This page needs a seat link: open the link given when the game started.";
      return;
    }
    if (!view) {
      $("table-status").textContent = "Reading the table…";
      return;
    }
    root.dataset.version = view.version; // the game as last read
    const obs = view.observation;
    const units = new Map(obs.units.map((u) => [u.id, u]));
    renderNow(view, obs, units);
    renderOrder(obs, units);
    for (const side of ["a", "b"]) renderSide(side, obs);
    renderEffectForm(obs);
    renderLinks();
    renderLog();
    online(navigator.onLine !== false);
  }

  function renderNow(view, obs, units) {
    const actor = obs.actor ? units.get(obs.actor) : null;
    const over = view.status !== "playing";
    $("table-status").textContent = over ? "The game is over." : `Round ${obs.round}, ${obs.phase === "flex" ? "Flex phase" : "actions"}.`;
    $("table-now").textContent = over ? "" : actor ? `${unitName(actor)} ${obs.phase === "flex" ? "may change line" : "acts"} now.` : "";
    const decider = kept.decider && kept.decider.your_turn ? kept.decider : null;
    $("table-decision").hidden = over || !decider;
    $("table-waiting").hidden = over || !!decider;
    $("table-waiting").textContent = view.turn ? `${SIDE_NAMES[view.turn]}'s player decides on their phone.` : "";
    if (decider) renderChoices(decider, actor);
    $("table-undo").disabled = !view.can_undo;
    $("table-end").hidden = !view.result;
    if (view.result) {
      const r = view.result;
      $("table-result").textContent = `${r.winner ? `${SIDE_NAMES[r.winner]} wins` : "A draw"} (${r.reason.replace("_", " ")}) after ${r.rounds} round${r.rounds === 1 ? "" : "s"}.`;
      $("table-replay").href = config.replay.replace("00000000-0000-0000-0000-000000000000", view.match || "");
    }
  }

  function renderChoices(decider, actor) {
    const box = $("table-choices");
    const signature = JSON.stringify(decider.legal.map((entry) => [entry.action, entry.label]));
    if (box.dataset.signature === signature) return; // keep the player's choice while the table stands still
    // Offers changed (an HP in a label, a target fallen): the same action stays chosen, and focused, if offered.
    const checked = box.querySelector("input:checked");
    const chosen = checked ? checked.dataset.action : null;
    const focused = checked && document.activeElement === checked;
    box.dataset.signature = signature;
    box.replaceChildren();
    $("decision-legend").textContent = actor ? `${actor.name}: choose, then confirm` : "Choose, then confirm";
    decider.legal.forEach((entry, index) => {
      const id = `choice-${index}`;
      const action = JSON.stringify(entry.action);
      const input = el("input", { type: "radio", name: "choice", id, value: String(index), "data-action": action });
      input.checked = action === chosen;
      box.append(el("div", { class: "table-choice" }, input, el("label", { for: id, text: entry.label }),
        entry.detail ? el("p", { class: "help", text: entry.detail }) : null));
      if (input.checked && focused) input.focus();
    });
  }

  function renderOrder(obs, units) {
    $("order-heading").textContent = `Attack order, round ${obs.round}`;
    $("order-note").hidden = obs.phase !== "flex";
    const list = $("table-order");
    list.replaceChildren();
    obs.order.forEach(([uid, spd], index) => {
      const unit = units.get(uid);
      if (!unit) return;
      const acting = obs.phase === "act" && index === obs.acting;
      const done = obs.phase === "act" && index < obs.acting;
      const state = !unit.alive ? "fallen" : acting ? "acts now" : done ? "has acted" : "to act";
      list.append(el("li", { class: `order-${state.replace(" ", "-")}`, "aria-current": acting ? "step" : null },
        `${unitName(unit)}, SPD ${spd}: ${state}`));
    });
  }

  function renderSide(side, obs) {
    const box = $(`units-${side}`);
    const mine = held.length === 1 && held[0] === side ? " (this phone)" : "";
    $(`side-${side}-heading`).textContent = `${SIDE_NAMES[side]}${mine}`;
    const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.id : null;
    box.replaceChildren(...obs.units.filter((u) => u.side === side).map((u) => unitCard(u, obs)));
    if (focused && $(focused)) $(focused).focus();
  }

  function unitCard(unit, obs) {
    const card = unit.card ? kept.cards[unit.card] : null;
    const pending = waitingHp()[unit.id] || 0;
    const hp = Math.max(0, Math.min(unit.max_hp, unit.hp + pending));
    const article = el("article", { class: `table-unit${unit.alive ? "" : " fallen"}`, id: `unit-${unit.id}`, "aria-labelledby": `name-${unit.id}` },
      el("h3", { id: `name-${unit.id}`, text: `${unit.name}${unit.alive ? "" : " (fallen)"}` }),
      el("p", { class: "help", text: `${unit.summon ? "Summon" : card ? card.rarity : ""} · ${unit.line === "vanguard" ? "Vanguard" : "Rearguard"}` }),
      el("p", { class: "table-hp", id: `hp-${unit.id}`, text: `HP ${hp} / ${unit.max_hp}${pending ? ` (${pending > 0 ? "+" : ""}${pending} not sent yet)` : ""}${unit.shield ? `, shield ${unit.shield}` : ""}` }),
      unit.alive ? hpButtons(unit) : null,
      el("p", { class: "table-stats", text: statsText(unit, card) }),
      card ? abilityText(unit, card, obs) : null,
      effectList(unit, obs));
    return article;
  }

  function hpButtons(unit) {
    const row = el("div", { class: "table-hp-buttons", role: "group", "aria-label": `${unitName(unit)}: HP` });
    for (const delta of [-5, -1, 1, 5]) {
      const words = `${delta < 0 ? "down" : "up"} ${Math.abs(delta)}`;
      row.append(el("button", {
        type: "button", class: "secondary", id: `hp-${unit.id}-${delta < 0 ? "minus" : "plus"}-${Math.abs(delta)}`,
        "aria-label": `${unitName(unit)}: HP ${words}`, text: `${delta > 0 ? "+" : "−"}${Math.abs(delta)}`,
        on: { click: () => tableChange(["hp", unit.id, delta], `HP ${words} for ${unit.name}`) },
      }));
    }
    return row;
  }

  function statsText(unit, card) {
    const shown = (key, base) => `${STAT_NAMES[key]} ${unit[key]}${base !== undefined && base !== unit[key] ? ` (printed ${base})` : ""}`;
    return [shown("atk", card?.atk), shown("def", card?.def), shown("spd", card?.spd)].join(" · ");
  }

  function abilityText(unit, card, obs) {
    const ready = unit.ready_round <= Math.max(obs.round, 1);
    const cooldown = unit.silenced ? "silenced" : ready ? "ready" : `cooling down: ready in round ${unit.ready_round} (${unit.ready_round - obs.round} round${unit.ready_round - obs.round === 1 ? "" : "s"})`;
    return el("div", { class: "table-abilities" },
      el("p", {}, el("strong", { text: `${card.main.name} ` }), `(cooldown ${card.cooldown}; `,
        el("span", { id: `ready-${unit.id}`, text: cooldown }), `): ${card.main.text}`),
      el("p", {}, el("strong", { text: `${card.faction.name}: ` }), card.faction.text));
  }

  function effectWords(effect, obs) {
    const what = effect.stat ? `${effect.kind} ${effect.kind === "buff" ? "+" : "−"}${effect.amount} ${STAT_NAMES[effect.stat]}`
      : effect.amount ? `${effect.kind} ${effect.amount}` : effect.kind;
    const left = effect.until - Math.max(obs.round, 1) + 1;
    return `${what}, until the end of round ${effect.until} (${left} round${left === 1 ? "" : "s"} left)`;
  }

  function effectList(unit, obs) {
    if (!unit.effects.length) return null;
    const list = el("ul", { class: "table-effects", id: `effects-${unit.id}`, "aria-label": `${unitName(unit)}: effects` });
    for (const effect of unit.effects) {
      const words = effectWords(effect, obs);
      list.append(el("li", {}, `${words} `, unit.alive ? el("button", {
        type: "button", class: "link-button", "aria-label": `Take off ${words} from ${unit.name}`, text: "take off",
        on: { click: () => tableChange(["remove", unit.id, effect.eid], `Taking off ${effect.kind} from ${unit.name}`) },
      }) : null));
    }
    return list;
  }

  function renderEffectForm(obs) {
    const select = $("effect-unit");
    const chosen = select.value;
    select.replaceChildren(...obs.units.filter((u) => u.alive).map((u) => el("option", { value: u.id, text: unitName(u) })));
    if (chosen) select.value = chosen;
    const kinds = $("effect-kind");
    if (!kinds.options.length) {
      for (const k of config.kinds) kinds.append(el("option", { value: k.kind, text: k.kind }));
      for (const s of config.stats) $("effect-stat").append(el("option", { value: s, text: STAT_NAMES[s] }));
      $("effect-amount").max = config.max_amount;
      $("effect-duration").max = config.max_duration;
    }
    const kind = config.kinds.find((k) => k.kind === kinds.value) || config.kinds[0];
    $("effect-stat-field").hidden = !kind.stat;
    $("effect-amount-field").hidden = !kind.amount;
  }

  function renderLinks() {
    const list = $("table-links");
    if (list.childElementCount) return;
    for (const side of held) {
      const url = `${window.location.origin}${window.location.pathname}#${side}=${secrets[side]}`;
      list.append(el("li", {}, `${SIDE_NAMES[side]}: `, el("a", { href: url, text: "its player's link" })));
    }
  }

  function renderLog() {
    const box = $("table-log");
    const rounds = [];
    let current = { title: "Before round 1", lines: [] };
    kept.events.forEach((event, index) => {
      if (event.type === "round_start") {
        rounds.push(current);
        current = { title: `Round ${event.round}`, lines: [] };
      }
      const text = (kept.texts[index] || "").trim();
      if (text) current.lines.push(text);
    });
    rounds.push(current);
    const shown = rounds.filter((r) => r.lines.length);
    box.replaceChildren(...shown.map((r, i) => el("details", { open: i === shown.length - 1 },
      el("summary", { text: r.title }), el("ol", {}, ...r.lines.map((line) => el("li", { text: line }))))));
  }

  // ------------------------------------------------------------------ the players' input

  $("table-decision").addEventListener("submit", (event) => {
    event.preventDefault();
    const picked = document.querySelector("#table-choices input:checked");
    const decider = kept.decider;
    if (!picked || !decider) {
      showError("Choose one of the actions first.");
      return;
    }
    const index = Number(picked.value);
    send(`${apiOf(decider.seat)}actions/`, { index, version: seenVersion() }, decider.legal[index].label);
  });

  $("table-undo").addEventListener("click", () => {
    send(`${apiOf(held[0])}undo/`, { version: seenVersion() }, "Undo");
  });

  $("effect-kind").addEventListener("change", () => render());

  $("table-effect-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const kind = config.kinds.find((k) => k.kind === $("effect-kind").value);
    const change = ["effect", $("effect-unit").value, kind.kind, kind.stat ? $("effect-stat").value : null,
      kind.amount ? Number($("effect-amount").value) : null, Number($("effect-duration").value)];
    tableChange(change, `Putting on ${kind.kind}`);
  });

  window.addEventListener("online", () => refresh());
  window.addEventListener("offline", () => online(false));

  render();
  refresh().then(schedule);
})();
