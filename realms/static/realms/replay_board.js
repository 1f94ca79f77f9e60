// The Echo Realms board of the replay viewer (simulate/static/simulate/replay.js): each side's vanguard and
// rearguard, every unit with its HP and effects, the acting unit and its target marked, and the round's attack
// order (R7, as its last `order` event gave it) with the acting unit marked there too.
"use strict";

window.ReplayBoards = window.ReplayBoards || {};
window.ReplayBoards.realms = ({ el, hpMeter, roundLabel, start }) => {
  const realms = {
    start() {
      return { units: new Map(), round: 0, actor: null, target: null, outcome: null, order: [] };
    },

    // The unit whose action, ability or trigger the event belongs to.
    actor(e) {
      switch (e.type) {
        case "decision": case "ability_used": case "faction_triggered": case "move": case "cooldown_started":
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
        case "table_change": // HP moved by hand at a table (an effect put on or taken off follows as its own event)
          s.target = e.unit;
          if (e.change === "hp" && unit(e.unit)) unit(e.unit).hp = e.hp_after;
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
        case "order":
          s.order = e.units; // [unit id, SPD it acts at], first to act first
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
        const given = (start.agents || {})[side];
        const agent = typeof given === "string" ? { agent: given } : given; // a name per side in the log
        return el("section", { className: "side", "aria-label": `Side ${side}` },
          el("h3", {}, `Side ${side}`, agent ? el("span", { className: "help" }, ` (agent ${agent.agent})`) : null), ...lines);
      });
      const order = s.order.length ? el("section", { className: "attack-order", "aria-labelledby": "attack-order-heading" },
        el("h3", { id: "attack-order-heading" }, "Attack order"),
        el("ol", {}, ...s.order.map(([id, spd]) => {
          const u = s.units.get(id);
          return el("li", {
            "data-order-unit": id, className: [s.actor === id && "order-acting", u?.defeated && "defeated"]
              .filter(Boolean).join(" ") || null, "aria-current": s.actor === id ? "true" : null,
          }, `${id} ${u ? u.name : ""} (SPD ${spd})`, u?.defeated ? " defeated" : "");
        }))) : null;
      return el("div", { className: "sides" }, el("p", { className: "round" }, roundLabel(s.round)), ...sides, order);
    },
  };
  return realms;
};
