"""Shared match engine core: seeded RNG, event log, agent protocol, game registry and runner.

Pure Python (standard library only); each game plugs its rules in through `games.GAMES`.
"""
