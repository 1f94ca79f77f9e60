"""Echo Realms rules engine: pure Python, no Django."""
