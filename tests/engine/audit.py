"""An independent auditor: replays an Echo Realms event log alone and checks the rules against it."""

from __future__ import annotations

from typing import Any


class _U:
    def __init__(self, side: str, line: str, atk: int, df: int, spd: int, hp: int, summon: bool, cooldown: int) -> None:
        self.side = side
        self.line = line
        self.base = {"atk": atk, "def": df, "spd": spd}
        self.mods = {"atk": 0, "def": 0, "spd": 0}
        self.hp = hp
        self.max_hp = hp
        self.alive = True
        self.summon = summon
        self.cooldown = cooldown
        self.shields: dict[int, int] = {}  # eid -> points left, in the order applied

    def eff(self, stat: str) -> int:
        return max(0, self.base[stat] + self.mods[stat])


def audit(events: list[dict[str, Any]]) -> list[str]:
    """Every rule the log shows broken (empty when the log is consistent with the rules)."""
    problems: list[str] = []
    units: dict[str, _U] = {}
    effects: dict[int, tuple[str, str, str, int]] = {}
    rnd = 0
    acted: set[str] = set()
    ended = False

    def bad(i: int, text: str) -> None:
        problems.append(f"#{i} {events[i]['type']}: {text}")

    def living(side: str, line: str | None = None) -> list[str]:
        return [k for k, u in units.items() if u.alive and u.side == side and (line is None or u.line == line)]

    for i, e in enumerate(events):
        t = e["type"]
        if ended:
            bad(i, "event after match_end")
        if t == "match_start":
            for u in e["units"]:
                units[u["id"]] = _U(u["side"], u["line"], u["atk"], u["def"], u["spd"], u["hp"], False, u["cooldown"])
                if u["line"] not in ("vanguard", "rearguard"):
                    bad(i, f"{u['id']} in line {u['line']}")
            for side in ("a", "b"):
                for line in ("vanguard", "rearguard"):
                    if len(living(side, line)) > 5:
                        bad(i, f"{side} {line} holds more than 5")
        elif t == "round_start":
            if e["round"] != rnd + 1:
                bad(i, f"round {e['round']} after {rnd}")
            rnd = e["round"]
            acted = set()
        elif t == "order":
            ids = [uid for uid, _ in e["units"]]
            spds = [s for _, s in e["units"]]
            if spds != sorted(spds, reverse=True):
                bad(i, f"order not by SPD: {e['units']}")
            if sorted(ids) != sorted(k for k, u in units.items() if u.alive):
                bad(i, "order does not list exactly the living units")
            for uid, spd in e["units"]:
                if units[uid].eff("spd") != spd:
                    bad(i, f"{uid} ordered at SPD {spd}, its SPD is {units[uid].eff('spd')}")
        elif t == "move":
            u = units[e["unit"]]
            if u.line != e["from"] or e["from"] == e["to"]:
                bad(i, f"move from {e['from']} but unit stands in {u.line}")
            u.line = e["to"]
            if len(living(u.side, u.line)) > 5:
                bad(i, "a line holds more than 5 after a move")
        elif t == "ability_used":
            u = units[e["unit"]]
            if not u.alive or e["unit"] in acted:
                bad(i, "dead unit or second action in a round")
            acted.add(e["unit"])
            if e["ready"] != rnd + u.cooldown:
                bad(i, f"ready {e['ready']} != round {rnd} + cooldown {u.cooldown}")
        elif t == "damage":
            src, tgt = units[e["src"]], units[e["tgt"]]
            if not tgt.alive:
                bad(i, "damage to a defeated unit")
            if e["hp_before"] != tgt.hp:
                bad(i, f"hp_before {e['hp_before']} but the log says {tgt.hp}")
            if e["tgt_line"] != tgt.line:
                bad(i, "tgt_line is not the target's line")
            if e["via"] == "ongoing":
                if e["atk"] is not None or e["def"] is not None or e["amount"] != e["power"]:
                    bad(i, "ongoing damage must ignore ATK/DEF")
            else:
                if not src.alive and e["via"] == "basic":
                    bad(i, "a defeated unit attacks")
                if e["src_line"] is not None and e["src_line"] != src.line:
                    bad(i, "src_line is not the source's line")
                if e["atk"] != src.eff("atk"):
                    bad(i, f"atk {e['atk']} but the source's ATK is {src.eff('atk')}")
                if e["def"] is not None and e["def"] != tgt.eff("def"):
                    bad(i, f"def {e['def']} but the target's DEF is {tgt.eff('def')}")
            if e["via"] == "basic":
                if e["src"] in acted:
                    bad(i, "second action in a round")
                acted.add(e["src"])
                if e["power"] != e["atk"]:
                    bad(i, "a basic attack's power is its ATK")
                if src.side == tgt.side:
                    bad(i, "basic attack on an ally")
                if src.line == "vanguard" and tgt.line == "rearguard" and living(tgt.side, "vanguard"):
                    bad(i, "a vanguard unit hit the rearguard while the enemy vanguard stood (R12)")
            expected = max(1, e["power"] - (e["def"] or 0))
            if e["amount"] != expected:
                bad(i, f"amount {e['amount']} != max(1, {e['power']} - {e['def']})")
            absorbed = 0
            left = e["amount"]
            for eid in list(tgt.shields):
                take = min(tgt.shields[eid], left)
                tgt.shields[eid] -= take
                absorbed += take
                left -= take
            if absorbed != e["absorbed"]:
                bad(i, f"absorbed {e['absorbed']} but shields hold {absorbed}")
            after = max(0, e["hp_before"] - e["amount"] + e["absorbed"])
            if e["hp_after"] != after:
                bad(i, f"hp_after {e['hp_after']} != {after}")
            tgt.hp = e["hp_after"]
            if not 0 <= tgt.hp <= tgt.max_hp:
                bad(i, "HP out of bounds")
        elif t == "heal":
            tgt = units[e["tgt"]]
            if e["hp_before"] != tgt.hp or not tgt.alive:
                bad(i, "heal on a wrong HP or a defeated unit")
            healed = max(0, min(e["amount"], tgt.max_hp - tgt.hp))
            if e["healed"] != healed or e["hp_after"] != tgt.hp + healed:
                bad(i, f"healed {e['healed']} != min({e['amount']}, room {tgt.max_hp - tgt.hp})")
            tgt.hp = e["hp_after"]
            if tgt.hp > tgt.max_hp:
                bad(i, "healed above max HP")
        elif t == "effect_applied":
            u = units[e["unit"]]
            effects[e["eid"]] = (e["unit"], e["kind"], e["stat"] or "", e["amount"] or 0)
            if e["until"] != max(rnd, 1) + e["duration"] - 1:
                bad(i, f"until {e['until']} != round {rnd} + {e['duration']} - 1 (R14)")
            if e["kind"] in ("buff", "debuff"):
                u.mods[e["stat"]] += e["amount"] if e["kind"] == "buff" else -e["amount"]
            elif e["kind"] == "shield":
                u.shields[e["eid"]] = e["amount"]
        elif t == "effect_expired":
            uid, kind, stat, amount = effects.pop(e["eid"])
            u = units[uid]
            if kind in ("buff", "debuff"):
                u.mods[stat] -= amount if kind == "buff" else -amount
            elif kind == "shield":
                left = u.shields.pop(e["eid"])
                if e["reason"] == "depleted" and left != 0:
                    bad(i, "a shield depleted with points left")
        elif t == "summon":
            units[e["unit"]] = _U(e["side"], e["line"], e["atk"], e["def"], e["spd"], e["hp"], True, 0)
            if len(living(e["side"], e["line"])) > 5:
                bad(i, "a summon overfills its line (R15)")
        elif t == "defeated":
            u = units[e["unit"]]
            if not u.alive:
                bad(i, "defeated twice")
            if e["cause"] == "damage" and u.hp != 0:
                bad(i, "defeated with HP left")
            if e["cause"] == "army_defeated" and (not u.summon or living(u.side) and any(
                not units[k].summon for k in living(u.side))):
                bad(i, "a unit left while its army still stood")
            u.alive = False
            u.hp = 0
        elif t == "match_end":
            ended = True
            chars = {s: [k for k in living(s) if not units[k].summon] for s in ("a", "b")}
            if e["reason"] == "elimination":
                loser = "a" if e["winner"] == "b" else "b"
                if chars[loser] or not chars[e["winner"]]:
                    bad(i, "winner/loser do not match the living characters")
            elif e["reason"] == "mutual_elimination":
                if chars["a"] or chars["b"] or e["winner"] is not None:
                    bad(i, "a draw by elimination with characters left")
            elif e["winner"] is not None:
                bad(i, f"{e['reason']} must be a draw")
    if events and not ended:
        problems.append("the log has no match_end")
    return problems
