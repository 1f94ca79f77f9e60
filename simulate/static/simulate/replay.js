// The replay viewer: steps through a stored match's event log (embedded by the page, with each event's
// play-by-play line rendered by the engine) and draws the table as it stood after each event.
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

  const start = events.find((e) => e.type === "match_start") || {};
  const roundLabel = (round) => (round > 0 ? `Round ${round}` : "Before round 1");

  // ------------------------------------------------------------------------------ Echo Realms

  const realms = {
    start() {
      return { units: new Map(), round: 0, actor: null, target: null, outcome: null };
    },

    // The unit whose action, ability or trigger the event belongs to.
    actor(e) {
      switch (e.type) {
        case "decision": case "ability_used": case "faction_triggered": case "move":
          return e.unit;
        case "damage": case "heal":
          return e.via === "ongoing" ? null : e.src;
        case "effect_applied": case "pick": case "summon": case "cooldown": case "fizzle":
          return e.src;
        default:
          return null;
      }
    },

    apply(s, e) {
      const unit = (id) => s.units.get(id);
      s.actor = realms.actor(e);
      s.target = e.type === "damage" || e.type === "heal" ? e.tgt : e.type === "ability_used" ? e.target : null;
      switch (e.type) {
        case "match_start":
          for (const u of e.units) {
            s.units.set(u.id, { id: u.id, side: u.side, name: u.name, line: u.line, hp: u.hp, max: u.hp,
                                effects: new Map(), defeated: false, summon: false });
          }
          break;
        case "summon":
          s.units.set(e.unit, { id: e.unit, side: e.side, name: e.name, line: e.line, hp: e.hp, max: e.hp,
                                effects: new Map(), defeated: false, summon: true });
          break;
        case "damage":
          if (!unit(e.tgt)) break;
          unit(e.tgt).hp = e.hp_after;
          // Shields absorb before HP, oldest first.
          for (let left = e.absorbed || 0, shields = [...unit(e.tgt).effects.values()]; left > 0 && shields.length;) {
            const shield = shields.shift();
            if (shield.kind !== "shield") continue;
            const taken = Math.min(left, shield.left);
            shield.left -= taken;
            left -= taken;
          }
          break;
        case "heal":
          if (unit(e.tgt)) unit(e.tgt).hp = e.hp_after;
          break;
        case "move":
          if (unit(e.unit)) unit(e.unit).line = e.to;
          break;
        case "effect_applied":
          if (unit(e.unit)) unit(e.unit).effects.set(e.eid, { ...e, left: e.amount });
          break;
        case "effect_expired":
          if (unit(e.unit)) unit(e.unit).effects.delete(e.eid);
          break;
        case "defeated":
          if (unit(e.unit)) unit(e.unit).defeated = true;
          break;
        case "round_start":
          s.round = e.round;
          break;
        case "match_end":
          s.outcome = e;
          break;
        default:
          break;
      }
    },

    effectLabel(e) {
      const rounds = ` until round ${e.until}`;
      if (e.stat) return `${e.kind} ${e.kind === "buff" ? "+" : "−"}${e.amount} ${e.stat.toUpperCase()}${rounds}`;
      if (e.kind === "shield") return `shield ${e.left} of ${e.amount}${rounds}`;
      if (e.amount !== null && e.amount !== undefined) return `${e.kind} ${e.amount}${rounds}`;
      return `${e.kind}${rounds}`;
    },

    outcome(e) {
      const rounds = `after ${e.rounds} round${e.rounds === 1 ? "" : "s"}`;
      return e.winner === null ? `Draw (${e.reason}) ${rounds}.` : `Side ${e.winner} wins (${e.reason}) ${rounds}.`;
    },

    // The few events the play-by-play leaves silent (a decision is followed by what it does).
    silent(s, e) {
      const label = (id) => (s.units.has(id) ? `${id} ${s.units.get(id).name}` : id);
      if (e.type === "decision") {
        const [kind, target] = e.action;
        const what = kind === "switch" ? `switch to the ${target}` : target ? `${kind} ${label(target)}` : kind;
        return `${label(e.unit)} decides: ${what}`;
      }
      if (e.type === "round_end") return `End of round ${e.round}`;
      return `(${e.type})`;
    },

    draw(s) {
      const sides = ["a", "b"].map((side) => {
        const lines = ["vanguard", "rearguard"].map((line) => {
          const units = [...s.units.values()].filter((u) => u.side === side && u.line === line);
          const items = units.map((u) => {
            const label = `${u.id} ${u.name}`;
            const acting = s.actor === u.id;
            const targeted = s.target === u.id && !acting;
            const effects = [...u.effects.values()];
            return el("li", {
              className: ["unit", acting && "acting", targeted && "targeted", u.defeated && "defeated"]
                .filter(Boolean).join(" "),
              "data-unit": u.id, "aria-current": acting ? "true" : null,
            },
            el("span", { className: "unit-name" }, label),
            acting ? el("span", { className: "badge acting-badge" }, "acting") : null,
            targeted ? el("span", { className: "badge target-badge" }, "target") : null,
            u.defeated ? el("span", { className: "badge defeated-badge" }, "defeated") : null,
            u.summon ? el("span", { className: "badge" }, "summon") : null,
            hpMeter(label, u.hp, u.max),
            el("span", { className: "hp-text" }, `HP ${u.hp} / ${u.max}`),
            effects.length ? el("ul", { className: "effects", "aria-label": `Effects on ${label}` },
              ...effects.map((e) => el("li", { className: `badge effect ${e.kind}` }, realms.effectLabel(e)))) : null);
          });
          return el("div", { className: "line" },
            el("h4", {}, line === "vanguard" ? "Vanguard" : "Rearguard"),
            items.length ? el("ul", { className: "units" }, ...items) : el("p", { className: "help" }, "Nobody."));
        });
        const agent = (start.agents || {})[side];
        return el("section", { className: "side", "aria-label": `Side ${side}` },
          el("h3", {}, `Side ${side}`, agent ? el("span", { className: "help" }, ` (agent ${agent.agent})`) : null), ...lines);
      });
      return el("div", { className: "sides" }, el("p", { className: "round" }, roundLabel(s.round)), ...sides);
    },
  };

  // ------------------------------------------------------------------------------ Akin Legends

  const cardNames = new Map();
  for (const design of start.deck || []) cardNames.set(design.slug, design.name);
  const cardName = (slug) => cardNames.get(slug) || slug;
  const seats = (start.teams || []).flatMap((t) => t.players.map((p) => ({ ...p, team: t.team })));
  const seatLabel = (id) => {
    const seat = seats.find((p) => p.id === id);
    return seat ? `${seat.name} (${seat.id})` : id;
  };

  const legends = {
    start() {
      return { teams: [], plays: [], hands: new Map(), counters: {}, round: 0, outcome: null };
    },

    apply(s, e) {
      const play = (seq) => s.plays.find((p) => p.seq === seq);
      const fromHand = (player, slug) => {
        const hand = s.hands.get(player);
        const at = hand ? hand.indexOf(slug) : -1;
        if (at >= 0) hand.splice(at, 1);
      };
      switch (e.type) {
        case "match_start":
          s.teams = e.teams.map((t) => ({
            team: t.team, spirit: t.spirit.name, protector: t.protector.name,
            defenses: t.defenses.map((d) => ({ slug: d.slug, name: d.name, elements: d.elements, markers: [], destroyed: false })),
            players: t.players.map((p) => p.id),
          }));
          for (const t of e.teams) for (const p of t.players) s.counters[p.id] = p.counter;
          break;
        case "deal":
          s.hands.set(e.player, [...e.cards]);
          break;
        case "draw":
          if (s.hands.has(e.player)) s.hands.get(e.player).push(...e.cards);
          break;
        case "round_start":
          s.round = e.round;
          s.plays = [];
          Object.assign(s.counters, e.counters);
          break;
        case "turn":
          s.plays.push({ seq: e.seq, player: e.player, face: e.face, orientation: e.orientation, card: e.card,
                         element: e.element, kind: e.kind, seen: e.face === "up" ? "up" : null });
          if (e.card) fromHand(e.player, e.card);
          break;
        case "facedown": case "spy": case "reveal": {
          const p = play(e.seq);
          if (!p) break;
          Object.assign(p, { card: e.card, element: e.element, kind: e.kind });
          p.seen = e.type === "reveal" ? "revealed" : e.type === "spy" ? (p.seen || "spied") : "own";
          if (e.type === "facedown") fromHand(e.player, e.card);
          break;
        }
        case "redraw":
          s.plays.push({ seq: e.seq, player: e.player, redraw: true, discarded: e.discarded });
          for (const slug of e.discarded) fromHand(e.player, slug);
          break;
        case "allocation":
          for (const [slug, element] of e.placements) {
            const d = s.teams[1 - e.team].defenses.find((x) => x.slug === slug);
            if (d) d.markers.push(element);
          }
          break;
        case "heal":
          if (e.removed) {
            const d = s.teams[e.team].defenses.find((x) => x.slug === e.defense);
            const at = d ? d.markers.indexOf(e.element) : -1;
            if (at >= 0) d.markers.splice(at, 1);
          }
          break;
        case "destroyed": {
          const d = s.teams[e.team].defenses.find((x) => x.slug === e.defense);
          if (d) d.destroyed = true;
          break;
        }
        case "counters":
          Object.assign(s.counters, e.after);
          break;
        case "match_end":
          s.outcome = e;
          break;
        default:
          break;
      }
    },

    silent(s, e) {
      return `(${e.type})`;
    },

    outcome(e) {
      const rounds = `after ${e.rounds} round${e.rounds === 1 ? "" : "s"}`;
      if (e.winner === null) return `Draw (${e.reason}) ${rounds}.`;
      const team = (start.teams || [])[e.winner];
      return `Team ${e.winner}${team ? ` (${team.spirit.name})` : ""} wins (${e.reason}) ${rounds}.`;
    },

    playLabel(p) {
      const who = seatLabel(p.player);
      if (p.redraw) return `${who} redraws, discarding ${p.discarded.map(cardName).join(", ") || "nothing"}`;
      const how = p.orientation === "attack" ? "attack" : "effect";
      if (!p.card) return `${who}: face down (${how})`;
      const what = p.orientation === "attack" ? `${p.element} attack` : `${p.element} ${p.kind}`;
      const face = { up: "face up", own: "face down", spied: "face down, seen by the Spy", revealed: "face down, revealed" };
      return `${who}: ${cardName(p.card)} (${what}, ${face[p.seen] || "face down"})`;
    },

    draw(s, viewer) {
      const teams = s.teams.map((t) => el("section", { className: "team", "aria-label": `Team ${t.team}` },
        el("h3", {}, `Team ${t.team}: ${t.spirit}`),
        el("p", {}, `Protector: ${t.protector}`),
        el("h4", {}, "Defenses"),
        el("ul", { className: "defenses" }, ...t.defenses.map((d) => el("li", {
          className: d.destroyed ? "defense destroyed" : "defense", "data-defense": d.slug,
        },
        el("span", { className: "defense-name" }, d.name), ` (${d.elements.join(" + ")}) `,
        d.destroyed ? el("span", { className: "status bad" }, "broken")
          : el("span", { className: "status good" }, "standing"),
        d.markers.length ? el("span", { className: "markers" }, ` markers: ${d.markers.join(", ")}`) : null))),
        el("h4", {}, "Seats"),
        el("ul", { className: "seats" }, ...t.players.map((id) => {
          const hand = s.hands.get(id);
          return el("li", { "data-seat": id },
            el("strong", {}, seatLabel(id)), ` · counter ${s.counters[id]}`,
            el("div", { className: "hand" }, hand ? `Hand: ${hand.map(cardName).join(", ") || "empty"}`
              : viewer ? "Hand: hidden from this seat" : "Hand: not yet dealt"));
        }))));
      const plays = s.plays.length
        ? el("ol", { className: "plays", id: "plays" }, ...s.plays.map((p) => el("li", { "data-seq": p.seq },
          `Turn ${p.seq + 1}: ${legends.playLabel(p)}`)))
        : el("p", { className: "help", id: "plays" }, "No card played yet this round.");
      return el("div", { className: "teams" },
        el("p", { className: "round" }, roundLabel(s.round)), ...teams,
        el("section", { className: "in-play", "aria-label": "Cards in play" }, el("h3", {}, "Cards in play"), plays));
    },
  };

  // ------------------------------------------------------------------------------ stepping

  const game = data.game === "legends" ? legends : realms;
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
    for (const seat of seats) viewerSelect.append(el("option", { value: seat.id }, `${seatLabel(seat.id)}, team ${seat.team}`));
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
