// The Akin Legends board of the replay viewer (simulate/static/simulate/replay.js): each team's spirit,
// protector, defenses and seats (hands, counters), and the cards in play this round.
"use strict";

window.ReplayBoards = window.ReplayBoards || {};
window.ReplayBoards.legends = ({ el, roundLabel, start }) => {
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
  // The seats the viewer can show the match as (hands and face-down cards are hidden from the others).
  legends.seats = seats.map((seat) => ({ id: seat.id, label: `${seatLabel(seat.id)}, team ${seat.team}` }));
  legends.seatLabel = seatLabel;
  return legends;
};
