"""Akin Legends rules engine: pure Python, no Django."""
