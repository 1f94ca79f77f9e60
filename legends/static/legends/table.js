// The Akin Legends table tracker (/legends/table/, legends/pages/table.py): players at a physical table, one
// phone shared. It keeps each team's defenses and their element markers, the round, who holds which turn
// counter and whose turn it is, a log, and the states before each change for Undo, in this browser
// (localStorage): nothing is sent to the server, and a reload or a lost connection loses nothing.
//
// The rule numbers come from the page (#table-rules, written from legends/engine/vocabulary.py). The pure
// functions come first (a state in, a new state out; they read neither the page nor the storage), then the
// page code, which only draws what they return and stores it.
"use strict";

(() => {
  const STORAGE_KEY = "akin-legends-table/v1";
  const VERSION = 1;
  const HISTORY_LIMIT = 300; // the changes Undo can take back
  const LOG_LIMIT = 1000;
  const LOG_SHOWN = 200;

  // ---------------------------------------------------------------------------------- the rules, pure

  // L11: at the end of a round each counter card is handed on, 1 → 2, 2 → 3, 3 → 4, 4 → 1: card 1 goes to
  // the player who held card 2, and so on, and the last card to the player who held card 1. So the holder
  // of counter 2 starts the next round. With two counters (a duel) the two players swap them.
  // `holders[c]` is the player (an index in `game.players`) holding counter c + 1.
  function rotateCounters(holders) {
    return holders.map((_, c) => holders[(c + 1) % holders.length]);
  }

  // L7: in a round each player plays the mode's number of passes, each pass in counter order
  // (teams: 1, 2, 3, 4, 1, 2, 3, 4; a duel: 1, 2, 1, 2, 1, 2).
  function turnsPerRound(rules, game) {
    return rules.modes[game.mode].passes * game.holders.length;
  }

  // The turn being played: its counter, its player, and whether its card is played face up (the first pass)
  // or face down. null once every turn of the round is played: the showdown.
  function currentTurn(rules, game) {
    if (game.turn >= turnsPerRound(rules, game)) return null;
    const counter = (game.turn % game.holders.length) + 1;
    const pass = Math.floor(game.turn / game.holders.length) + 1;
    return { counter, player: game.holders[counter - 1], faceUp: pass <= rules.face_up_passes };
  }

  // L12: a team whose defenses are all destroyed loses; both teams at once is a draw; the game's last round
  // ended with both teams standing is a draw too. null while the game goes on.
  function outcome(game) {
    const lost = game.teams.map((team) => team.defenses.every((defense) => defense.destroyed));
    if (lost.includes(true) && !lost.includes(false)) return { draw: true };
    if (lost.includes(true)) return { winner: lost.indexOf(false), loser: lost.indexOf(true) };
    if (game.lastRoundEnded) return { draw: true, rounds: game.round };
    return null;
  }

  // L12: the rounds a game lasts at most (a game stored before the limit was asked takes the default).
  const roundLimit = (rules, game) => game.maxRounds || rules.max_rounds;

  // A game as it starts: the players in setup order (a blank name is "Player N"), each holding the counter
  // its seat starts with (teammates alternate), every defense standing with no marker, round 1, counter 1.
  function newGame(rules, setup) {
    const mode = rules.modes[setup.mode];
    const players = mode.seats.map((seat) => ({
      name: setup.names[seat.field] || `Player ${seat.number}`, team: seat.team,
    }));
    const holders = mode.seats.map((_, c) => mode.seats.findIndex((seat) => seat.counter === c + 1));
    const defenses = () => Array.from({ length: setup.defenses }, () => ({ markers: 0, destroyed: false }));
    const teams = Array.from({ length: mode.teams }, () => ({ defenses: defenses() }));
    return { mode: setup.mode, players, teams, holders, round: 1, turn: 0, maxRounds: setup.maxRounds };
  }

  function defenseOf(game, change) {
    const team = game.teams[change.team];
    return team ? team.defenses[change.defense] : undefined;
  }

  function withDefense(game, change, update) {
    const teams = game.teams.map((team, t) => (t !== change.team ? team : {
      ...team, defenses: team.defenses.map((defense, d) => (d === change.defense ? update(defense) : defense)),
    }));
    return { ...game, teams };
  }

  const isOver = (game) => outcome(game) !== null;

  // Each kind of change: whether it may happen now, the game it leads to, and its line in the log. A change
  // that may not happen changes nothing.
  const CHANGES = {
    // The next counter's turn; after the round's last turn, the showdown.
    next: {
      allowed: (rules, game) => !isOver(game) && game.turn < turnsPerRound(rules, game),
      apply: (rules, game) => ({ ...game, turn: game.turn + 1 }),
      say: (rules, before, after) => turnText(rules, after),
    },
    // After the showdown: the counters handed on (L11), and the next round starts at counter 1; after the
    // game's last round, nothing more (L12).
    endRound: {
      allowed: (rules, game) => !isOver(game) && game.turn === turnsPerRound(rules, game),
      apply: (rules, game) => (game.round >= roundLimit(rules, game) ? { ...game, lastRoundEnded: true }
        : { ...game, holders: rotateCounters(game.holders), round: game.round + 1, turn: 0 }),
      say: (rules, before, after) => (after.lastRoundEnded ? `Round ${before.round} ends, the game's last.`
        : `Round ${before.round} ends; the counters are handed on: ${holdersText(after)}. ${turnText(rules, after)}`),
    },
    // An element marker put on a standing defense (an attack that got through) or taken off (a healing).
    // L2: a defense requires two different elements; with both on it, it is destroyed.
    marker: {
      allowed: (rules, game, change) => {
        const defense = defenseOf(game, change);
        if (!defense || defense.destroyed) return false;
        const markers = defense.markers + change.delta;
        return markers >= 0 && markers <= rules.defense_elements;
      },
      apply: (rules, game, change) => withDefense(game, change, (defense) => {
        const markers = defense.markers + change.delta;
        return { markers, destroyed: markers >= rules.defense_elements };
      }),
      say: (rules, before, after, change) => markerText(rules, after, change),
    },
    // A defense marked destroyed, or back in play (a slip of the finger): then with fewer markers than
    // destroy it.
    destroyed: {
      allowed: (rules, game, change) => defenseOf(game, change) !== undefined,
      apply: (rules, game, change) => withDefense(game, change, (defense) => (defense.destroyed
        ? { markers: Math.min(defense.markers, rules.defense_elements - 1), destroyed: false }
        : { ...defense, destroyed: true })),
      say: (rules, before, after, change) =>
        `${defenseName(change)} ${defenseOf(after, change).destroyed ? "destroyed" : "back in play"}.`,
    },
  };

  // A change applied to the tracker: the new game, the game before it kept for Undo, a line in the log
  // (with the result, when the change ends the game).
  function applyChange(rules, tracker, change) {
    const kind = CHANGES[change.type];
    if (!kind || !kind.allowed(rules, tracker.game, change)) return tracker;
    const game = kind.apply(rules, tracker.game, change);
    const result = isOver(tracker.game) ? null : outcome(game);
    const text = kind.say(rules, tracker.game, game, change) + (result ? ` ${resultText(result)}` : "");
    return {
      ...tracker,
      game,
      history: [...tracker.history, tracker.game].slice(-HISTORY_LIMIT),
      log: [...tracker.log, { round: tracker.game.round, text }].slice(-LOG_LIMIT),
    };
  }

  // Undo: the game before the last change, whose line leaves the log. Repeated, it goes further back.
  function undo(tracker) {
    if (tracker.history.length === 0) return tracker;
    return {
      ...tracker,
      game: tracker.history[tracker.history.length - 1],
      history: tracker.history.slice(0, -1),
      log: tracker.log.slice(0, -1),
    };
  }

  function newTracker(rules, setup) {
    const game = newGame(rules, setup);
    const teams = game.teams.map((_, t) => teamText(game, t)).join("; ");
    const text = `The game begins. ${teams}. ${turnText(rules, game)}`;
    return { version: VERSION, game, history: [], log: [{ round: game.round, text }] };
  }

  // ---------------------------------------------------------------------------------- words

  const playerName = (game, player) => game.players[player].name;
  const defenseName = (change) => `Team ${change.team + 1} defense ${change.defense + 1}`;

  function teamPlayers(game, team) {
    return game.players.filter((player) => player.team === team).map((player) => player.name).join(" and ");
  }

  const teamText = (game, team) => `Team ${team + 1}: ${teamPlayers(game, team)}`;

  function holdersText(game) {
    return game.holders.map((player, c) => `counter ${c + 1} to ${playerName(game, player)}`).join(", ");
  }

  function turnText(rules, game) {
    const turn = currentTurn(rules, game);
    if (!turn) return "Showdown: turn the face-down cards over and apply the elements, then end the round.";
    return `Counter ${turn.counter}: ${playerName(game, turn.player)} plays`;
  }

  function roundText(rules, game) {
    const turn = currentTurn(rules, game);
    const last = game.round >= roundLimit(rules, game) ? " · the last round" : "";
    if (!turn) return `Round ${game.round} · showdown${last}`;
    const face = turn.faceUp ? "face up" : "face down";
    return `Round ${game.round} · turn ${game.turn + 1} of ${turnsPerRound(rules, game)} · ${face}${last}`;
  }

  function resultText(result) {
    if (result.rounds) return `Draw: round ${result.rounds} was the game's last, and both teams still have defenses.`;
    if (result.draw) return "Draw: both teams have lost all of their defenses.";
    return `Team ${result.winner + 1} wins: every defense of Team ${result.loser + 1} is destroyed.`;
  }

  function markerText(rules, game, change) {
    const defense = defenseOf(game, change);
    const what = change.delta > 0 ? "a marker added" : "a marker removed";
    const destroyed = defense.destroyed ? "; both of its elements lie on it: destroyed" : "";
    return `${defenseName(change)}: ${what} (${defense.markers} of ${rules.defense_elements})${destroyed}.`;
  }

  // ---------------------------------------------------------------------------------- storage

  function isTracker(rules, tracker) {
    return Boolean(tracker && tracker.version === VERSION && tracker.game && rules.modes[tracker.game.mode]
      && Array.isArray(tracker.game.holders) && Array.isArray(tracker.game.teams)
      && Array.isArray(tracker.history) && Array.isArray(tracker.log));
  }

  function load(rules) {
    try {
      const tracker = JSON.parse(localStorage.getItem(STORAGE_KEY));
      return isTracker(rules, tracker) ? tracker : null;
    } catch {
      return null;
    }
  }

  function save(tracker) {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(tracker));
    } catch {
      // Storage full or refused (a private window): the game goes on, unsaved.
    }
  }

  // ---------------------------------------------------------------------------------- the page

  const byId = (id) => document.getElementById(id);

  function element(tag, attributes = {}, text = "") {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text) node.textContent = text;
    return node;
  }

  function changeButton(rules, game, { id, label, text, change, fallback }) {
    const button = element("button", { type: "button", id, "aria-label": label, "data-change": JSON.stringify(change) }, text);
    if (fallback) button.dataset.fallback = fallback;
    button.disabled = !CHANGES[change.type].allowed(rules, game, change);
    return button;
  }

  function defenseItem(rules, game, team, index) {
    const defense = game.teams[team].defenses[index];
    const name = defenseName({ team, defense: index });
    const id = `table-t${team + 1}-d${index + 1}`;
    const change = { team, defense: index };
    const marker = (delta, verb, text) => changeButton(rules, game, {
      id: `${id}-${verb}`, label: `${name} markers: ${verb} one`, text, change: { type: "marker", ...change, delta },
      fallback: `${id}-destroyed`,
    });
    const toggle = changeButton(rules, game, {
      id: `${id}-destroyed`, label: `${name} destroyed`, text: "Destroyed", change: { type: "destroyed", ...change },
    });
    toggle.setAttribute("aria-pressed", String(defense.destroyed));
    toggle.classList.add("secondary");
    const state = defense.destroyed ? "Destroyed" : `Markers: ${defense.markers} of ${rules.defense_elements}`;
    const words = element("span", { class: "table-defense-words" });
    words.append(element("strong", {}, `Defense ${index + 1}`), element("span", { class: "table-defense-state" }, state));
    const buttons = element("span", { class: "table-defense-buttons" });
    buttons.append(marker(-1, "remove", "−"), marker(1, "add", "+"), toggle);
    const item = element("li", { class: defense.destroyed ? "table-defense destroyed" : "table-defense" });
    item.append(words, buttons);
    return item;
  }

  function teamSection(rules, game, team) {
    const defenses = game.teams[team].defenses;
    const standing = defenses.filter((defense) => !defense.destroyed).length;
    const section = element("section", { class: "panel table-team", "aria-labelledby": `table-team-${team + 1}` });
    const list = element("ul", { class: "table-defenses" });
    list.append(...defenses.map((_, index) => defenseItem(rules, game, team, index)));
    section.append(element("h3", { id: `table-team-${team + 1}` }, `Team ${team + 1}`),
      element("p", {}, `${teamPlayers(game, team)} · ${standing} of ${defenses.length} defenses standing`),
      list);
    return section;
  }

  function counterItem(rules, game, player, c) {
    const turn = isOver(game) ? null : currentTurn(rules, game);
    const item = element("li", {}, `Counter ${c + 1}: ${playerName(game, player)} (Team ${game.players[player].team + 1})`);
    if (turn && turn.counter === c + 1) {
      item.setAttribute("aria-current", "step");
      item.append(element("strong", {}, " · plays now"));
    }
    return item;
  }

  function logItem(entry) {
    const item = element("li");
    item.append(element("span", { class: "badge" }, `Round ${entry.round}`), ` ${entry.text}`);
    return item;
  }

  function draw(rules, tracker) {
    const { game } = tracker;
    const result = outcome(game);
    byId("table-round").textContent = roundText(rules, game);
    byId("table-now").textContent = result ? "The game is over." : turnText(rules, game);
    byId("table-result").textContent = result ? resultText(result) : "";
    byId("table-result").hidden = !result;
    byId("table-next").disabled = !CHANGES.next.allowed(rules, game);
    byId("table-end-round").disabled = !CHANGES.endRound.allowed(rules, game);
    byId("table-undo").disabled = tracker.history.length === 0;
    byId("table-counters").replaceChildren(...game.holders.map((player, c) => counterItem(rules, game, player, c)));
    byId("table-teams").replaceChildren(...game.teams.map((_, team) => teamSection(rules, game, team)));
    byId("table-log").replaceChildren(...tracker.log.slice(-LOG_SHOWN).reverse().map(logItem));
  }

  // The focus, kept across a redraw: on the same control if it is still there and enabled, else on the one
  // it names (a defense's toggle), else on the round's next step.
  function focusMemo() {
    const active = document.activeElement;
    return active && active.id && byId("table-game").contains(active)
      ? { id: active.id, fallback: active.dataset.fallback } : null;
  }

  function focusAgain(memo) {
    if (!memo) return;
    const ids = [memo.id, memo.fallback, "table-end-round", "table-next", "table-undo", "table-new"];
    const target = ids.map((id) => id && byId(id)).find((node) => node && !node.disabled);
    if (target && document.activeElement !== target) target.focus();
  }

  function show(view) {
    byId("table-setup").hidden = view !== "setup";
    byId("table-game").hidden = view !== "game";
  }

  // The setup form's name fields are the teams mode's; a duel has one player a team, numbered and seated
  // as the mode's seats say.
  function adaptSeats(rules, form) {
    const mode = rules.modes[form.elements.mode.value];
    if (!mode) return;
    const seats = new Map(mode.seats.map((seat) => [seat.field, seat]));
    for (const row of form.querySelectorAll("[data-seat]")) {
      const seat = seats.get(row.dataset.seat);
      row.hidden = !seat;
      row.querySelector("input").disabled = !seat;
      if (!seat) continue;
      row.querySelector("label").textContent = `Player ${seat.number} name`;
      row.querySelector(".help").textContent = `Team ${seat.team + 1}, counter ${seat.counter} in round 1.`;
    }
  }

  function readSetup(rules, form) {
    const data = new FormData(form);
    const mode = rules.modes[data.get("mode")] ? data.get("mode") : Object.keys(rules.modes)[0];
    const names = {};
    for (const seat of rules.modes[mode].seats) names[seat.field] = String(data.get(seat.field) || "").trim();
    const asked = Number.parseInt(data.get("defenses"), 10) || rules.modes[mode].defenses;
    const rounds = Number.parseInt(data.get("max_rounds"), 10) || rules.max_rounds;
    return {
      mode, names, defenses: Math.min(Math.max(asked, 1), rules.max_defenses),
      maxRounds: Math.min(Math.max(rounds, 1), rules.max_rounds_limit),
    };
  }

  function start() {
    const rules = JSON.parse(byId("table-rules").textContent);
    const form = byId("table-form");
    let tracker = load(rules);

    const update = (next, said) => {
      if (next === tracker) return;
      const memo = focusMemo();
      tracker = next;
      save(tracker);
      draw(rules, tracker);
      byId("table-said").textContent = said;
      focusAgain(memo);
    };

    byId("table-game").addEventListener("click", (event) => {
      const button = event.target.closest("button[data-change]");
      if (!button || button.disabled) return;
      const change = JSON.parse(button.dataset.change);
      const next = applyChange(rules, tracker, change);
      // The turn line is a live region of its own; other changes are said here.
      const turnChange = change.type === "next" || change.type === "endRound";
      update(next, turnChange ? "" : next.log[next.log.length - 1].text);
    });
    byId("table-undo").addEventListener("click", () => {
      const undone = tracker.log[tracker.log.length - 1].text;
      update(undo(tracker), `Undone: ${undone}`);
    });
    byId("table-new").addEventListener("click", () => {
      byId("table-resume").hidden = false;
      show("setup");
      byId("table-setup-heading").focus();
    });
    byId("table-resume").addEventListener("click", () => {
      show("game");
      byId("table-game-heading").focus();
    });
    form.elements.mode.addEventListener("change", () => {
      adaptSeats(rules, form);
      form.elements.defenses.value = rules.modes[form.elements.mode.value].defenses;
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      tracker = newTracker(rules, readSetup(rules, form));
      save(tracker);
      draw(rules, tracker);
      byId("table-resume").hidden = true;
      show("game");
      byId("table-game-heading").focus();
    });

    adaptSeats(rules, form);
    if (tracker) {
      draw(rules, tracker);
      show("game");
    }
  }

  window.LegendsTable = { rotateCounters, currentTurn, outcome, newTracker, applyChange, undo };
  start();
})();
